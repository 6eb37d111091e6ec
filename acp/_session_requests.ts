/**
 * Private: the ACP session requests (`session/new`, `session/load`, `session/prompt`) against
 * a connection's {@linkcode ServerState}, and the live events and approval service that feed
 * its sessions.
 *
 * @module
 */
import {
  type ContentBlock as AcpContentBlock,
  type LoadSessionRequest,
  type NewSessionRequest,
  type PromptRequest,
  RequestError,
  type StopReason as AcpStopReason,
} from "@agentclientprotocol/sdk";
import { isAbsolute } from "node:path";
import { type Agent, createAgent } from "../agent/agent.ts";
import { onAgentEvent } from "../agent/mod.ts";
import type { ContentBlock, ToolExecution } from "../tools/mod.ts";
import type { ApprovalOutcome, ApprovalScope, ApprovalService } from "../registry/hooks.ts";
import type { LiveSession, ServerState } from "./_server_state.ts";
import { IMPORT_COMMAND } from "./_session_dir.ts";
import type { PluginChange } from "./_plugin_slot.ts";
import { adoptSessionJobs } from "./_job_adoption.ts";
import {
  EXECUTOR_OPENED,
  SESSION_ENVIRONMENTS,
  type SessionEnvironments,
} from "./_session_environments.ts";
import type { ExecutorRecord } from "../tools/executor.ts";
import type { JsonObject } from "../core/json.ts";
import { errorMessage } from "../core/error_message.ts";

const STOP_REASONS: Readonly<Record<string, AcpStopReason>> = {
  end_turn: "end_turn",
  cancelled: "cancelled",
  max_steps: "max_turn_requests",
  max_tokens: "max_tokens",
};

/** Feeds the sessions from the agents' live events and provides `ctx.approval`. */
export function listen(state: ServerState): void {
  const { ctx, sessions } = state;
  const approval: ApprovalService = {
    request(
      exec: ToolExecution,
      options?: { readonly reason?: string; readonly scope?: ApprovalScope },
    ): Promise<ApprovalOutcome> {
      const live = exec.agent ? sessions.get(exec.agent.sessionId) : undefined;
      if (!live) return Promise.resolve("unavailable");
      const card = live.view.permissionCard(
        exec.callId,
        exec.name,
        exec.arguments,
        options?.reason,
      );
      return live.permissions.ask(exec.name, card, live.turn?.signal, options?.scope);
    },
  };
  ctx.provide("approval", approval);
  // The very event the session log appended reaches the presenter.
  onAgentEvent(ctx, "session/event", (event, agent, extra) => {
    const live = sessions.get(agent.sessionId);
    if (live && live.agent === agent && !live.replaying) {
      live.view.event(event, false, extra?.validation);
    }
  });
  onAgentEvent(ctx, "agent/delta", (delta) => {
    sessions.get(delta.sessionId)?.view.delta(delta.kind, delta.text);
  });
  onAgentEvent(ctx, "tool/output", (out) => {
    sessions.get(out.sessionId)?.view.output(out.callId, out.chunk);
  });
  // A message for the user outside any tool (a plugin reload) and a plugin change to approve:
  // said inside a turn, where every client shows them (acp/_turn_notices.ts).
  ctx.on("acp/notice", (text: string) => state.turnNotices.notice(text));
  // A remote executor created or reattached a session's environment: its log records it, so a
  // later session/load reattaches the same one.
  ctx.on(EXECUTOR_OPENED, (sessionId: string, record: ExecutorRecord) => {
    const agent = sessions.get(sessionId)?.agent;
    if (agent !== undefined && !agent.disposed) {
      // JSON only (undefined members dropped).
      const json = JSON.parse(JSON.stringify(record)) as JsonObject;
      agent.appendEvent(EXECUTOR_OPENED, { sessionId, record: json });
    }
  });
  ctx.on("acp/plugin-change", (change: PluginChange) => state.turnNotices.change(change));
  ctx.emit("acp/listening");
}

/** `session/new`: creates an agent with a new log and opens it. */
export async function newSession(
  state: ServerState,
  params: NewSessionRequest,
): Promise<{ sessionId: string }> {
  const { options } = state;
  checkCwd(params.cwd, params.additionalDirectories ?? undefined, "create a session");
  await toolsReady(options.ready);
  const agent = await logErrors(() => {
    options.verifySessionsDir?.();
    return createAgent(state.ctx, {
      adapter: options.createAdapter(),
      model: options.model,
      cwd: params.cwd,
      logDir: options.sessionsDir,
      ...(options.logKey !== undefined ? { logKey: options.logKey } : {}),
      toolMode: options.toolMode ?? "native",
      ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
    });
  }, undefined);
  await state.open(agent, params.mcpServers ?? []);
  return { sessionId: agent.sessionId };
}

/**
 * `session/load`: resumes the agent of a stored log, opens it and replays its events. The
 * session runs in the client's `cwd` (never the log header's): when they differ the user is told.
 */
export async function loadSession(
  state: ServerState,
  params: LoadSessionRequest,
): Promise<Record<string, never>> {
  checkCwd(params.cwd, params.additionalDirectories ?? undefined, "load a session");
  const { sessionId } = params;
  checkSessionId(sessionId);
  await toolsReady(state.options.ready);
  const existing = state.sessions.get(sessionId);
  if (existing) await state.close(existing);
  const agent = await resumeAgent(state, sessionId, params.cwd);
  const live = await state.open(agent, params.mcpServers ?? []);
  live.replaying = true;
  try {
    for (const event of agent.events) live.view.event(event, true);
    live.view.flush();
  } finally {
    live.replaying = false;
  }
  // The remote environment the log names is reattached (or replaced, with a notice).
  const environments = state.ctx.get<SessionEnvironments>(SESSION_ENVIRONMENTS);
  const reattached = (await environments?.resume(sessionId, agent.events)) ?? [];
  for (const text of [...loadNotices(agent), ...reattached]) state.notice(sessionId, text);
  // Then its durable jobs (detached runs in that environment) are followed again.
  for (const text of await adoptSessionJobs(state.ctx, agent)) state.notice(sessionId, text);
  await state.lastSent.get(sessionId);
  return {};
}

/** Waits for the tools; a failure to load them (a remote executor without its token) is said. */
async function toolsReady(ready: Promise<void> | undefined): Promise<void> {
  try {
    await ready;
  } catch (error) {
    throw new RequestError(-32603, `Cannot load the tools: ${errorMessage(error)}`);
  }
}

/** What the user should know about a loaded log: another folder, lines not loaded. */
function loadNotices(agent: Agent): string[] {
  const notices: string[] = [];
  const created = agent.createdIn;
  if (created !== agent.cwd) {
    notices.push(
      `This session was started in ${JSON.stringify(created)}; it now works in ${
        JSON.stringify(agent.cwd)
      }, the folder the editor opened (the log's folder grants nothing).`,
    );
  }
  for (const warning of agent.warnings) {
    if (warning.message.includes("no signature")) {
      notices.push(`Session log line ${warning.line}: ${warning.message}.`);
    }
  }
  return notices;
}

/** A session id that cannot name a log file is a clear error, not "not found". */
function checkSessionId(sessionId: unknown): void {
  if (typeof sessionId !== "string" || !SESSION_ID.test(sessionId)) {
    throw invalidParams(
      `Cannot load session ${
        JSON.stringify(String(sessionId).slice(0, 80))
      }: a session id is letters, digits, "_" and "-" only (no "/", "." or other path characters)`,
    );
  }
  if (sessionId.length > MAX_SESSION_ID) {
    throw invalidParams(
      `Cannot load session ${
        JSON.stringify(sessionId.slice(0, 40) + "…")
      }: the id is ${sessionId.length} characters long; the longest is ${MAX_SESSION_ID} (it names the log file, whose name may not exceed 255 bytes)`,
    );
  }
}

const SESSION_ID = /^[A-Za-z0-9_-]+$/;
const MAX_SESSION_ID = 128;

async function resumeAgent(state: ServerState, sessionId: string, cwd: string): Promise<Agent> {
  const { options } = state;
  const logPath = `${options.sessionsDir}/${sessionId}.jsonl`;
  return await logErrors(() => {
    options.verifySessionsDir?.();
    return createAgent(state.ctx, {
      adapter: options.createAdapter(),
      model: options.model,
      logDir: options.sessionsDir,
      sessionId,
      cwd,
      resume: true,
      ...(options.logKey !== undefined ? { logKey: options.logKey } : {}),
      toolMode: options.toolMode ?? "native",
      ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
    });
  }, { sessionId, logPath });
}

/** Errors of opening a log, as clear ACP errors (never "Internal error"). */
async function logErrors<T>(
  open: () => Promise<T>,
  load: { sessionId: string; logPath: string } | undefined,
): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (load !== undefined && error instanceof Deno.errors.NotFound) {
      throw sessionNotFound(
        load.sessionId,
        `Cannot load session ${JSON.stringify(load.sessionId)}: no session log ${
          JSON.stringify(load.logPath)
        }`,
      );
    }
    const code = (error as { code?: unknown }).code;
    // Another agent appends to this log, it was changed, or its folder is a link: say so.
    if (
      (typeof code === "string" && code.startsWith("SESSION_")) ||
      (error as Error).name === "UnsafePathError"
    ) {
      const hint = code === "SESSION_LOG_UNSIGNED"
        ? ` To continue it anyway (you vouch for its content), run \`${IMPORT_COMMAND}\` in the workspace folder.`
        : "";
      throw new RequestError(-32603, (error as Error).message + hint, {
        ...(load !== undefined ? { sessionId: load.sessionId } : {}),
        ...(typeof code === "string" ? { code } : {}),
      });
    }
    throw error;
  }
}

/** `session/prompt`: runs one turn; answers once its updates are out. */
export async function promptSession(
  state: ServerState,
  params: PromptRequest,
): Promise<{ stopReason: AcpStopReason }> {
  const live = openSession(state, params.sessionId);
  const turn = new AbortController();
  live.turn = turn;
  const safetyNotice = live.noticed ? undefined : await state.options.notice?.();
  if (safetyNotice !== undefined) {
    live.noticed = true;
    state.sender(params.sessionId)({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: `${safetyNotice}\n\n` },
    });
  }
  try {
    // Waiting notices, and plugin changes to approve before the model runs.
    await state.turnNotices.beginTurn(params.sessionId, turn.signal);
    // Tools of MCP servers still making their first attempt (at most connectTimeoutMs).
    await state.mcpNotices.settled(params.sessionId, turn.signal);
    const result = await live.agent.prompt(promptContent(params.prompt), { signal: turn.signal });
    live.view.flush();
    await state.lastSent.get(params.sessionId);
    if (result.stopReason === "error") {
      throw new RequestError(-32603, result.error?.message ?? "the turn failed", result.error);
    }
    return { stopReason: STOP_REASONS[result.stopReason] ?? "end_turn" };
  } finally {
    live.turn = undefined;
  }
}

/** The open session of a prompt, without a running turn. */
function openSession(state: ServerState, sessionId: string): LiveSession {
  const live = state.sessions.get(sessionId);
  if (!live) {
    throw sessionNotFound(
      sessionId,
      `Cannot prompt session ${
        JSON.stringify(sessionId)
      }: it is not open in this agent (create it with session/new or open it with session/load)`,
    );
  }
  if (live.turn) {
    throw new RequestError(
      -32600,
      `Cannot prompt session "${sessionId}": a turn is already running`,
    );
  }
  return live;
}

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
