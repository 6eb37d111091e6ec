/**
 * The agent loop: one agent owns one session log and runs turns of model steps and tool batches.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import type { JsonObject } from "../core/json.ts";
import type { ContentBlock } from "../tools/content.ts";
import type { AgentHandle, InjectOptions } from "../tools/definition.ts";
import type { ModelMessage } from "./model.ts";
import type { SessionLogWarning } from "./read_session_log.ts";
import type {
  ContextSource,
  SessionEvent,
  SessionEventData,
  SessionEventMap,
  SessionEventOf,
  SessionEventType,
} from "./session_event.ts";
import { SessionLog } from "./session_log.ts";
import { MessageBuilder } from "./_message_builder.ts";
import { errorData, snapshot, textContent } from "./_agent_util.ts";
import { checkCreateOptions } from "./_create_options.ts";
import { runSteps, type TurnHost } from "./_turn.ts";
import type { LiveEventData } from "./agent_events.ts";
import type {
  AgentContext,
  CreateAgentOptions,
  PromptOptions,
  PromptResult,
} from "./agent_options.ts";

/** Name of the waterfall hook that extends the system prompt (Code Mode adds its SDK there). */
export const SYSTEM_PROMPT_HOOK = "agent/system-prompt";

let agentCounter = 0;

/**
 * An agent: runs turns against its session log. Implements the tools' {@linkcode AgentHandle}.
 * Build one with {@linkcode createAgent}.
 */
export class Agent implements AgentHandle {
  /** Agent id, unique per process. */
  readonly id: string;
  /** The session id. */
  readonly sessionId: string;
  /** The session working directory (on resume the caller's, never the log's). */
  readonly cwd: string;
  /** The folder the log's header names (where the session was created); it grants nothing. */
  readonly createdIn: string;
  /** Problems found when the log was loaded (resume). */
  readonly warnings: readonly SessionLogWarning[];
  #ctx: AgentContext;
  #log: SessionLog;
  #options: CreateAgentOptions;
  #events: SessionEvent[];
  #builder = new MessageBuilder();
  #turn: number;
  #running: Promise<PromptResult> | undefined;
  #queuedInjects: { content: ContentBlock[]; source: ContextSource }[] = [];
  #disposed = false;
  #disposal = new AbortController();

  /** @internal Use {@linkcode createAgent}. */
  constructor(
    ctx: AgentContext,
    log: SessionLog,
    options: CreateAgentOptions,
    loaded: { events: SessionEvent[]; warnings: SessionLogWarning[] },
  ) {
    this.id = `agent-${++agentCounter}`;
    this.#ctx = ctx;
    this.#log = log;
    this.#options = options;
    this.sessionId = log.header.id;
    this.cwd = options.cwd ?? log.header.cwd;
    this.createdIn = log.header.cwd;
    this.warnings = loaded.warnings;
    this.#events = loaded.events;
    let turn = 0;
    let open = false;
    for (const event of loaded.events) {
      this.#builder.push(event);
      if (event.type === "turn/start") {
        turn = Math.max(turn, Number(event.turn) || 0);
        open = true;
      } else if (event.type === "turn/end") open = false;
    }
    this.#turn = turn;
    if (open) {
      this.#append("turn/end", {
        turn,
        stopReason: "error",
        error: { message: "the turn was interrupted before it ended (closed on resume)" },
      });
      log.sync();
    }
  }

  /** True once disposed. */
  get disposed(): boolean {
    return this.#disposed;
  }

  /** Every event of the session, loaded and appended, in log order. */
  get events(): readonly SessionEvent[] {
    return this.#events;
  }

  /** The session log path. */
  get logPath(): string {
    return this.#log.path;
  }

  /** The listing mode of its tools (`toolMode`; Code Mode reads it to add its SDK section). */
  get toolMode(): string {
    return this.#options.toolMode ?? "native";
  }

  /** True while a turn runs. */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /** The conversation the next request would carry. */
  messages(): ModelMessage[] {
    return this.#builder.messages();
  }

  /**
   * Runs one turn: steps until the model stops calling tools, the step limit, or the abort.
   * Adapter and tool failures end the turn with `stopReason: "error"`; the promise rejects only
   * when the log cannot be written.
   *
   * @param content The user's message.
   * @param options Cancellation.
   * @returns How the turn ended.
   * @throws {Error} When the agent is disposed or a turn is already running.
   */
  prompt(
    content: string | readonly ContentBlock[],
    options: PromptOptions = {},
  ): Promise<PromptResult> {
    if (this.#disposed) {
      return Promise.reject(new Error(`Cannot prompt agent "${this.id}": the agent was disposed`));
    }
    if (this.#running) {
      return Promise.reject(
        new Error(`Cannot prompt agent "${this.id}": a turn is already running`),
      );
    }
    let blocks: ContentBlock[];
    try {
      blocks = snapshot(textContent(content), `prompt agent "${this.id}"`);
    } catch (error) {
      return Promise.reject(error);
    }
    const signal = options.signal
      ? AbortSignal.any([options.signal, this.#disposal.signal])
      : this.#disposal.signal;
    const running = this.#runTurn(blocks, signal).finally(() => {
      this.#running = undefined;
    });
    this.#running = running;
    return running;
  }

  /**
   * Appends durable context that the next model request sees. Not a wake-up. While a turn runs
   * it is queued and logged before the next request (so after the current batch's results).
   *
   * @param content Text or content blocks (snapshotted now).
   * @param options The source.
   * @throws {Error} When the agent was disposed.
   * @throws {TypeError} When the content is not JSON.
   */
  inject(content: string | readonly ContentBlock[], options: InjectOptions = {}): void {
    if (this.#disposed) {
      throw new Error(`Cannot inject into agent "${this.id}": the agent was disposed`);
    }
    const blocks = snapshot(textContent(content), `inject into agent "${this.id}"`);
    const source: ContextSource = options.source ? { ...options.source } : { kind: "plugin" };
    if (this.#running) this.#queuedInjects.push({ content: blocks, source });
    else {this.#append("context/inject", {
        turn: this.#turn,
        content: blocks,
        source: { ...source },
      });}
  }

  /**
   * Appends a tool-owned event (for example `fs/observed` or `tool/code-dispatch`).
   *
   * @param type The event type.
   * @param data JSON data without `seq`, `time` or `type`.
   * @throws {Error} When the agent was disposed.
   * @throws {TypeError} When the data is not JSON or uses a reserved key.
   */
  appendEvent(type: string, data: JsonObject): void {
    if (this.#disposed) {
      throw new Error(`Cannot append "${type}" to agent "${this.id}": the agent was disposed`);
    }
    this.#append(type, data);
  }

  /**
   * Aborts a running turn, waits for it to end, syncs and closes the log. Idempotent.
   */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#disposal.abort(new DOMException(`agent "${this.id}" was disposed`, "AbortError"));
    await this.#running?.catch(() => {});
    await this.#log.syncSoon();
    this.#log.close();
    this.#ctx.emit("agent/disposed", this);
  }

  /** Disposes the agent. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  #append<K extends SessionEventType>(
    type: K,
    data: SessionEventMap[K],
    live?: LiveEventData,
  ): SessionEventOf<K>;
  #append(type: string, data: SessionEventData, live?: LiveEventData): SessionEvent;
  #append(type: string, data: SessionEventData, live?: LiveEventData): SessionEvent {
    const event = this.#log.append(type, data);
    this.#events.push(event);
    this.#builder.push(event);
    if (live === undefined) this.#ctx.emit("session/event", event, this);
    else this.#ctx.emit("session/event", event, this, live);
    return event;
  }

  #flushInjects(): void {
    const queued = this.#queuedInjects;
    if (queued.length === 0) return;
    this.#queuedInjects = [];
    for (const { content, source } of queued) {
      this.#append("context/inject", { turn: this.#turn, content, source: { ...source } });
    }
  }

  #turnHost(): TurnHost {
    return {
      agent: this,
      ctx: this.#ctx,
      options: this.#options,
      systemPrompt: () => this.#systemPrompt(),
      messages: () => this.#builder.messages(),
      append: (type, data, live) => void this.#append(type, data, live),
      flushInjects: () => this.#flushInjects(),
    };
  }

  async #runTurn(content: ContentBlock[], signal: AbortSignal): Promise<PromptResult> {
    const turn = ++this.#turn;
    this.#append("turn/start", { turn });
    this.#append("user/message", { turn, content });
    let result: PromptResult;
    try {
      result = await runSteps(this.#turnHost(), turn, signal);
    } catch (error) {
      if (signal.aborted) result = { stopReason: "cancelled" };
      else result = { stopReason: "error", error: { message: errorMessage(error) } };
    }
    this.#flushInjects();
    this.#append("turn/end", { turn, stopReason: result.stopReason, ...errorData(result.error) });
    // Written now; the fsync runs while the answer goes out (dispose waits for it).
    void this.#log.syncSoon();
    return result;
  }

  /** The base system prompt, extended by the `agent/system-prompt` listeners. */
  #systemPrompt(): Promise<string> {
    const base = this.#options.systemPrompt ??
      `You are dsh, a coding agent. The working directory is ${this.cwd}.`;
    return this.#ctx.waterfall(SYSTEM_PROMPT_HOOK, base, this);
  }
}

/**
 * Creates an agent bound to a new session log, or resumes one (`resume: true`).
 *
 * @param ctx The plugin context (with `ctx.tools`).
 * @param options Adapter, model, log location and limits.
 * @returns The agent.
 * @throws {TypeError} When neither `logPath`, `logDir` nor `inMemoryLog` is given, `cwd` is missing or relative, or
 * a `sessionId` used as a file name in `logDir` is not a plain name.
 * @throws {RangeError} When `maxSteps` or `maxParallelToolCalls` is not a positive integer.
 * @throws {Deno.errors.AlreadyExists} When creating and the log exists.
 * @throws {Deno.errors.NotFound} When resuming and the log does not exist.
 *
 * @example Usage
 * ```ts ignore
 * import { createAgent } from "./agent.ts";
 * import { MockAdapter, textResponse } from "./mock_adapter.ts";
 * const agent = await createAgent(ctx, {
 *   adapter: new MockAdapter([textResponse("hi")]), model: "mock", cwd: "/work", logDir: "/tmp",
 * });
 * const { stopReason } = await agent.prompt("hello");
 * await agent.dispose();
 * ```
 */
export async function createAgent(ctx: AgentContext, options: CreateAgentOptions): Promise<Agent> {
  const { cwd, resume = false, syncEveryEvent = false } = options;
  const { path, sessionId } = checkCreateOptions(options);
  if (options.inMemoryLog === true) {
    const log = SessionLog.memory({ id: sessionId, cwd: cwd! });
    return new Agent(ctx, log, options, { events: [], warnings: [] });
  }
  if (resume) {
    const { log, loaded } = await SessionLog.open(path, {
      syncEveryEvent,
      ...(options.logKey !== undefined ? { key: options.logKey } : {}),
      ...(options.sessionId !== undefined ? { id: options.sessionId } : {}),
    });
    for (const warning of loaded.warnings) {
      ctx.logger?.warn(`session log "${path}" line ${warning.line}: ${warning.message}`);
    }
    return new Agent(ctx, log, options, loaded);
  }
  if (options.logPath === undefined && options.logDir !== undefined) {
    await Deno.mkdir(options.logDir, { recursive: true });
  }
  const key = options.logKey !== undefined ? { key: options.logKey } : {};
  const log = await SessionLog.create(path, { id: sessionId, cwd: cwd!, syncEveryEvent, ...key });
  return new Agent(ctx, log, options, { events: [], warnings: [] });
}
