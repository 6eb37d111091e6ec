/** Incrementally turns session events into model messages (shared by deriveMessages and the loop). */
import type { ContentBlock } from "../tools/content.ts";
import type { ModelMessage, UserMessage } from "./model.ts";
import type { SessionEvent, SessionEventMap } from "./session_event.ts";

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
    switch (event.type) {
      case "user/message": {
        const data = event as unknown as SessionEventMap["user/message"];
        this.settle();
        this.#messages.push({ role: "user", content: data.content });
        break;
      }
      case "context/inject": {
        const data = event as unknown as SessionEventMap["context/inject"];
        const message: UserMessage = {
          role: "user",
          content: data.content,
          source: data.source?.kind ?? "plugin",
        };
        if (this.#pending.size > 0) this.#held.push(message);
        else this.#messages.push(message);
        break;
      }
      case "assistant/message": {
        const data = event as unknown as SessionEventMap["assistant/message"];
        this.settle();
        if (!Array.isArray(data.content) || data.content.length === 0) break;
        this.#messages.push({ role: "assistant", content: data.content });
        for (const block of data.content) {
          if (block.type === "tool-call") this.#pending.add(block.id);
        }
        this.#pendingText = data.finishReason === "max-tokens" ? MAX_TOKENS_TEXT : INTERRUPTED_TEXT;
        break;
      }
      case "tool/result": {
        const data = event as unknown as SessionEventMap["tool/result"];
        // A result for a call the last assistant message did not make would break the
        // provider's pairing rule; it is not sent.
        if (!this.#pending.delete(data.callId)) break;
        this.#messages.push({
          role: "tool",
          callId: data.callId,
          content: data.content,
          isError: data.isError,
        });
        if (this.#pending.size === 0) this.#flushHeld();
        break;
      }
    }
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
