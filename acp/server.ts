/**
 * The ACP server: runs dsh agents per session and shows their tools as cards. Connect it with
 * `server.connect(Deno.stdout.writable, Deno.stdin.readable)` (NDJSON, one JSON-RPC frame a line).
 *
 * @module
 */
import {
  agent as agentApp,
  type AgentContext as ClientCaller,
  type ContentBlock as AcpContentBlock,
  type McpServer,
  ndJsonStream,
  RequestError,
  type StopReason as AcpStopReason,
} from "@agentclientprotocol/sdk";
import { isAbsolute } from "node:path";
import type { Agent, ModelAdapter } from "../agent/mod.ts";
import { createAgent } from "../agent/mod.ts";
import type { ContentBlock, ToolExecution } from "../tools/mod.ts";
import type { ApprovalOutcome, ApprovalService, ToolMode, ToolsContext } from "../registry/mod.ts";
import { AcpSession, type BridgeEvent } from "./acp_session.ts";
import { SessionPermissions } from "./session_permissions.ts";
import {
  type AgentInfo,
  hasTerminalOutput,
  type InitializeRequestWire,
  initializeResponse,
} from "./initialize.ts";
import type { SessionUpdateWire } from "./session_update_wire.ts";

/** Options of {@linkcode createAcpServer}. */
export interface AcpServerOptions {
  /** Makes the model adapter of a new or loaded session. */
  readonly createAdapter: () => ModelAdapter;
  /** The model id. */
  readonly model: string;
  /** Where session logs live (must exist). */
  readonly sessionsDir: string;
  /** How tools are presented to the model. @default {"native"} */
  readonly toolMode?: ToolMode;
  /** Coalescing window for deltas and terminal output, in ms. @default {50} */
  readonly flushMs?: number;
  /** The base system prompt. @default {the agent's default} */
  readonly systemPrompt?: string;
  /** Resolves once the tools are loaded; session requests wait for it. @default {Promise.resolve()} */
  readonly ready?: Promise<void>;
  /** `agentInfo` of the initialize response. @default {DSH_AGENT_INFO} */
  readonly agentInfo?: AgentInfo;
  /**
   * An `initialize` request the caller already answered (with `initializeResponse()`); the app
   * then registers no initialize handler. @default {undefined}
   */
  readonly initialized?: InitializeRequestWire;
}

/** A running ACP connection of {@linkcode AcpServer}. */
export interface AcpServerConnection {
  /** Resolves once the connection is closed (the input ended or `close()` was called). */
  readonly closed: Promise<void>;
  /**
   * Closes the connection (its sessions are then disposed).
   *
   * @returns The `closed` promise.
   */
  close(): Promise<void>;
}

/** The dsh ACP agent, ready to serve one connection. */
export interface AcpServer {
  /**
   * Serves the protocol over a byte stream pair (NDJSON, one JSON-RPC frame a line).
   *
   * @param output Where frames to the client are written (the agent's stdout).
   * @param input Where frames from the client are read (the agent's stdin).
   * @returns The connection.
   */
  connect(
    output: WritableStream<Uint8Array>,
    input: ReadableStream<Uint8Array>,
  ): AcpServerConnection;
}

interface LiveSession {
  readonly agent: Agent;
  readonly view: AcpSession;
  readonly permissions: SessionPermissions;
  turn: AbortController | undefined;
  replaying: boolean;
  disposeMcp: (() => Promise<void>) | undefined;
}

const STOP_REASONS: Readonly<Record<string, AcpStopReason>> = {
  end_turn: "end_turn",
  cancelled: "cancelled",
  max_steps: "max_turn_requests",
  max_tokens: "max_tokens",
};

function promptContent(blocks: readonly AcpContentBlock[]): ContentBlock[] {
  return blocks.map((block): ContentBlock => {
    switch (block.type) {
      case "text":
        return { type: "text", text: block.text };
      case "image":
        return { type: "image", mimeType: block.mimeType, data: block.data };
      case "resource_link":
        return {
          type: "resource",
          uri: block.uri,
          ...(block.mimeType ? { mimeType: block.mimeType } : {}),
        };
      case "resource": {
        const r = block.resource;
        return {
          type: "resource",
          uri: r.uri,
          ...(r.mimeType ? { mimeType: r.mimeType } : {}),
          ...("text" in r ? { text: r.text } : {}),
        };
      }
      default:
        return { type: "text", text: `[${block.type}]` };
    }
  });
}

function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

function invalidParams(message: string): RequestError {
  return new RequestError(-32602, message);
}

/** ACP "resource not found" for a session id, with the reason in `message`. */
function sessionNotFound(sessionId: string, message: string): RequestError {
  return new RequestError(-32002, message, { sessionId });
}

/**
 * Creates the ACP agent (SDK 2.x `agent()` app inside). It listens to the context's live events
 * (`session/event`, `agent/delta`, `tool/output`) and provides `ctx.approval`, which turns an
 * `ask` decision into `session/request_permission`. One server serves one connection.
 *
 * @param ctx The root context with `ctx.tools` provided (the tools every session sees).
 * @param options Model adapter factory, model id, sessions dir, tool mode, coalescing window.
 * @returns The server; call `.connect(output, input)`.
 *
 * @example Usage
 * ```ts ignore
 * import { createAcpServer } from "./server.ts";
 * const server = createAcpServer(ctx, { createAdapter, model: "deepseek-chat", sessionsDir });
 * await server.connect(Deno.stdout.writable, Deno.stdin.readable).closed;
 * ```
 */
export function createAcpServer(ctx: ToolsContext, options: AcpServerOptions): AcpServer {
  const { toolMode = "native", flushMs = 50 } = options;
  const sessions = new Map<string, LiveSession>();
  let terminalOutput = false;
  let client: ClientCaller | undefined;
  const logger = ctx.logger;

  // The last notification sent per session: a turn answers only after its updates are out.
  const lastSent = new Map<string, Promise<void>>();
  function sender(sessionId: string) {
    return function send(update: SessionUpdateWire): void {
      const sent = client?.notify("session/update", { sessionId, update }).catch((error) => {
        logger.warn("Cannot send session/update", { error: String(error) });
      });
      if (sent) lastSent.set(sessionId, sent);
    };
  }

  async function open(
    agent: Agent,
    servers: readonly McpServer[],
  ): Promise<LiveSession> {
    const view = new AcpSession({
      cwd: agent.cwd,
      terminalOutput,
      lookup: (name) => ctx.tools.get(name, { scope: agent.sessionId }),
      send: sender(agent.sessionId),
      flushMs,
      logger,
    });
    const permissions = new SessionPermissions(
      agent.sessionId,
      (params, signal) => {
        if (!client) {
          return Promise.reject(new Error("Cannot ask for permission: no client connected"));
        }
        return client.request(
          "session/request_permission",
          params,
          signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : {},
        );
      },
    );
    const live: LiveSession = {
      agent,
      view,
      permissions,
      turn: undefined,
      replaying: false,
      disposeMcp: undefined,
    };
    // An editor-provided stdio server the profile cannot run would only fail later with a
    // permission error; say how to allow it instead.
    servers = servers.filter((server) => {
      if (!("command" in server) || typeof server.command !== "string") return true;
      const state = Deno.permissions.querySync({ name: "run", command: server.command }).state;
      if (state === "granted") return true;
      logger.warn(
        `Cannot start MCP server ${
          JSON.stringify(server.name)
        } from the editor: the agent may not run ${
          JSON.stringify(server.command)
        }: add it to "allowRun" in dsh.jsonc`,
      );
      return false;
    });
    if (servers.length > 0) {
      // Loaded on demand: the MCP SDK is large and most sessions bring no servers.
      const { startAcpMcpServers } = await import("../mcp/mod.ts");
      const fiber = startAcpMcpServers(ctx, servers, {
        cwd: agent.cwd,
        scope: agent.sessionId,
      });
      live.disposeMcp = () => fiber.dispose();
      // A server that cannot start is logged; the session goes on without its tools.
      await fiber.ready.catch(() => {});
    }
    const previous = sessions.get(agent.sessionId);
    if (previous) await close(previous);
    sessions.set(agent.sessionId, live);
    return live;
  }

  async function close(live: LiveSession): Promise<void> {
    live.turn?.abort();
    live.view.dispose();
    await live.agent.dispose();
    await live.disposeMcp?.();
    if (sessions.get(live.agent.sessionId) === live) {
      sessions.delete(live.agent.sessionId);
      lastSent.delete(live.agent.sessionId);
    }
  }

  const approval: ApprovalService = {
    request(exec: ToolExecution, options?: { readonly reason?: string }): Promise<ApprovalOutcome> {
      const live = exec.agent ? sessions.get(exec.agent.sessionId) : undefined;
      if (!live) return Promise.resolve("unavailable");
      const card = live.view.permissionCard(
        exec.callId,
        exec.name,
        exec.arguments,
        options?.reason,
      );
      return live.permissions.ask(exec.name, card, live.turn?.signal);
    },
  };
  ctx.provide("approval", approval);
  ctx.on("session/event", (event: BridgeEvent, agent: Agent) => {
    const live = sessions.get(agent.sessionId);
    if (live && live.agent === agent && !live.replaying) live.view.event(event, false);
  });
  ctx.on(
    "agent/delta",
    (delta: { sessionId: string; kind: "text" | "reasoning"; text: string }) => {
      sessions.get(delta.sessionId)?.view.delta(delta.kind, delta.text);
    },
  );
  ctx.on("tool/output", (out: { sessionId: string; callId: string; chunk: string }) => {
    sessions.get(out.sessionId)?.view.output(out.callId, out.chunk);
  });

  function checkCwd(
    cwd: string,
    additionalDirectories: readonly string[] | undefined,
    method: string,
  ): void {
    if (typeof cwd !== "string" || !isAbsolute(cwd)) {
      throw invalidParams(
        `Cannot ${method}: "cwd" must be an absolute path: received ${JSON.stringify(cwd)}`,
      );
    }
    const status = Deno.permissions.querySync({ name: "read", path: cwd });
    if (status.state !== "granted") {
      throw invalidParams(
        `Cannot ${method}: the agent may not read ${
          JSON.stringify(cwd)
        }: add it to "roots" in dsh.jsonc or start the agent from that folder`,
      );
    }
    if (!isDirectory(cwd)) {
      throw invalidParams(
        `Cannot ${method}: "cwd" must be an existing directory: received ${JSON.stringify(cwd)}`,
      );
    }
    // Not advertised (`sessionCapabilities.additionalDirectories`): the workspace is `cwd` only.
    if (additionalDirectories !== undefined && additionalDirectories.length > 0) {
      throw invalidParams(
        `Cannot ${method}: "additionalDirectories" is not supported: received ${
          JSON.stringify(additionalDirectories).slice(0, 200)
        }; expected none (the workspace is "cwd")`,
      );
    }
  }

  let app = agentApp({ name: "dsh" })
    .onConnect((connection) => {
      client = connection.client;
      connection.closed.finally(async () => {
        for (const live of [...sessions.values()]) await close(live).catch(() => {});
        client = undefined;
      });
    });
  if (options.initialized !== undefined) terminalOutput = hasTerminalOutput(options.initialized);
  else {
    app = app.onRequest("initialize", ({ params }) => {
      terminalOutput = hasTerminalOutput(params);
      return initializeResponse(options.agentInfo);
    });
  }
  app = app
    .onRequest("session/new", async ({ params }) => {
      checkCwd(params.cwd, params.additionalDirectories ?? undefined, "create a session");
      await options.ready;
      const agent = await createAgent(ctx, {
        adapter: options.createAdapter(),
        model: options.model,
        cwd: params.cwd,
        logDir: options.sessionsDir,
        toolMode,
        ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
      });
      await open(agent, params.mcpServers ?? []);
      return { sessionId: agent.sessionId };
    })
    .onRequest("session/load", async ({ params }) => {
      checkCwd(params.cwd, params.additionalDirectories ?? undefined, "load a session");
      await options.ready;
      const { sessionId } = params;
      const logPath = `${options.sessionsDir}/${sessionId}.jsonl`;
      const notFound = () =>
        sessionNotFound(
          sessionId,
          `Cannot load session ${JSON.stringify(sessionId)}: no session log ${
            JSON.stringify(logPath)
          }`,
        );
      if (!/^[A-Za-z0-9_-]+$/.test(sessionId)) throw notFound();
      const existing = sessions.get(sessionId);
      if (existing) await close(existing);
      let agent: Agent;
      try {
        agent = await createAgent(ctx, {
          adapter: options.createAdapter(),
          model: options.model,
          logPath,
          resume: true,
          toolMode,
          ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
        });
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) throw notFound();
        throw error;
      }
      const live = await open(agent, params.mcpServers ?? []);
      live.replaying = true;
      try {
        for (const event of agent.events) live.view.event(event as BridgeEvent, true);
        live.view.flush();
      } finally {
        live.replaying = false;
      }
      await lastSent.get(sessionId);
      return {};
    })
    .onRequest("session/prompt", async ({ params }) => {
      const live = sessions.get(params.sessionId);
      if (!live) {
        throw sessionNotFound(
          params.sessionId,
          `Cannot prompt session ${
            JSON.stringify(params.sessionId)
          }: it is not open in this agent (create it with session/new or open it with session/load)`,
        );
      }
      if (live.turn) {
        throw new RequestError(
          -32600,
          `Cannot prompt session "${params.sessionId}": a turn is already running`,
        );
      }
      const turn = new AbortController();
      live.turn = turn;
      try {
        const result = await live.agent.prompt(promptContent(params.prompt), {
          signal: turn.signal,
        });
        live.view.flush();
        await lastSent.get(params.sessionId);
        if (result.stopReason === "error") {
          throw new RequestError(-32603, result.error?.message ?? "the turn failed", result.error);
        }
        return { stopReason: STOP_REASONS[result.stopReason] ?? "end_turn" };
      } finally {
        live.turn = undefined;
      }
    })
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort(
        new DOMException("the client cancelled the turn", "AbortError"),
      );
    });
  return {
    connect(output, input): AcpServerConnection {
      const connection = app.connect(ndJsonStream(output, input));
      return {
        closed: connection.closed,
        close(): Promise<void> {
          connection.close();
          return connection.closed;
        },
      };
    },
  };
}
