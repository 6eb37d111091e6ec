/** Incrementally turns session events into model messages (shared by deriveMessages and the loop). */
import type { ContentBlock } from "../tools/content.ts";
import type { ModelMessage, UserMessage } from "./model.ts";
import { isEventType, type SessionEvent, type SessionEventOf } from "./session_event.ts";

const MAX_TOKENS_TEXT =
  "Error: tool call was not executed because the answer was cut off at the output token limit";
const INTERRUPTED_TEXT = "Error: tool call has no recorded result because the turn was interrupted";

/**
 * Keeps the provider invariant that an assistant message with tool calls is followed directly by
 * one result per call: contexts logged between results are held until the batch is answered, and
 * calls that never got a result (crash, abort, max-tokens) get a synthetic error result.
 */
export class MessageBuilder {
  #messages: ModelMessage[] = [];
  #pending = new Set<string>();
  #pendingText = INTERRUPTED_TEXT;
  #held: UserMessage[] = [];

  push(event: SessionEvent): void {
    if (isEventType(event, "user/message")) {
      this.settle();
      this.#messages.push({ role: "user", content: event.content });
    } else if (isEventType(event, "context/inject")) this.#context(event);
    else if (isEventType(event, "assistant/message")) this.#assistant(event);
    else if (isEventType(event, "tool/result")) this.#result(event);
  }

  #context(event: SessionEventOf<"context/inject">): void {
    const message: UserMessage = {
      role: "user",
      content: event.content,
      source: event.source?.kind ?? "plugin",
    };
    if (this.#pending.size > 0) this.#held.push(message);
    else this.#messages.push(message);
  }

  #assistant(event: SessionEventOf<"assistant/message">): void {
    this.settle();
    if (!Array.isArray(event.content) || event.content.length === 0) return;
    this.#messages.push({ role: "assistant", content: event.content });
    for (const block of event.content) {
      if (block.type === "tool-call") this.#pending.add(block.id);
    }
    this.#pendingText = event.finishReason === "max-tokens" ? MAX_TOKENS_TEXT : INTERRUPTED_TEXT;
  }

  #result(event: SessionEventOf<"tool/result">): void {
    // A result for a call the last assistant message did not make would break the provider's
    // pairing rule; it is not sent.
    if (!this.#pending.delete(event.callId)) return;
    this.#messages.push({
      role: "tool",
      callId: event.callId,
      content: event.content,
      isError: event.isError,
    });
    if (this.#pending.size === 0) this.#flushHeld();
  }

  /** Answers calls still pending with synthetic errors and releases held contexts. */
  settle(): void {
    if (this.#pending.size > 0) {
      const content: ContentBlock[] = [{ type: "text", text: this.#pendingText }];
      for (const callId of this.#pending) {
        this.#messages.push({ role: "tool", callId, content, isError: true });
      }
      this.#pending.clear();
    }
    this.#flushHeld();
  }

  /** A snapshot of the messages, settled first. */
  messages(): ModelMessage[] {
    this.settle();
    return this.#messages.slice();
  }

  #flushHeld(): void {
    if (this.#held.length === 0) return;
    for (const message of this.#held) this.#messages.push(message);
    this.#held = [];
  }
}
