/**
 * Deriving the model conversation from a session log.
 *
 * @module
 */
import type { ModelMessage } from "./model.ts";
import type { SessionEvent } from "./session_event.ts";
import { MessageBuilder } from "./_message_builder.ts";

/**
 * Turns session events into the messages a model request carries.
 *
 * `user/message` and `context/inject` become user messages, `assistant/message` an assistant
 * message and `tool/result` a tool message; other events (`tool/call`, `tool/code-dispatch`,
 * tool-owned events) are ignored. Contexts logged between the results of one batch follow the
 * batch's last result, and a call without a logged result (crash, abort, max-tokens) gets a
 * synthetic `Error: …` result, so the output is always a valid provider conversation.
 *
 * @param events Events in log order.
 * @returns The messages.
 *
 * @example Usage
 * ```ts
 * import { deriveMessages } from "./derive_messages.ts";
 * import { deepEqual } from "node:assert/strict";
 * const messages = deriveMessages([
 *   { seq: 1, time: "t", type: "user/message", turn: 1, content: [{ type: "text", text: "hi" }] },
 *   { seq: 2, time: "t", type: "assistant/message", turn: 1, step: 1, finishReason: "stop", content: [{ type: "text", text: "hello" }] },
 * ]);
 * deepEqual(messages.map((m) => m.role), ["user", "assistant"]);
 * ```
 */
export function deriveMessages(events: Iterable<SessionEvent>): ModelMessage[] {
  const builder = new MessageBuilder();
  for (const event of events) builder.push(event);
  return builder.messages();
}
