/**
 * Typed pickers for test assertions: session events by type, conversation messages by role.
 *
 * @module
 */
import type { SessionEvent, SessionEventOf, SessionEventType } from "../agent/session_event.ts";
import type { ModelMessage, ModelRequest } from "../agent/model.ts";

/**
 * The events of one known type, typed: `eventsOfType(agent.events, "tool/result")` gives
 * `SessionEventOf<"tool/result">[]`, so `content`, `isError` and `meta` need no narrowing.
 *
 * @typeParam T The event type.
 * @param events The events (for example `agent.events`).
 * @param type The event type.
 * @returns The matching events, in log order.
 *
 * @example Usage
 * ```ts
 * import { eventsOfType } from "./pick.ts";
 * import { equal } from "node:assert/strict";
 * const events = [
 *   { seq: 1, time: "t", type: "turn/start", turn: 1 },
 *   { seq: 2, time: "t", type: "turn/end", turn: 1, stopReason: "end_turn" },
 * ];
 * const [end] = eventsOfType(events, "turn/end");
 * equal(end?.stopReason, "end_turn");
 * ```
 */
export function eventsOfType<T extends SessionEventType>(
  events: readonly SessionEvent[],
  type: T,
): SessionEventOf<T>[] {
  return events.filter((event) => event.type === type) as unknown as SessionEventOf<T>[];
}

/**
 * The one event of a known type that `where` accepts, typed; throws when there is none or more
 * than one, naming the types the events do have.
 *
 * @typeParam T The event type.
 * @param events The events.
 * @param type The event type.
 * @param where Narrows the candidates (for example by `callId`). @default {every event}
 * @returns The event.
 * @throws {Error} When no event or several events match.
 *
 * @example Usage
 * ```ts
 * import { eventOfType } from "./pick.ts";
 * import { equal, throws } from "node:assert/strict";
 * const events = [
 *   { seq: 1, time: "t", type: "tool/call", turn: 1, step: 1, callId: "c1", name: "echo", arguments: "{}" },
 * ];
 * equal(eventOfType(events, "tool/call", (e) => e.callId === "c1").name, "echo");
 * throws(() => eventOfType(events, "tool/result"), /no "tool\/result" event/);
 * ```
 */
export function eventOfType<T extends SessionEventType>(
  events: readonly SessionEvent[],
  type: T,
  where: (event: SessionEventOf<T>) => boolean = () => true,
): SessionEventOf<T> {
  const found = eventsOfType(events, type).filter(where);
  if (found.length === 1) return found[0]!;
  const types = events.map((event) => event.type).join(", ") || "none";
  throw new Error(
    found.length === 0
      ? `Cannot pick the event: there is no "${type}" event that matches; the events are: ${types}`
      : `Cannot pick the event: ${found.length} "${type}" events match (seq ${
        found.map((event) => event.seq).join(", ")
      }); narrow them with "where"`,
  );
}

/**
 * The messages of one role in a model request (or a message list), typed:
 * `messagesOfRole(adapter.requests[1]!, "tool")` gives `ToolResultMessage[]`.
 *
 * @typeParam R The role.
 * @param request A request the `MockAdapter` recorded, or its `messages`.
 * @param role `"user"`, `"assistant"` or `"tool"`.
 * @returns The matching messages, in conversation order.
 *
 * @example Usage
 * ```ts
 * import { messagesOfRole } from "./pick.ts";
 * import { equal } from "node:assert/strict";
 * const messages = [
 *   { role: "user" as const, content: [{ type: "text" as const, text: "hi" }] },
 *   { role: "tool" as const, callId: "c1", content: [], isError: false },
 * ];
 * equal(messagesOfRole(messages, "tool")[0]?.callId, "c1");
 * ```
 */
export function messagesOfRole<R extends ModelMessage["role"]>(
  request: Pick<ModelRequest, "messages"> | readonly ModelMessage[],
  role: R,
): Extract<ModelMessage, { readonly role: R }>[] {
  const messages = Array.isArray(request)
    ? request as readonly ModelMessage[]
    : (request as Pick<ModelRequest, "messages">).messages;
  return messages.filter((message): message is Extract<ModelMessage, { readonly role: R }> =>
    message.role === role
  );
}
