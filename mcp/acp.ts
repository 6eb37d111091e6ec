/**
 * ACP `session/new` / `session/load` `mcpServers` → the MCP plugin, scoped to a session fiber.
 *
 * @module
 */
import type { Context, Fiber } from "../core/context.ts";
import type { EnvPolicy } from "../core/env_policy.ts";
import {
  checkMcpServerConfig,
  type McpPluginConfig,
  type McpReconnectOptions,
  type McpServerConfig,
} from "./config.ts";
import { mcpPlugin } from "./plugin.ts";

/** A name/value pair as ACP sends environment variables and headers. */
export interface AcpNameValue {
  /** The name. */
  readonly name: string;
  /** The value. */
  readonly value: string;
}

/** ACP's stdio server entry (`McpServerStdio`; `type` is absent or `"stdio"`). */
export interface AcpMcpServerStdio {
  /** Discriminant (ACP omits it for stdio). */
  readonly type?: "stdio";
  /** The server name. */
  readonly name: string;
  /** The executable. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Environment variables. */
  readonly env: readonly AcpNameValue[];
}

/** ACP's HTTP or SSE server entry (`McpServerHttp` / `McpServerSse`). */
export interface AcpMcpServerHttp {
  /** `http` (streamable HTTP) or `sse` (legacy HTTP+SSE). */
  readonly type: "http" | "sse";
  /** The server name. */
  readonly name: string;
  /** The endpoint. */
  readonly url: string;
  /** Request headers. */
  readonly headers: readonly AcpNameValue[];
}

/** One entry of ACP's `mcpServers` (structurally ACP's `McpServer`). */
export type AcpMcpServer = AcpMcpServerStdio | AcpMcpServerHttp;

/** Options of {@linkcode acpMcpServersToConfig} and {@linkcode startAcpMcpServers}. */
export interface AcpMcpServersOptions {
  /** Working directory of stdio servers (normally the session's `cwd`). @default {the harness's} */
  readonly cwd?: string;
  /** Reconnect backoff. @default {{}} */
  readonly reconnect?: McpReconnectOptions;
  /** Deadline of each server's start plus `initialize`. @default {10000} */
  readonly connectTimeoutMs?: number;
  /**
   * The registry scope (normally the session id) the tools are registered in, so that only that
   * session sees them. @default {undefined}
   */
  readonly scope?: string;
  /** The environment policy of stdio servers. @default {{}} */
  readonly envPolicy?: EnvPolicy;
}

/**
 * Converts ACP's `mcpServers` list into the MCP plugin's config.
 *
 * @param servers The list from `session/new` or `session/load`.
 * @param options Working directory and reconnect backoff.
 * @returns The plugin config.
 * @throws {TypeError} When two entries share a name or an entry has an unknown `type`.
 *
 * @example Usage
 * ```ts
 * import { acpMcpServersToConfig } from "./acp.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(
 *   acpMcpServersToConfig([
 *     { name: "fs", command: "mcp-fs", args: ["."], env: [{ name: "DEBUG", value: "1" }] },
 *     { type: "http", name: "web", url: "https://example.com/mcp", headers: [] },
 *   ], { cwd: "/work" }),
 *   {
 *     servers: {
 *       fs: { command: "mcp-fs", args: ["."], env: { DEBUG: "1" }, cwd: "/work" },
 *       web: { url: "https://example.com/mcp", headers: {}, transport: "http" },
 *     },
 *   },
 * );
 * ```
 */
export function acpMcpServersToConfig(
  servers: readonly AcpMcpServer[],
  options: AcpMcpServersOptions = {},
): McpPluginConfig {
  const { cwd, ...shared } = options;
  const out: Record<string, McpServerConfig> = {};
  for (const server of servers) {
    if (Object.hasOwn(out, server.name)) {
      throw new TypeError(
        `Cannot start MCP servers: the name ${JSON.stringify(server.name)} is used twice`,
      );
    }
    if (server.type === "http" || server.type === "sse") {
      out[server.name] = {
        url: server.url,
        headers: pairs(server.headers),
        transport: server.type,
      };
    } else if (server.type === undefined || server.type === "stdio") {
      out[server.name] = {
        command: server.command,
        args: [...server.args],
        env: pairs(server.env),
        ...(cwd === undefined ? {} : { cwd }),
      };
    } else {
      throw new TypeError(
        `Cannot start MCP server ${JSON.stringify((server as { name?: unknown }).name)}: type ${
          JSON.stringify((server as { type?: unknown }).type)
        } is not supported, expected "http", "sse" or a stdio entry`,
      );
    }
  }
  return { servers: out, ...shared };
}

/**
 * Starts ACP's `mcpServers` as an MCP plugin fiber under `ctx` (the session's context): its
 * tools are registered through `ctx.tools` from that fiber, and disposing the returned fiber
 * (or `ctx`'s fiber) closes every server. `await fiber.ready` waits for the first connections
 * (bounded by `connectTimeoutMs`); a session need not wait: tools register as servers answer.
 *
 * @param ctx The session's context (its `ctx.tools` receives the tools).
 * @param servers The list from `session/new` or `session/load`.
 * @param options Working directory, reconnect backoff and the registry `scope` (the session id).
 * @returns The plugin fiber.
 * @throws {TypeError} When the list is invalid (checked before any server starts).
 *
 * @example Usage
 * ```ts ignore
 * const fiber = startAcpMcpServers(ctx, params.mcpServers, { cwd: params.cwd, scope: sessionId });
 * await fiber.ready;
 * ```
 */
export function startAcpMcpServers(
  ctx: Context,
  servers: readonly AcpMcpServer[],
  options: AcpMcpServersOptions = {},
): Fiber {
  const config = acpMcpServersToConfig(servers, options);
  for (const [name, server] of Object.entries(config.servers)) checkMcpServerConfig(name, server);
  return ctx.plugin(mcpPlugin, config);
}

function pairs(list: readonly AcpNameValue[]): Record<string, string> {
  return Object.fromEntries(list.map(({ name, value }) => [name, value]));
}
