/**
 * Private: the state of one ACP connection: its open sessions, the client, the terminal
 * capability, the last notification per session, and opening and closing a session (its view,
 * permission prompts and editor-provided MCP servers).
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import type { AgentContext as ClientCaller, McpServer } from "@agentclientprotocol/sdk";
import type { Agent } from "../agent/agent.ts";
import type { ToolsContext } from "../registry/tools_plugin.ts";
import { AcpSession } from "./acp_session.ts";
import { type PermissionResponseWire, SessionPermissions } from "./session_permissions.ts";
import type { SessionUpdateWire } from "./session_update_wire.ts";
import { McpNotices } from "./_mcp_notices.ts";
import { TurnNotices } from "./_turn_notices.ts";
import type { AcpServerOptions } from "./_server_options.ts";
import { SESSION_ENVIRONMENTS, type SessionEnvironments } from "./_session_environments.ts";

/** One open session of the connection. */
export interface LiveSession {
  readonly agent: Agent;
  readonly view: AcpSession;
  readonly permissions: SessionPermissions;
  turn: AbortController | undefined;
  replaying: boolean;
  noticed: boolean;
  disposeMcp: (() => Promise<void>) | undefined;
  detachNotices?: () => void;
}

/** The sessions, client and capability of one connection. */
export class ServerState {
  readonly ctx: ToolsContext;
  readonly options: AcpServerOptions;
  readonly sessions: Map<string, LiveSession> = new Map();
  readonly mcpNotices: McpNotices;
  /** Notices and plugin-reload prompts, delivered inside turns. */
  readonly turnNotices: TurnNotices;
  /** The last notification sent per session: a turn answers only after its updates are out. */
  readonly lastSent: Map<string, Promise<void>> = new Map();
  terminalOutput = false;
  client: ClientCaller | undefined;

  constructor(ctx: ToolsContext, options: AcpServerOptions) {
    this.ctx = ctx;
    this.options = options;
    this.mcpNotices = new McpNotices(ctx);
    this.turnNotices = new TurnNotices(this);
  }

  /** Sends `session/update` notifications for one session, in order. */
  sender(sessionId: string): (update: SessionUpdateWire) => void {
    return (update) => {
      const sent = this.client?.notify("session/update", { sessionId, update }).catch((error) => {
        this.ctx.logger.warn("Cannot send session/update", { error: errorMessage(error) });
      });
      if (sent) this.lastSent.set(sessionId, sent);
    };
  }

  /** Says a `[dsh]` notice in a session as agent text. */
  notice(sessionId: string, text: string): void {
    this.sender(sessionId)({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: `\n[dsh] ${text}\n` },
    });
  }

  /** Opens a session for `agent` (closing one open under its id) with its MCP servers. */
  async open(agent: Agent, servers: readonly McpServer[]): Promise<LiveSession> {
    const view = new AcpSession({
      cwd: agent.cwd,
      terminalOutput: this.terminalOutput,
      lookup: (name) => this.ctx.tools.get(name, { scope: agent.sessionId }),
      send: this.sender(agent.sessionId),
      flushMs: this.options.flushMs ?? 50,
      logger: this.ctx.logger,
    });
    const live: LiveSession = {
      agent,
      view,
      permissions: this.#permissions(agent.sessionId, view),
      turn: undefined,
      replaying: false,
      noticed: false,
      disposeMcp: undefined,
    };
    await this.#startMcp(live, servers);
    const previous = this.sessions.get(agent.sessionId);
    if (previous) await this.close(previous);
    this.sessions.set(agent.sessionId, live);
    return live;
  }

  /**
   * Aborts a session's turn and disposes its view, agent and MCP servers. `ended` (the editor
   * closed the connection) also applies `onSessionEnd` to a remote executor's environment; a
   * reload of the session does not (it reattaches).
   */
  async close(live: LiveSession, ended = false): Promise<void> {
    // Started at once, so the agent's shutdown (which detaches every sandbox) waits for it.
    const ending = ended ? this.#endEnvironment(live.agent.sessionId) : undefined;
    live.turn?.abort();
    live.view.dispose();
    await live.agent.dispose();
    live.detachNotices?.();
    this.turnNotices.forget(live.agent.sessionId);
    await live.disposeMcp?.();
    await ending;
    if (this.sessions.get(live.agent.sessionId) === live) {
      this.sessions.delete(live.agent.sessionId);
      this.lastSent.delete(live.agent.sessionId);
    }
  }

  /** Applies `onSessionEnd` to a remote executor's environment of the session (if any). */
  async #endEnvironment(sessionId: string): Promise<void> {
    const environments = this.ctx.get<SessionEnvironments>(SESSION_ENVIRONMENTS);
    await environments?.end(sessionId).catch((error) => {
      this.ctx.logger.warn("Cannot end the session's remote environment", {
        sessionId,
        error: errorMessage(error),
      });
    });
  }

  /** Permission prompts of one session: a card already shown waits as `pending`, then runs. */
  #permissions(sessionId: string, view: AcpSession): SessionPermissions {
    return new SessionPermissions(sessionId, (params, signal) => {
      const client = this.client;
      if (!client) {
        return Promise.reject(new Error("Cannot ask for permission: no client connected"));
      }
      const id = params.toolCall.toolCallId;
      // The card the user sees waits: the call's own, else (a Code Mode sub-call,
      // `<root>:code:<n>`, has none) the run_code card whose program is waiting.
      const own = view.presenter.pendingCard(id) !== undefined;
      const root = id.includes(":code:") ? id.slice(0, id.indexOf(":code:")) : undefined;
      const shown = own
        ? id
        : root !== undefined && view.presenter.pendingCard(root)
        ? root
        : undefined;
      if (shown !== undefined) view.status(shown, "pending");
      const answer: Promise<PermissionResponseWire> = client.request(
        "session/request_permission",
        params,
        signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : {},
      );
      if (shown !== undefined) {
        answer.then(({ outcome }) => {
          const allowed = outcome.outcome === "selected" && outcome.optionId.startsWith("allow");
          // A program goes on after any answer; a call runs only when allowed.
          if ((allowed || shown !== id) && view.presenter.pendingCard(shown)) {
            view.status(shown, "in_progress");
          }
        }, () => {});
      }
      return answer;
    });
  }

  /** Starts the editor-provided MCP servers the profile may run; says why others are refused. */
  async #startMcp(live: LiveSession, servers: readonly McpServer[]): Promise<void> {
    const { sessionId, cwd } = live.agent;
    const refused: string[] = [];
    const allowed = servers.filter((server) => {
      const text = refusal(server);
      if (text === undefined) return true;
      this.ctx.logger.warn(text);
      refused.push(text);
      return false;
    });
    // Start-up failures, stops and returns of MCP servers reach the user as messages.
    live.detachNotices = this.mcpNotices.attach(sessionId, this.sender(sessionId), refused);
    if (allowed.length === 0) return;
    // Loaded on demand: the MCP SDK is large and most sessions bring no servers.
    const { startAcpMcpServers } = await import("../mcp/mod.ts");
    const { envPolicy } = this.options;
    const fiber = startAcpMcpServers(this.ctx, allowed, {
      cwd,
      scope: sessionId,
      ...(envPolicy === undefined ? {} : { envPolicy }),
    });
    live.disposeMcp = () => fiber.dispose();
    // Not awaited: the session opens now and each server's tools register when it answers
    // (connectTimeoutMs bounds a server that never does); a prompt waits for first attempts.
    this.mcpNotices.track(sessionId, fiber.ready);
  }
}

/**
 * Why an editor-provided stdio server cannot run (it would only fail later with a permission
 * error), or `undefined` when it can.
 */
function refusal(server: McpServer): string | undefined {
  if (!("command" in server) || typeof server.command !== "string") return undefined;
  const state = Deno.permissions.querySync({ name: "run", command: server.command }).state;
  if (state === "granted") return undefined;
  return `Cannot start MCP server ${
    JSON.stringify(server.name)
  } from the editor: the agent may not run ${
    JSON.stringify(server.command)
  }: add it to "allowRun" in dsh.jsonc`;
}
