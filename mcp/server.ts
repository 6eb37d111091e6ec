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
import type { ToolRegistry } from "../registry/types.ts";
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

const STDERR_TAIL = 2000;

/**
 * Runs one MCP server for the lifetime of the fiber. `apply` resolves after the first connection
 * attempt (so `await fiber.ready` sees the tools registered); a failed start is logged, reported
 * as `"mcp/status"` `disconnected` and retried with backoff. Emits `"mcp/status"` and
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
  const { name, reconnect = {}, scope } = config;
  const server = checkMcpServerConfig(name, config.server);
  const { initialDelayMs = 500, maxDelayMs = 30_000, factor = 2, enabled = true } = reconnect;
  const tools = ctx.get<ToolRegistry>("tools");
  if (tools === undefined) {
    throw new Error(`Cannot start MCP server "${name}": ctx.tools is missing`);
  }
  const logger = ctx.logger;
  const stop = new AbortController();
  let client: McpClient | undefined;
  let connecting: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  let connectedAt = 0;
  let registered: (() => void)[] = [];
  let refreshing: Promise<void> = Promise.resolve();
  let stderrTail = "";

  const unregisterAll = (): void => {
    const list = registered;
    registered = [];
    for (const dispose of list) dispose();
  };

  const register = (current: McpClient, list: readonly McpToolInfo[]): string[] => {
    unregisterAll();
    const names: string[] = [];
    for (const info of list) {
      const definition = mcpToolDefinition(ctx, current, info);
      if (names.includes(definition.name)) {
        logger.warn(`MCP server "${name}": tool "${info.name}" skipped, its name collides`);
        continue;
      }
      try {
        registered.push(tools.register(definition, scope === undefined ? undefined : { scope }));
        names.push(definition.name);
      } catch (error) {
        logger.warn(`MCP server "${name}": tool "${info.name}" skipped: ${errorMessage(error)}`);
      }
    }
    return names;
  };

  // Serialized so that overlapping list_changed notifications apply in order.
  const refresh = (current: McpClient): Promise<void> => {
    refreshing = refreshing.then(async () => {
      if (client !== current) return;
      const list = await current.listTools();
      if (client !== current || stop.signal.aborted) return;
      const names = register(current, list);
      emitStatus({ state: "connected", tools: names, ...pidOf(current) });
    }).catch((error) => {
      if (client === current) logger.warn(`MCP server "${name}": listing tools failed`, error);
    });
    return refreshing;
  };

  const emitStatus = (event: Omit<McpStatusEvent, "server">): void => {
    ctx.emit("mcp/status", { server: name, ...event } satisfies McpStatusEvent);
  };

  const scheduleReconnect = (reason: string): void => {
    if (stop.signal.aborted) return;
    if (!enabled) {
      emitStatus({ state: "disconnected", reason });
      return;
    }
    const delay = Math.min(maxDelayMs, initialDelayMs * factor ** attempt);
    attempt++;
    emitStatus({ state: "disconnected", reason, retryInMs: delay });
    timer = setTimeout(() => {
      timer = undefined;
      connecting = connect();
    }, delay);
  };

  const onExit = (dead: McpClient, reason: string): void => {
    if (client !== dead) return;
    client = undefined;
    unregisterAll();
    if (Date.now() - connectedAt >= maxDelayMs) attempt = 0;
    logger.warn(
      `MCP server "${name}" ${reason}`,
      stderrTail === "" ? undefined : { stderr: stderrTail },
    );
    scheduleReconnect(reason);
  };

  const connect = async (): Promise<void> => {
    let self: McpClient | undefined;
    try {
      self = await McpClient.connect(name, server, {
        signal: stop.signal,
        onToolsChanged: () => self !== undefined && void refresh(self),
        onClose: (reason) => self !== undefined && onExit(self, reason),
        onStderr: (text) => {
          stderrTail = (stderrTail + text).slice(-STDERR_TAIL);
          logger.debug(`MCP server "${name}" stderr: ${text.trimEnd()}`);
        },
      });
    } catch (error) {
      if (stop.signal.aborted) return;
      logger.warn(errorMessage(error), stderrTail === "" ? undefined : { stderr: stderrTail });
      scheduleReconnect(errorMessage(error));
      return;
    }
    if (stop.signal.aborted) return void await self.close();
    client = self;
    connectedAt = Date.now();
    if (self.closeReason !== undefined) return onExit(self, self.closeReason);
    await refresh(self);
  };

  ctx.effect(() => async () => {
    stop.abort();
    clearTimeout(timer);
    unregisterAll();
    await connecting;
    const last = client;
    client = undefined;
    await last?.close();
  });
  connecting = connect();
  await connecting;
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

function pidOf(client: McpClient): { pid?: number } {
  return client.pid === undefined ? {} : { pid: client.pid };
}
