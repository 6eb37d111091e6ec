/**
 * What an agent is made from and answers with: its context, its options and a turn's result (apart
 * from the `Agent` class, so the loop's helpers read them without importing it).
 *
 * @module
 */
import type { Logger } from "../core/logger.ts";
import type { ToolRegistry } from "../registry/types.ts";
import type { AgentEventMap, AgentEventType } from "./agent_events.ts";
import type { ModelAdapter } from "./model.ts";
import type { StopReason } from "./session_event.ts";

/**
 * What the agent needs from its plugin context. The core `Context` (with `ctx.tools` provided)
 * satisfies it.
 */
export interface AgentContext {
  /** The tool registry. */
  readonly tools: ToolRegistry;
  /** Observe-only events: `session/event`, `agent/delta`, `tool/output`, `agent/disposed`. */
  emit<K extends AgentEventType>(event: K, ...args: AgentEventMap[K]): void;
  /** Value hooks: `agent/system-prompt` (value: the prompt, extra arg: the agent). */
  waterfall<T>(event: string, value: T, ...args: unknown[]): Promise<T>;
  /** Warnings (a torn log line on resume). */
  readonly logger?: Logger;
}

/** Options for `createAgent`. */
export interface CreateAgentOptions {
  /** The model provider. */
  readonly adapter: ModelAdapter;
  /** The model id. */
  readonly model: string;
  /** Session id; on resume, read from the log. @default {crypto.randomUUID()} */
  readonly sessionId?: string;
  /**
   * Session working directory, absolute; required unless resuming. On resume it wins over the
   * log header's `cwd` (the caller's workspace decides, never the log). @default {the header's, on resume}
   */
  readonly cwd?: string;
  /**
   * Signs the session log and, on resume, refuses a log changed by anyone else or without
   * signatures (32 bytes; `loadSessionKey()` reads the user's). @default {unsigned}
   */
  readonly logKey?: Uint8Array;
  /** The log file. Either this or `logDir` is required. */
  readonly logPath?: string;
  /** A directory for `<sessionId>.jsonl`; a new session creates it (and its parents) if missing. */
  readonly logDir?: string;
  /**
   * Keep the session log in memory instead of a file (tests, throwaway agents): no `logPath` or
   * `logDir` needed, and nothing to clean up. Not with `resume`. @default {false}
   */
  readonly inMemoryLog?: boolean;
  /** Continue the session stored at the log path instead of creating a new one. @default {false} */
  readonly resume?: boolean;
  /** The base system prompt (extended by `agent/system-prompt` listeners). @default {a short persona naming the cwd} */
  readonly systemPrompt?: string;
  /** Model requests per turn. @default {50} */
  readonly maxSteps?: number;
  /** Concurrency-safe calls that may overlap. @default {4} */
  readonly maxParallelToolCalls?: number;
  /**
   * The listing mode the loop passes to `ctx.tools.schemas({ mode })` and `execute({ mode })`: an
   * opaque, non-empty name that the installed listing hooks read (Code Mode defines `"native"`,
   * `"code"` and `"both"`). @default {"native"}
   */
  readonly toolMode?: string;
  /** Output token cap passed to the adapter. */
  readonly maxTokens?: number;
  /** fsync after every event rather than at turn end. @default {false} */
  readonly syncEveryEvent?: boolean;
}

/** Options for `Agent.prompt`. */
export interface PromptOptions {
  /** Cancels the turn: nothing starts after it, started calls are drained. */
  readonly signal?: AbortSignal;
}

/** How a turn ended. */
export interface PromptResult {
  /** Why the turn ended. */
  readonly stopReason: StopReason;
  /** For `error`: what failed. */
  readonly error?: { readonly message: string; readonly code?: string };
}
