/**
 * The agent's live events, typed: what the agent emits on its context and what listeners
 * (the ACP server) receive. Observe-only; the durable record is the session log.
 *
 * @module
 */
import type { Listener } from "../core/context.ts";
import type { AgentHandle, ArgsValidation } from "../tools/definition.ts";
import type { SessionEvent } from "./session_event.ts";

/** A streamed piece of the model's answer. */
export interface AgentDelta {
  /** The session. */
  readonly sessionId: string;
  /** Answer text or reasoning. */
  readonly kind: "text" | "reasoning";
  /** The piece. */
  readonly text: string;
}

/** A streamed piece of a running call's output. */
export interface ToolOutputEvent {
  /** The session. */
  readonly sessionId: string;
  /** The call. */
  readonly callId: string;
  /** The output text. */
  readonly chunk: string;
}

/**
 * What a live `session/event` carries besides the event, never written to the log: for a
 * `tool/call`, the registry's one validation of the prepared call (`ToolCall.validation`), so
 * presenters need not validate again.
 *
 * @example Usage
 * ```ts
 * import type { LiveEventData } from "./agent_events.ts";
 * const live: LiveEventData = { validation: { ok: true, args: { path: "a.ts" } } };
 * void live;
 * ```
 */
export interface LiveEventData {
  /** The prepared call's validation (`tool/call` only). */
  readonly validation?: ArgsValidation;
}

/**
 * Each live event's listener arguments. `session/event` carries the very event object the
 * session log appended (typed: narrow it with `isEventType`).
 */
export interface AgentEventMap {
  /** An event was appended to the session log. */
  "session/event": [event: SessionEvent, agent: AgentHandle, live?: LiveEventData];
  /** A model delta streamed. */
  "agent/delta": [delta: AgentDelta];
  /** A running call wrote output. */
  "tool/output": [output: ToolOutputEvent];
  /** The agent was disposed. */
  "agent/disposed": [agent: AgentHandle];
}

/** The names of the agent's live events. */
export type AgentEventType = keyof AgentEventMap;

/**
 * Adds a typed listener for one of the agent's live events.
 *
 * @param ctx A context (`ctx.on`).
 * @param type The event name.
 * @param listener Receives the event's typed arguments.
 * @returns Removes the listener.
 *
 * @example Usage
 * ```ts
 * import { Context } from "../core/context.ts";
 * import { onAgentEvent } from "./agent_events.ts";
 * import { equal } from "node:assert/strict";
 * const ctx = new Context();
 * const seen: string[] = [];
 * onAgentEvent(ctx, "agent/delta", (delta) => seen.push(delta.text));
 * ctx.emit("agent/delta", { sessionId: "s", kind: "text", text: "hi" });
 * equal(seen[0], "hi");
 * ```
 */
export function onAgentEvent<K extends AgentEventType>(
  ctx: { on(event: string, listener: Listener): () => void },
  type: K,
  listener: (...args: AgentEventMap[K]) => void,
): () => void {
  return ctx.on(type, listener);
}
