/**
 * The model adapter seam: the request the loop sends, the messages it carries and the chunks an
 * adapter streams back. Adapters (DeepSeek, the scripted mock) implement {@linkcode ModelAdapter}.
 *
 * @module
 */
import type { ContentBlock } from "../tools/content.ts";
import type { ToolSchema } from "../registry/types.ts";

/** Why the model stopped. `tool-calls` means the answer carries tool-call blocks to run. */
export type FinishReason = "stop" | "tool-calls" | "max-tokens" | "content-filter" | "error";

/** Token accounting of one response. */
export interface Usage {
  /** Prompt tokens. */
  readonly inputTokens: number;
  /** Completion tokens (reasoning included). */
  readonly outputTokens: number;
  /** Prompt tokens served from the provider's prompt cache. */
  readonly cacheHitTokens?: number;
  /** Prompt tokens not served from the cache. */
  readonly cacheMissTokens?: number;
}

/** A visible text block of an assistant message. */
export interface AssistantTextBlock {
  /** Discriminant. */
  readonly type: "text";
  /** The text. */
  readonly text: string;
}

/** A reasoning ("thinking") block of an assistant message. */
export interface AssistantReasoningBlock {
  /** Discriminant. */
  readonly type: "reasoning";
  /** The reasoning text. */
  readonly text: string;
}

/** A complete tool call the model emitted. */
export interface ToolCallBlock {
  /** Discriminant. */
  readonly type: "tool-call";
  /** The model's call id. */
  readonly id: string;
  /** The tool name. */
  readonly name: string;
  /** The arguments exactly as the model emitted them (a JSON string, possibly invalid). */
  readonly arguments: string;
}

/** One block of an assistant message. */
export type AssistantBlock = AssistantTextBlock | AssistantReasoningBlock | ToolCallBlock;

/** A user-role message: the user's prompt or injected context. */
export interface UserMessage {
  /** Discriminant. */
  readonly role: "user";
  /** The content. */
  readonly content: readonly ContentBlock[];
  /** Set for injected context (`plugin`, `tool`, `system`, …); absent for the user's own prompt. */
  readonly source?: string;
}

/** An assistant message. */
export interface AssistantMessage {
  /** Discriminant. */
  readonly role: "assistant";
  /** Text, reasoning and tool-call blocks in stream order. */
  readonly content: readonly AssistantBlock[];
}

/** The result of one tool call, answering an assistant tool-call block. */
export interface ToolResultMessage {
  /** Discriminant. */
  readonly role: "tool";
  /** The id of the tool-call block this answers. */
  readonly callId: string;
  /** Model-facing content. */
  readonly content: readonly ContentBlock[];
  /** True for failures. */
  readonly isError: boolean;
}

/**
 * One message of the conversation sent to the model.
 *
 * @example Usage
 * ```ts
 * import type { ModelMessage } from "./model.ts";
 * const messages: ModelMessage[] = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
 * ```
 */
export type ModelMessage = UserMessage | AssistantMessage | ToolResultMessage;

/** What the loop sends to an adapter for one step. */
export interface ModelRequest {
  /** The model id (for example `deepseek-flash`). */
  readonly model: string;
  /** The system prompt. */
  readonly system: string;
  /** The conversation so far. */
  readonly messages: readonly ModelMessage[];
  /** The tool schemas visible to the model. */
  readonly tools: readonly ToolSchema[];
  /** Cancels the request and the stream. */
  readonly signal: AbortSignal;
  /** Output token cap, when set. */
  readonly maxTokens?: number;
}

/**
 * An adapter's notice that it waits before retrying a failed request (a 429, a 5xx, a network
 * error). Nothing of the answer has streamed yet; the loop shows and logs it as `model/retry`.
 */
export interface RetryNotice {
  /** Discriminant. */
  readonly type: "retry";
  /** The attempt that follows the wait (2 for the first retry). */
  readonly attempt: number;
  /** Attempts in all (retries + 1). */
  readonly maxAttempts: number;
  /** How long the adapter waits, in ms. */
  readonly delayMs: number;
  /** The HTTP status that caused the retry, when the server answered. */
  readonly status?: number;
  /** What the user is shown, for example `DeepSeek busy (HTTP 503), retrying in 2 s (attempt 2 of 4)`. */
  readonly message: string;
}

/**
 * One streamed piece of a model answer. A well-formed stream ends with exactly one `finish`;
 * `tool-call` chunks carry complete calls (adapters assemble deltas themselves); `retry` chunks
 * only come before any answer content.
 */
export type StreamChunk =
  | RetryNotice
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "reasoning"; readonly text: string }
  | {
    readonly type: "tool-call";
    readonly id: string;
    readonly name: string;
    readonly arguments: string;
  }
  | { readonly type: "usage"; readonly usage: Usage }
  | { readonly type: "finish"; readonly reason: FinishReason; readonly message?: string };

/**
 * A model provider. `stream()` throws on failure (an abort rejects with `signal.reason`).
 *
 * @example Usage
 * ```ts
 * import type { ModelAdapter, ModelRequest, StreamChunk } from "./model.ts";
 * import { equal } from "node:assert/strict";
 * const echo: ModelAdapter = {
 *   async *stream(request: ModelRequest): AsyncIterable<StreamChunk> {
 *     yield { type: "text", text: `${request.messages.length} messages` };
 *     yield { type: "finish", reason: "stop" };
 *   },
 * };
 * const chunks: StreamChunk[] = [];
 * const request = { model: "m", system: "", messages: [], tools: [], signal: new AbortController().signal };
 * for await (const chunk of echo.stream(request)) chunks.push(chunk);
 * equal(chunks.length, 2);
 * ```
 */
export interface ModelAdapter {
  /** Streams the answer to one request. */
  stream(request: ModelRequest): AsyncIterable<StreamChunk>;
}
