/**
 * Configuration shapes of the MCP plugin: one entry per server, stdio or streamable HTTP.
 *
 * @module
 */
import type { EnvPolicy } from "../core/env_policy.ts";

/** A server launched as a subprocess and spoken to over stdio. */
export interface McpStdioServerConfig {
  /** The executable (resolved through `PATH`). */
  readonly command: string;
  /** Its arguments. @default {[]} */
  readonly args?: readonly string[];
  /** Extra environment variables, merged over a minimal inherited set (`HOME`, `PATH`, …). @default {{}} */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory of the process. @default {the harness's working directory} */
  readonly cwd?: string;
  /** Per-call deadline in milliseconds; every progress notification restarts it. @default {60000} */
  readonly timeoutMs?: number;
  /**
   * Deadline of start plus `initialize` in milliseconds; a server that misses it is reported
   * and retried with backoff. @default {10000, or the plugin's connectTimeoutMs}
   */
  readonly connectTimeoutMs?: number;
  /** The environment policy of the process (see `core/env_policy.ts`). @default {the plugin's envPolicy, else {}} */
  readonly envPolicy?: EnvPolicy;
}

/** A server reached over the network. */
export interface McpHttpServerConfig {
  /** The endpoint URL (`http:` or `https:`). */
  readonly url: string;
  /** Extra request headers (for example `Authorization`). @default {{}} */
  readonly headers?: Readonly<Record<string, string>>;
  /** `http` is streamable HTTP; `sse` is the legacy HTTP+SSE transport. @default {"http"} */
  readonly transport?: "http" | "sse";
  /** Per-call deadline in milliseconds; every progress notification restarts it. @default {60000} */
  readonly timeoutMs?: number;
  /**
   * Deadline of start plus `initialize` in milliseconds; a server that misses it is reported
   * and retried with backoff. @default {10000, or the plugin's connectTimeoutMs}
   */
  readonly connectTimeoutMs?: number;
}

/** One server's configuration. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** Reconnect backoff after a server exits or fails to start. */
export interface McpReconnectOptions {
  /** First delay in milliseconds. @default {500} */
  readonly initialDelayMs?: number;
  /** Upper bound of the delay; a connection that lived this long resets the backoff. @default {30000} */
  readonly maxDelayMs?: number;
  /** Multiplier between consecutive delays. @default {2} */
  readonly factor?: number;
  /** `false` turns reconnecting off (a dead server stays down). @default {true} */
  readonly enabled?: boolean;
}

/** Configuration of {@linkcode mcpPlugin}: servers by name, plus shared reconnect options. */
export interface McpPluginConfig {
  /** Servers by name; the name becomes the `mcp__<name>__` tool prefix. */
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  /** Reconnect backoff shared by every server. @default {{}} */
  readonly reconnect?: McpReconnectOptions;
  /** Default `connectTimeoutMs` of servers that set none. @default {10000} */
  readonly connectTimeoutMs?: number;
  /**
   * Registers the tools in this registry scope (a session id) instead of globally: only that
   * session sees them, and they shadow global tools of the same name there.
   * @default {undefined}
   */
  readonly scope?: string;
  /** The environment policy of stdio servers that set none (the agent passes `dsh.jsonc` `env`). @default {{}} */
  readonly envPolicy?: EnvPolicy;
}

/**
 * Checks one server entry and returns it unchanged.
 *
 * @param name The server name (for messages).
 * @param config The entry to check.
 * @returns The same entry, typed.
 * @throws {TypeError} When the entry has neither a `command` string nor a `url` string, or a field has the wrong type.
 * @throws {RangeError} When `timeoutMs` or `connectTimeoutMs` is not a positive finite number.
 *
 * @example Usage
 * ```ts
 * import { checkMcpServerConfig } from "./config.ts";
 * import { throws } from "node:assert/strict";
 * checkMcpServerConfig("fs", { command: "node", args: ["server.js"] });
 * throws(() => checkMcpServerConfig("x", {}), TypeError);
 * ```
 */
export function checkMcpServerConfig(name: string, config: unknown): McpServerConfig {
  const where = `MCP server ${JSON.stringify(name)}`;
  if (typeof config !== "object" || config === null) {
    throw new TypeError(
      `Cannot configure ${where}: current value is ${
        JSON.stringify(config)
      }, expected an object with "command" or "url"`,
    );
  }
  const entry = config as Record<string, unknown>;
  const isStdio = typeof entry.command === "string" && entry.command !== "";
  const isHttp = typeof entry.url === "string";
  if (isStdio === isHttp) {
    throw new TypeError(
      `Cannot configure ${where}: expected exactly one of a non-empty "command" string or a "url" string`,
    );
  }
  if (isStdio) {
    if (
      entry.args !== undefined &&
      !(Array.isArray(entry.args) && entry.args.every((arg) => typeof arg === "string"))
    ) {
      throw new TypeError(
        `Cannot configure ${where}: "args" must be an array of strings, current value is ${
          JSON.stringify(entry.args)
        }`,
      );
    }
    checkStringRecord(where, "env", entry.env);
    if (entry.cwd !== undefined && typeof entry.cwd !== "string") {
      throw new TypeError(`Cannot configure ${where}: "cwd" must be a string`);
    }
  } else {
    const url = URL.parse(entry.url as string);
    if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
      throw new TypeError(
        `Cannot configure ${where}: "url" must be an http or https URL, current value is ${
          JSON.stringify(entry.url)
        }`,
      );
    }
    checkStringRecord(where, "headers", entry.headers);
    if (entry.transport !== undefined && entry.transport !== "http" && entry.transport !== "sse") {
      throw new TypeError(
        `Cannot configure ${where}: "transport" must be "http" or "sse", current value is ${
          JSON.stringify(entry.transport)
        }`,
      );
    }
  }
  for (const field of ["timeoutMs", "connectTimeoutMs"]) {
    const timeout = entry[field];
    if (
      timeout !== undefined &&
      !(typeof timeout === "number" && Number.isFinite(timeout) && timeout > 0)
    ) {
      throw new RangeError(
        `Cannot configure ${where}: "${field}" must be a positive finite number, current value is ${
          JSON.stringify(timeout)
        }`,
      );
    }
  }
  return entry as unknown as McpServerConfig;
}

function checkStringRecord(where: string, field: string, value: unknown): void {
  if (value === undefined) return;
  if (
    typeof value !== "object" || value === null || Array.isArray(value) ||
    Object.values(value).some((item) => typeof item !== "string")
  ) {
    throw new TypeError(
      `Cannot configure ${where}: "${field}" must map names to strings, current value is ${
        JSON.stringify(value)
      }`,
    );
  }
}
