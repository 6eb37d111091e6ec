/**
 * One live connection to one MCP server (stdio or HTTP), over `@modelcontextprotocol/sdk`.
 *
 * @module
 */
import { childEnv } from "../core/env_policy.ts";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/sse"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../core/error_message.ts";
import { permissionHint } from "../core/permission_hint.ts";
import { HarnessError } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import type { McpServerConfig } from "./config.ts";
import type { McpCallResult } from "./result.ts";
import { DenoStdioTransport } from "./_stdio_transport.ts";

/** A tool as a server lists it. */
export interface McpToolInfo {
  /** The server's tool name. */
  readonly name: string;
  /** The server's description (or title). */
  readonly description: string;
  /** The server's input JSON Schema, unchanged. */
  readonly inputSchema: JsonObject;
  /** The server's `readOnlyHint` annotation. */
  readonly readOnly: boolean;
}

/** A progress notification of a running call. */
export interface McpProgress {
  /** Progress so far (grows with each notification). */
  readonly progress: number;
  /** The total, when known. */
  readonly total?: number | undefined;
  /** A human-readable message, when sent. */
  readonly message?: string | undefined;
}

/** Options of {@linkcode McpClient.connect}. */
export interface McpClientOptions {
  /** Called when the server announces `notifications/tools/list_changed`. @default {no-op} */
  readonly onToolsChanged?: () => void;
  /** Called once when the connection ends for any reason but {@linkcode McpClient.close}. @default {no-op} */
  readonly onClose?: (reason: string) => void;
  /** Receives the server's stderr, chunk by chunk (stdio only; otherwise it is drained). @default {no-op} */
  readonly onStderr?: (text: string) => void;
  /** Aborts the handshake. @default {never} */
  readonly signal?: AbortSignal;
  /**
   * Deadline of connect plus `initialize` in milliseconds (the server's `connectTimeoutMs`
   * wins when set). @default {10000}
   */
  readonly timeoutMs?: number;
}

/** Options of {@linkcode McpClient.callTool}. */
export interface McpCallOptions {
  /** Cancellation: aborting sends `notifications/cancelled` and rejects with `signal.reason`. */
  readonly signal: AbortSignal;
  /** Deadline in milliseconds, restarted by every progress notification. @default {60000} */
  readonly timeoutMs?: number;
  /** Receives progress notifications. @default {none} */
  readonly onProgress?: (progress: McpProgress) => void;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** How long a failed start waits for the server's exit status (it usually comes at once). */
const EXIT_STATUS_WAIT_MS = 3000;
/** The most stderr text quoted in a start-up failure. */
const STDERR_QUOTE = 1500;

type AnyTransport = DenoStdioTransport | StreamableHTTPClientTransport | SSEClientTransport;

/**
 * A connected MCP server. Calls fail with a clear `MCP server "x" …` error once it is gone.
 *
 * @example Usage
 * ```ts ignore
 * import { McpClient } from "./client.ts";
 * const client = await McpClient.connect("everything", { command: "node", args: ["index.js", "stdio"] });
 * const tools = await client.listTools();
 * const result = await client.callTool("echo", { message: "hi" }, { signal: new AbortController().signal });
 * await client.close();
 * ```
 */
export class McpClient {
  /** The configured server name. */
  readonly name: string;
  #client: Client;
  #transport: AnyTransport;
  #timeoutMs: number;
  #closeReason: string | undefined;
  #closing = false;

  private constructor(
    name: string,
    client: Client,
    transport: AnyTransport,
    timeoutMs: number,
  ) {
    this.name = name;
    this.#client = client;
    this.#transport = transport;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Starts (stdio) or reaches (HTTP) a server and completes the MCP handshake, within the
   * server's `connectTimeoutMs` (10 s by default).
   *
   * @param name The configured server name (used in messages).
   * @param config The server entry.
   * @param options Callbacks, cancellation and handshake deadline.
   * @returns The connected client.
   * @throws {HarnessError} `PERMISSION_DENIED` naming `--allow-run=<command>` when Deno may not start it;
   * `SPAWN_FAILED` when the command is not on `PATH`; `MCP_CONNECT_TIMEOUT` when the handshake
   * did not finish in time; `MCP_SERVER_EXITED` when the server exited during start-up (the
   * message quotes its stderr).
   * @throws {Error} When the handshake fails otherwise; the process is closed first.
   */
  static async connect(
    name: string,
    config: McpServerConfig,
    options: McpClientOptions = {},
  ): Promise<McpClient> {
    const { onToolsChanged, onClose, onStderr, signal } = options;
    const connectTimeoutMs = config.connectTimeoutMs ?? options.timeoutMs ??
      DEFAULT_CONNECT_TIMEOUT_MS;
    signal?.throwIfAborted();
    const transport = "command" in config
      ? new DenoStdioTransport({
        command: config.command,
        args: [...(config.args ?? [])],
        // Scrubbed (no secrets, never DEEPSEEK_API_KEY), then the server's own `env` on top.
        env: { ...childEnv(config.envPolicy), ...config.env },
        ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
        ...(onStderr === undefined ? {} : { onStderr }),
      })
      : config.transport === "sse"
      ? new SSEClientTransport(new URL(config.url), {
        requestInit: { headers: { ...config.headers } },
      })
      : new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: { ...config.headers } },
      });
    const client = new Client({ name: "dsh", version: "0.1.0" }, { capabilities: {} });
    const self = new McpClient(name, client, transport, config.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => onToolsChanged?.());
    client.onclose = () => {
      // The stdio transport closes after the process exited and its output drained.
      self.#closeReason = transport instanceof DenoStdioTransport
        ? transport.exitReason ?? "exited"
        : "closed the connection";
      if (!self.#closing) onClose?.(self.#closeReason);
    };
    // One deadline for spawn, connect and initialize: the SDK's request timeout alone would
    // not cover a transport that never opens.
    const deadline = AbortSignal.timeout(connectTimeoutMs);
    const handshake = signal === undefined ? deadline : AbortSignal.any([signal, deadline]);
    try {
      await client.connect(transport, { timeout: connectTimeoutMs, signal: handshake });
    } catch (error) {
      // The SDK's own request timeout may fire first: either way the deadline passed.
      const timedOut = signal?.aborted !== true &&
        (deadline.aborted ||
          (error as { code?: unknown } | null)?.code === ErrorCode.RequestTimeout);
      if (!timedOut && transport instanceof DenoStdioTransport && transport.pid !== undefined) {
        // A server that exits at start closes stdout first; wait for its exit status (at once
        // when it exits, and bounded, so a loaded machine still reports the exit code).
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          transport.exited,
          new Promise((resolve) => timer = setTimeout(resolve, EXIT_STATUS_WAIT_MS)),
        ]);
        clearTimeout(timer);
      }
      const failure = connectError(name, config, error, {
        timedOut,
        connectTimeoutMs,
        ...(transport instanceof DenoStdioTransport
          ? { exitReason: transport.exitReason, stderr: transport.stderrTail }
          : {}),
      });
      await self.close();
      if (signal?.aborted) throw signal.reason;
      throw failure;
    }
    return self;
  }

  /** The server's process id (stdio), while it runs. */
  get pid(): number | undefined {
    return this.#transport instanceof DenoStdioTransport && this.#closeReason === undefined
      ? this.#transport.pid
      : undefined;
  }

  /** Why the connection ended (`exited with code 1`, `was killed by SIGKILL`, …); `undefined` while open. */
  get closeReason(): string | undefined {
    return this.#closeReason;
  }

  /**
   * Lists every tool (following pagination). Tools that require the experimental task API are left out.
   *
   * @returns The server's tools.
   */
  async listTools(): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#client.listTools(cursor === undefined ? {} : { cursor });
      for (const tool of page.tools) {
        if (tool.execution?.taskSupport === "required") continue;
        tools.push({
          name: tool.name,
          description: tool.description ?? tool.title ?? tool.annotations?.title ?? "",
          inputSchema: tool.inputSchema as JsonObject,
          readOnly: tool.annotations?.readOnlyHint === true,
        });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  /**
   * Calls a tool. Cancellation reaches the server as `notifications/cancelled`; each progress
   * notification restarts the deadline.
   *
   * @param tool The server's tool name.
   * @param args The arguments, passed through unvalidated.
   * @param options Signal, deadline and progress callback.
   * @returns The server's result (an `isError` result is returned, not thrown).
   * @throws {unknown} `options.signal.reason` when aborted.
   * @throws {HarnessError} `MCP_SERVER_EXITED` when the server is gone; `TOOL_TIMEOUT` on the deadline.
   * @throws {Error} Any other protocol failure, with the server named.
   */
  async callTool(tool: string, args: unknown, options: McpCallOptions): Promise<McpCallResult> {
    const { signal, timeoutMs = this.#timeoutMs, onProgress } = options;
    signal.throwIfAborted();
    if (this.#closeReason !== undefined) throw this.#exitedError(tool, "before");
    try {
      return await this.#client.callTool(
        { name: tool, arguments: (args ?? {}) as Record<string, unknown> },
        undefined,
        {
          signal,
          timeout: timeoutMs,
          resetTimeoutOnProgress: true,
          // An onprogress handler is what makes the SDK send a progress token at all.
          onprogress: (progress) => onProgress?.(progress),
        },
      ) as McpCallResult;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (this.#closeReason !== undefined) throw this.#exitedError(tool, "during", error);
      const code = (error as { code?: unknown } | null)?.code;
      if (code === ErrorCode.RequestTimeout) {
        throw new HarnessError(
          "TOOL_TIMEOUT",
          `MCP tool "${tool}" on server ${
            JSON.stringify(this.name)
          } timed out: no result or progress for ${timeoutMs} ms`,
          { cause: error },
        );
      }
      throw new Error(
        `MCP server ${JSON.stringify(this.name)} failed the call to "${tool}": ${
          errorMessage(error)
        }`,
        { cause: error },
      );
    }
  }

  /**
   * Closes the connection and stops the server process: stdin EOF, then (after 0.6 s) SIGTERM
   * and SIGKILL to the server and every process it started (a wrapper such as `npx` or `sh -c`
   * keeps its own children), so nothing is left behind and close returns within about 1.5 s.
   */
  async close(): Promise<void> {
    this.#closing = true;
    this.#closeReason ??= "was closed by the harness";
    // The stdio transport ends the whole process tree within about a second.
    await this.#transport.close().catch(() => {});
    await this.#client.close().catch(() => {});
  }

  #exitedError(tool: string, when: "before" | "during", cause?: unknown): HarnessError {
    return new HarnessError(
      "MCP_SERVER_EXITED",
      `MCP server ${
        JSON.stringify(this.name)
      } ${this.#closeReason} ${when} the call to "${tool}"; its tools are unavailable until it restarts`,
      { cause },
    );
  }
}

/** What {@linkcode connectError} knows beyond the thrown error. */
interface ConnectFacts {
  readonly timedOut: boolean;
  readonly connectTimeoutMs: number;
  readonly exitReason?: string | undefined;
  readonly stderr?: string | undefined;
}

/**
 * The handshake failure: the missing `--allow-run`, the missing command, the deadline, or the
 * exit status and stderr of a server that died during start-up.
 */
function connectError(
  name: string,
  config: McpServerConfig,
  error: unknown,
  facts: ConnectFacts,
): Error {
  const where = `Cannot connect to MCP server ${JSON.stringify(name)}`;
  if ("command" in config) {
    if (error instanceof Deno.errors.NotCapable) {
      return new HarnessError(
        "PERMISSION_DENIED",
        `${where}: ${permissionHint(`--allow-run=${config.command}`)}`,
        { cause: error },
      );
    }
    if (error instanceof Deno.errors.NotFound) {
      return new HarnessError(
        "SPAWN_FAILED",
        `${where}: command ${JSON.stringify(config.command)} was not found on PATH`,
        { cause: error },
      );
    }
  }
  const stderr = (facts.stderr ?? "").trim();
  const quoted = stderr === ""
    ? ""
    : `; its stderr ends with: ${
      stderr.length > STDERR_QUOTE ? `…${stderr.slice(-STDERR_QUOTE)}` : stderr
    }`;
  // First: a server stopped for not answering exits afterwards, and that exit is not the cause.
  if (facts.timedOut) {
    return new HarnessError(
      "MCP_CONNECT_TIMEOUT",
      `${where}: the server did not answer initialize within ${
        seconds(facts.connectTimeoutMs)
      } (connectTimeoutMs)${quoted}`,
      { cause: error },
    );
  }
  if (facts.exitReason !== undefined) {
    return new HarnessError(
      "MCP_SERVER_EXITED",
      `${where}: the server ${facts.exitReason} during start-up${
        quoted === "" ? " without writing anything to stderr" : quoted
      }`,
      { cause: error },
    );
  }
  return new Error(`${where}: ${errorMessage(error)}${quoted}`, { cause: error });
}

/** `300 ms`, `10 s`, `1.5 s`. */
function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}
