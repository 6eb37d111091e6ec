/**
 * One live connection to one MCP server (stdio or HTTP), over `@modelcontextprotocol/sdk`.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/sse"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../core/error_message.ts";
import { permissionHint } from "../core/permission_hint.ts";
import { HarnessError } from "../core/errors.ts";
import { killProcessTree, processTree } from "../jobs/mod.ts";
import type { JsonObject } from "../core/json.ts";
import type { McpServerConfig } from "./config.ts";
import type { McpCallResult } from "./result.ts";

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
  /** Handshake deadline in milliseconds. @default {60000} */
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

type AnyTransport = StdioClientTransport | StreamableHTTPClientTransport | SSEClientTransport;

/** What `exit` reports; read off the SDK transport's child process (pinned SDK 1.32.2). */
interface ChildLike {
  readonly exitCode: number | null;
  readonly signalCode: string | null;
  readonly stdin?: { end(): unknown } | null;
  once(event: "exit", listener: (code: number | null, signal: string | null) => void): unknown;
}

/** How long a stdio server may take to exit after its stdin closes before it is signalled. */
const CLOSE_GRACE_MS = 1000;
/** Time between SIGTERM and SIGKILL when a server must be killed on close. */
const KILL_GRACE_MS = 500;

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
  #pid: number | undefined;
  #child: ChildLike | undefined;
  #exited: Promise<void> = Promise.resolve();
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
   * Starts (stdio) or reaches (HTTP) a server and completes the MCP handshake.
   *
   * @param name The configured server name (used in messages).
   * @param config The server entry.
   * @param options Callbacks, cancellation and handshake deadline.
   * @returns The connected client.
   * @throws {HarnessError} `PERMISSION_DENIED` naming `--allow-run=<command>` when Deno may not start it.
   * @throws {Error} When the process cannot start or the handshake fails; the process is closed first.
   */
  static async connect(
    name: string,
    config: McpServerConfig,
    options: McpClientOptions = {},
  ): Promise<McpClient> {
    const { onToolsChanged, onClose, onStderr, signal, timeoutMs = DEFAULT_TIMEOUT_MS } = options;
    signal?.throwIfAborted();
    const transport = "command" in config
      ? new StdioClientTransport({
        command: config.command,
        args: [...(config.args ?? [])],
        env: { ...config.env },
        ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
        stderr: "pipe",
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
    let exitReason: string | undefined;
    if (transport instanceof StdioClientTransport) {
      // A piped stderr that nobody reads would block the server once the pipe fills.
      transport.stderr?.on("data", (chunk: Uint8Array | string) => {
        onStderr?.(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
      });
      const start = transport.start.bind(transport);
      transport.start = async () => {
        await start();
        self.#pid = transport.pid ?? undefined;
        const child = (transport as unknown as { _process?: ChildLike })._process;
        self.#child = child;
        const exited = Promise.withResolvers<void>();
        self.#exited = exited.promise;
        child?.once("exit", (code, sig) => {
          exitReason = sig !== null ? `was killed by ${sig}` : `exited with code ${code}`;
          exited.resolve();
        });
      };
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => onToolsChanged?.());
    client.onclose = () => {
      // The process `exit` event precedes the stdio `close` that triggers this.
      self.#closeReason = exitReason ?? ("command" in config ? "exited" : "closed the connection");
      if (!self.#closing) onClose?.(self.#closeReason);
    };
    try {
      await client.connect(transport, { timeout: timeoutMs, ...(signal ? { signal } : {}) });
    } catch (error) {
      await self.close();
      throw connectError(name, config, error);
    }
    return self;
  }

  /** The server's process id (stdio), while it runs. */
  get pid(): number | undefined {
    return this.#pid;
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
   * Closes the connection and stops the server process: stdin EOF, then (after 1 s) SIGTERM and
   * SIGKILL to the server and every process it started (a wrapper such as `npx` or `sh -c`
   * keeps its own children), so nothing is left behind and close never waits on the SDK's
   * longer fixed grace periods.
   */
  async close(): Promise<void> {
    this.#closing = true;
    this.#closeReason ??= "was closed by the harness";
    const pid = this.#pid;
    const tree = pid === undefined ? [] : treeOf(pid);
    const child = this.#child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        child.stdin?.end();
      } catch { /* already closed */ }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<void>((resolve) => timer = setTimeout(resolve, CLOSE_GRACE_MS));
      await Promise.race([this.#exited, grace]);
      clearTimeout(timer);
    }
    await Promise.all(
      tree.map((member) => killProcessTree(member, { graceMs: KILL_GRACE_MS }).catch(() => {})),
    );
    await this.#client.close().catch(() => {});
    await this.#transport.close().catch(() => {});
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

/** `pid` and its living descendants, root first (just `pid` when the table cannot be read). */
function treeOf(pid: number): number[] {
  try {
    return processTree(pid);
  } catch {
    return [pid];
  }
}

/** The handshake failure, naming the missing `--allow-run` or the missing command of a stdio server. */
function connectError(name: string, config: McpServerConfig, error: unknown): Error {
  const where = `Cannot connect to MCP server ${JSON.stringify(name)}`;
  if ("command" in config) {
    if (error instanceof Deno.errors.NotCapable) {
      return new HarnessError(
        "PERMISSION_DENIED",
        `${where}: ${permissionHint(`--allow-run=${config.command}`)}`,
        { cause: error },
      );
    }
    if ((error as { code?: unknown } | null)?.code === "ENOENT") {
      return new HarnessError(
        "SPAWN_FAILED",
        `${where}: command ${JSON.stringify(config.command)} was not found on PATH`,
        { cause: error },
      );
    }
  }
  return new Error(`${where}: ${errorMessage(error)}`, { cause: error });
}
