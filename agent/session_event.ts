/**
 * Session log line shapes: the header and the typed events (docs/contracts.md §3).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../core/json.ts";
import type { ContentBlock } from "../tools/content.ts";
import type { AssistantBlock, FinishReason, Usage } from "./model.ts";

/** The first line of every session log. */
export interface SessionHeader {
  /** Discriminant. */
  readonly type: "session";
  /** Format version (1). */
  readonly version: 1;
  /** Session id. */
  readonly id: string;
  /** ISO time the session was created. */
  readonly createdAt: string;
  /** The session working directory (absolute). */
  readonly cwd: string;
}

/** Why a turn ended. */
export type StopReason = "end_turn" | "cancelled" | "max_steps" | "max_tokens" | "error";

/** Where a `context/inject` event came from. `callId` is set for a tool result's contexts. */
export interface ContextSource {
  /** Source kind. */
  readonly kind: "plugin" | "tool" | "system" | "user";
  /** Plugin name, for `kind: "plugin"`. */
  readonly plugin?: string;
  /** The call whose result carried this context, for `kind: "tool"`. */
  readonly callId?: string;
}

/** The data of each known event type (the envelope adds `seq`, `time` and `type`). */
export interface SessionEventMap {
  /** A turn began. */
  "turn/start": { readonly turn: number };
  /** The user's prompt. */
  "user/message": { readonly turn: number; readonly content: readonly ContentBlock[] };
  /** One model answer; tool-call blocks keep the raw argument string. */
  "assistant/message": {
    readonly turn: number;
    readonly step: number;
    readonly content: readonly AssistantBlock[];
    /** The adapter's reason, or `cancelled` for a partial answer cut by an abort. */
    readonly finishReason: FinishReason | "cancelled";
    readonly usage?: Usage;
  };
  /**
   * The adapter waits before retrying a failed model request (429, 5xx, network); log-only,
   * shown to ACP clients as a thought. `message` reads like
   * `DeepSeek busy (HTTP 503), retrying in 2 s (attempt 2 of 4)`.
   */
  "model/retry": {
    readonly turn: number;
    readonly step: number;
    readonly attempt: number;
    readonly maxAttempts: number;
    readonly delayMs: number;
    readonly status?: number;
    readonly message: string;
  };
  /**
   * Appended before the call executes; `arguments` is the raw model string (the one stored
   * form). `args` is the same arguments parsed losslessly and frozen, for presenters: set at
   * append and again at load, never written to the log; absent when the text is not lossless
   * JSON (an empty text is `{}`).
   */
  "tool/call": {
    readonly turn: number;
    readonly step: number;
    readonly callId: string;
    readonly name: string;
    readonly arguments: string;
    readonly args?: JsonValue;
  };
  /** The normalized outcome of a call. */
  "tool/result": {
    readonly turn: number;
    readonly step: number;
    readonly callId: string;
    readonly content: readonly ContentBlock[];
    readonly isError: boolean;
    readonly meta?: JsonValue;
    readonly error?: { readonly message: string; readonly code?: string };
  };
  /** Durable context the next request sees (agent.inject or a result's additional context). */
  "context/inject": {
    readonly turn: number;
    readonly content: readonly ContentBlock[];
    readonly source: ContextSource;
  };
  /** A Code Mode sub-call (log-only; ignored by deriveMessages). */
  "tool/code-dispatch": {
    readonly parentCallId: string;
    readonly subCallId: string;
    readonly name: string;
    readonly arguments: JsonValue;
    readonly isError: boolean;
    readonly content: readonly ContentBlock[];
  };
  /** A turn ended. */
  "turn/end": {
    readonly turn: number;
    readonly stopReason: StopReason;
    readonly error?: { readonly message: string; readonly code?: string };
  };
}

/** The names of the known event types. */
export type SessionEventType = keyof SessionEventMap;

/** The envelope every event line carries. */
export type SessionEventEnvelope = {
  /** 1-based, strictly increasing within a log. */
  readonly seq: number;
  /** ISO time of the append. */
  readonly time: string;
  /** Event type, such as `tool/call`, or a tool-owned type such as `fs/observed`. */
  readonly type: string;
};

/** A known event with its typed data. */
export type SessionEventOf<T extends SessionEventType> =
  & SessionEventEnvelope
  & { readonly type: T }
  & SessionEventMap[T];

/**
 * Any event line: the envelope plus JSON data. Narrow known types with {@linkcode isEventType}.
 *
 * @example Usage
 * ```ts
 * import type { SessionEvent } from "./session_event.ts";
 * const event: SessionEvent = { seq: 1, time: "2026-01-01T00:00:00.000Z", type: "fs/observed", path: "/a" };
 * ```
 */
export type SessionEvent = SessionEventEnvelope & { readonly [key: string]: unknown };

/**
 * Narrows an event to a known type.
 *
 * @param event The event.
 * @param type The expected type.
 * @returns Whether `event.type === type`.
 *
 * @example Usage
 * ```ts
 * import { isEventType, type SessionEvent } from "./session_event.ts";
 * import { equal } from "node:assert/strict";
 * const event: SessionEvent = { seq: 1, time: "t", type: "turn/start", turn: 1 };
 * if (isEventType(event, "turn/start")) equal(event.turn, 1);
 * ```
 */
export function isEventType<T extends SessionEventType>(
  event: SessionEvent,
  type: T,
): event is SessionEvent & SessionEventOf<T> {
  return event.type === type;
}

/** Event data as `appendEvent` takes it (a JSON object without the envelope). */
export type SessionEventData = JsonObject;
