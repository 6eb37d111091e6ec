/**
 * One MCP server as a plugin fiber: connect, register its tools, follow `list_changed`,
 * reconnect with backoff after an exit, and close the server with the fiber.
 *
 * @module
 */
import type { Context, Plugin } from "../core/context.ts";
import { errorMessage } from "../core/error_message.ts";
import { HarnessError } from "../core/errors.ts";
import type { JsonValue } from "../core/json.ts";
import { contentText } from "../tools/content.ts";
import type { AnyToolDefinition, ExecuteReturn, ToolExecution } from "../tools/definition.ts";
import type { ToolMiddleware, ToolRegistry } from "../registry/types.ts";
import { errorOutcome } from "../tools/outcome.ts";
import { McpClient, type McpProgress, type McpToolInfo } from "./client.ts";
import { checkMcpServerConfig, type McpReconnectOptions, type McpServerConfig } from "./config.ts";
import { mcpResultContent } from "./result.ts";
import { mcpToolName } from "./tool_name.ts";

/** Config of {@linkcode mcpServerPlugin}. */
export interface McpServerPluginConfig {
  /** The server name (the `mcp__<name>__` prefix). */
  readonly name: string;
  /** How to reach it. */
  readonly server: McpServerConfig;
  /** Reconnect backoff. @default {{}} */
  readonly reconnect?: McpReconnectOptions;
  /** The registry scope (a session id) the tools are registered in; global when omitted. @default {undefined} */
  readonly scope?: string;
  /** Default `connectTimeoutMs` when the server entry sets none. @default {10000} */
  readonly connectTimeoutMs?: number;
}

/** Payload of the `"mcp/status"` ctx event. */
export interface McpStatusEvent {
  /** The server name. */
  readonly server: string;
  /** `connected` after the tools are registered; `disconnected` after an exit or a failed start. */
  readonly state: "connected" | "disconnected";
  /** Registered tool names (`connected`, and after each `list_changed` refresh). */
  readonly tools?: readonly string[];
  /** The server's pid (stdio). */
  readonly pid?: number;
  /** Why it disconnected. */
  readonly reason?: string;
  /** Milliseconds until the next connection attempt (absent when reconnecting is off). */
  readonly retryInMs?: number;
  /** The number of the next connection attempt (with `retryInMs`). */
  readonly attempt?: number;
  /** The registry scope (session id) of the server's tools; absent for global servers. */
  readonly scope?: string;
}

/** Payload of the `"mcp/progress"` ctx event (also written to the call's `exec.output`). */
export interface McpProgressEvent extends McpProgress {
  /** The server name. */
  readonly server: string;
  /** The server's tool name. */
  readonly tool: string;
  /** The model's call id. */
  readonly callId: string;
}

/**
 * Runs one MCP server for the lifetime of the fiber. `apply` resolves after the first connection
 * attempt, which `connectTimeoutMs` bounds (so `await fiber.ready` sees the tools registered,
 * and callers that must not wait simply do not await it); a failed start is logged, reported
 * as `"mcp/status"` `disconnected` (its reason quotes the server's stderr) and retried with
 * backoff. While a server restarts, its known tools stay registered and answer
 * `MCP server "x" is restarting (attempt n, next try in t s)`; a call to an `mcp__x__*` name it
 * never listed, while it is not connected, fails with `MCP_SERVER_NOT_CONNECTED` and why (for
 * example `the server did not answer initialize within 10 s`). Emits `"mcp/status"` and
 * `"mcp/progress"`.
 *
 * @example Usage
 * ```ts ignore
 * const fiber = ctx.plugin(mcpServerPlugin, { name: "fs", server: { command: "mcp-fs", args: ["."] } });
 * await fiber.ready; // tools `mcp__fs__*` are registered
 * ```
 */
export const mcpServerPlugin: Plugin<McpServerPluginConfig> = {
  name: "mcp-server",
  inject: ["tools"],
  apply: applyServer,
};

async function applyServer(ctx: Context, config: McpServerPluginConfig): Promise<void> {
  const { name } = config;
  const checked = checkMcpServerConfig(name, config.server);
  const server: McpServerConfig = checked.connectTimeoutMs === undefined &&
      config.connectTimeoutMs !== undefined
    ? { ...checked, connectTimeoutMs: config.connectTimeoutMs }
    : checked;
  const tools = ctx.get<ToolRegistry>("tools");
  if (tools === undefined) {
    throw new Error(`Cannot start MCP server "${name}": ctx.tools is missing`);
  }
  const lifetime = new ServerLifetime(ctx, config, server, tools);
  ctx.effect(() => () => lifetime.close());
  tools.use("route", lifetime.route());
  await lifetime.start();
}

/** One server across its connections: its registered tools, its status and the reconnects. */
class ServerLifetime {
  readonly #ctx: Context;
  readonly #name: string;
  readonly #scope: string | undefined;
  readonly #server: McpServerConfig;
  readonly #tools: ToolRegistry;
  readonly #reconnect: Required<McpReconnectOptions>;
  readonly #stop = new AbortController();
  #client: McpClient | undefined;
  #connecting: Promise<void> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #attempt = 0;
  #connectedAt = 0;
  #registered: (() => void)[] = [];
  #refreshing: Promise<void> = Promise.resolve();
  /** The last listed tools, kept as placeholders while the server restarts. */
  #known: readonly McpToolInfo[] = [];
  #nextTryAt: number | undefined;
  #downReason = "";

  constructor(
    ctx: Context,
    config: McpServerPluginConfig,
    server: McpServerConfig,
    tools: ToolRegistry,
  ) {
    this.#ctx = ctx;
    this.#name = config.name;
    this.#scope = config.scope;
    this.#server = server;
    this.#tools = tools;
    const { initialDelayMs = 500, maxDelayMs = 30_000, factor = 2, enabled = true } =
      config.reconnect ?? {};
    this.#reconnect = { initialDelayMs, maxDelayMs, factor, enabled };
  }

  /** The first connection attempt. */
  start(): Promise<void> {
    return this.#connecting = this.#connect();
  }

  /** Stops reconnecting, unregisters the tools and closes the server. */
  async close(): Promise<void> {
    this.#stop.abort();
    clearTimeout(this.#timer);
    this.#unregisterAll();
    await this.#connecting;
    const last = this.#client;
    this.#client = undefined;
    await last?.close();
  }

  #unregisterAll(): void {
    const list = this.#registered;
    this.#registered = [];
    for (const dispose of list) dispose();
  }

  #register(define: (info: McpToolInfo) => AnyToolDefinition, list: readonly McpToolInfo[]) {
    this.#unregisterAll();
    const names: string[] = [];
    const logger = this.#ctx.logger;
    const scope = this.#scope;
    for (const info of list) {
      const definition = define(info);
      if (names.includes(definition.name)) {
        logger.warn(`MCP server "${this.#name}": tool "${info.name}" skipped, its name collides`);
        continue;
      }
      try {
        this.#registered.push(
          this.#tools.register(definition, scope === undefined ? undefined : { scope }),
        );
        names.push(definition.name);
      } catch (error) {
        logger.warn(
          `MCP server "${this.#name}": tool "${info.name}" skipped: ${errorMessage(error)}`,
        );
      }
    }
    return names;
  }

  /** Serialized so that overlapping list_changed notifications apply in order. */
  #refresh(current: McpClient): Promise<void> {
    this.#refreshing = this.#refreshing.then(async () => {
      if (this.#client !== current) return;
      const list = await current.listTools();
      if (this.#client !== current || this.#stop.signal.aborted) return;
      this.#known = list;
      const names = this.#register((info) => mcpToolDefinition(this.#ctx, current, info), list);
      this.#emitStatus({ state: "connected", tools: names, ...pidOf(current) });
    }).catch((error) => {
      if (this.#client === current) {
        this.#ctx.logger.warn(`MCP server "${this.#name}": listing tools failed`, error);
      }
    });
    return this.#refreshing;
  }

  #emitStatus(event: Omit<McpStatusEvent, "server" | "scope">): void {
    const scope = this.#scope;
    this.#ctx.emit(
      "mcp/status",
      {
        server: this.#name,
        ...event,
        ...(scope === undefined ? {} : { scope }),
      } satisfies McpStatusEvent,
    );
  }

  /**
   * `route` middleware: a call to an `mcp__<server>__*` name no tool answers to, while the server
   * is not connected (starting, or down since before it listed that tool), says so and why,
   * instead of `unknown tool`.
   */
  route(): ToolMiddleware {
    const prefix = mcpToolName(this.#name, "");
    return (call, next) => {
      if (
        call.definition !== undefined || this.#client !== undefined ||
        !call.name.startsWith(prefix) ||
        (this.#scope !== undefined && call.agent?.sessionId !== this.#scope)
      ) return next();
      return errorOutcome(this.#notConnected(call.name), { code: "MCP_SERVER_NOT_CONNECTED" });
    };
  }

  #notConnected(tool: string): string {
    const name = JSON.stringify(this.#name);
    const why = this.#downReason === ""
      ? "its first connection attempt has not finished"
      : this.#downReason;
    const next = !this.#reconnect.enabled
      ? "reconnecting is off"
      : this.#nextTryAt === undefined
      ? `attempt ${this.#attempt + 1} is connecting now`
      : `next try in ${Math.max(0, (this.#nextTryAt - Date.now()) / 1000).toFixed(1)} s`;
    return `MCP server ${name} is not connected, so its tool ${
      JSON.stringify(tool)
    } is not known: ${why} (${next}); its tools register when it answers`;
  }

  /** Why a call to a known tool cannot run now. */
  #unavailable(): HarnessError {
    const name = JSON.stringify(this.#name);
    if (!this.#reconnect.enabled) {
      return new HarnessError(
        "MCP_SERVER_EXITED",
        `MCP server ${name} ${this.#downReason}; reconnecting is off, so its tools are unavailable`,
      );
    }
    const wait = this.#nextTryAt === undefined
      ? "connecting now"
      : `next try in ${Math.max(0, (this.#nextTryAt - Date.now()) / 1000).toFixed(1)} s`;
    return new HarnessError(
      "MCP_SERVER_RESTARTING",
      `MCP server ${name} is restarting (attempt ${this.#attempt}, ${wait}): ${this.#downReason}`,
    );
  }

  #scheduleReconnect(reason: string): void {
    if (this.#stop.signal.aborted) return;
    this.#downReason = reason;
    const { enabled, maxDelayMs, initialDelayMs, factor } = this.#reconnect;
    if (!enabled) {
      this.#emitStatus({ state: "disconnected", reason });
      return;
    }
    const delay = Math.min(maxDelayMs, initialDelayMs * factor ** this.#attempt);
    this.#attempt++;
    this.#nextTryAt = Date.now() + delay;
    this.#emitStatus({ state: "disconnected", reason, retryInMs: delay, attempt: this.#attempt });
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#nextTryAt = undefined;
      this.#connecting = this.#connect();
    }, delay);
  }

  #onExit(dead: McpClient, reason: string): void {
    if (this.#client !== dead) return;
    this.#client = undefined;
    this.#downReason = reason;
    // Known tools stay visible and say why they cannot run, instead of vanishing.
    this.#register(
      (info) => placeholderDefinition(this.#name, info, () => this.#unavailable()),
      this.#known,
    );
    if (Date.now() - this.#connectedAt >= this.#reconnect.maxDelayMs) this.#attempt = 0;
    this.#ctx.logger.warn(`MCP server "${this.#name}" ${reason}`);
    this.#scheduleReconnect(reason);
  }

  async #connect(): Promise<void> {
    const name = this.#name;
    let self: McpClient | undefined;
    try {
      self = await McpClient.connect(name, this.#server, {
        signal: this.#stop.signal,
        onToolsChanged: () => self !== undefined && void this.#refresh(self),
        onClose: (reason) => self !== undefined && this.#onExit(self, reason),
        onStderr: (text) =>
          this.#ctx.logger.debug(`MCP server "${name}" stderr: ${text.trimEnd()}`),
      });
    } catch (error) {
      if (this.#stop.signal.aborted) return;
      this.#ctx.logger.warn(errorMessage(error));
      this.#scheduleReconnect(
        errorMessage(error).replace(/^Cannot connect to MCP server "[^"]*": /, ""),
      );
      return;
    }
    if (this.#stop.signal.aborted) return void await self.close();
    this.#client = self;
    this.#connectedAt = Date.now();
    if (self.closeReason !== undefined) return this.#onExit(self, self.closeReason);
    await this.#refresh(self);
  }
}

/**
 * Builds the raw JSON-Schema definition of one server tool: no harness argument validation,
 * the server's description and input schema, concurrency-safe when the server marks it read-only.
 */
function mcpToolDefinition(ctx: Context, client: McpClient, info: McpToolInfo): AnyToolDefinition {
  const server = client.name;
  const execute = async (args: unknown, exec: ToolExecution): Promise<ExecuteReturn> => {
    const onProgress = (progress: McpProgress): void => {
      const { total, message } = progress;
      exec.output.write(
        `progress ${progress.progress}${total === undefined ? "" : `/${total}`}${
          message === undefined ? "" : `: ${message}`
        }\n`,
      );
      ctx.emit(
        "mcp/progress",
        {
          server,
          tool: info.name,
          callId: exec.callId,
          ...progress,
        } satisfies McpProgressEvent,
      );
    };
    const result = await client.callTool(info.name, args, { signal: exec.signal, onProgress });
    const content = mcpResultContent(result);
    if (result.isError === true) {
      throw new HarnessError(
        "MCP_TOOL_ERROR",
        contentText(content) ||
          `MCP tool "${info.name}" on server "${server}" failed without a message`,
      );
    }
    const meta: JsonValue = { mcp: { server, tool: info.name } };
    return { content, meta };
  };
  return {
    name: mcpToolName(server, info.name),
    description: info.description,
    parameters: info.inputSchema,
    execute,
    ...(info.readOnly ? { isConcurrencySafe: () => true } : {}),
  };
}

/** A known tool of a server that is down: same name and schema, answers why it cannot run. */
function placeholderDefinition(
  server: string,
  info: McpToolInfo,
  unavailable: () => Error,
): AnyToolDefinition {
  return {
    name: mcpToolName(server, info.name),
    description: info.description,
    parameters: info.inputSchema,
    execute: () => {
      throw unavailable();
    },
    ...(info.readOnly ? { isConcurrencySafe: () => true } : {}),
  };
}

function pidOf(client: McpClient): { pid?: number } {
  return client.pid === undefined ? {} : { pid: client.pid };
}
