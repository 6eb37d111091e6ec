/**
 * SSE decoding for the DeepSeek adapter: tool-call deltas assembled by `index`, finish-reason
 * and usage mapping. Private to `deepseek.ts`.
 *
 * @module
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { FinishReason, StreamChunk, Usage } from "./model.ts";
import { ModelRequestError } from "./model_request_error.ts";

/** OpenAI `finish_reason` values; anything else maps to `"error"`. */
const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  stop: "stop",
  length: "max-tokens",
  tool_calls: "tool-calls",
  function_call: "tool-calls",
  content_filter: "content-filter",
};

/** The server's error message from a response body (JSON `error.message` or the text). */
export function serverMessage(body: string): string {
  try {
    const parsed = JSON.parse(body);
    const message = parsed?.error?.message ?? parsed?.message;
    if (typeof message === "string" && message !== "") return message;
  } catch {
    // not JSON: use the text
  }
  const text = body.trim();
  return text === "" ? "(empty response body)" : text.slice(0, 500);
}

/** A tool call being assembled: its deltas arrive split across events, keyed by `index`. */
interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/** The parts of a streamed `choices[0]` this parser reads (the wire is untrusted: all checked). */
interface WireChoice {
  readonly delta?: {
    readonly reasoning_content?: unknown;
    readonly content?: unknown;
    readonly tool_calls?: unknown;
  };
  readonly finish_reason?: unknown;
}

/** One tool call delta of a streamed choice. */
interface WireToolCallDelta {
  readonly index?: unknown;
  readonly id?: unknown;
  readonly function?: { readonly name?: unknown; readonly arguments?: unknown };
}

/** The token counts of the last event. */
interface WireUsage {
  readonly prompt_tokens?: number;
  readonly completion_tokens?: number;
  readonly prompt_cache_hit_tokens?: unknown;
  readonly prompt_cache_miss_tokens?: unknown;
}

/** Assembles the chunks of one answer from its SSE events. */
class AnswerAssembler {
  /** Chunks ready to be yielded. */
  readonly queue: StreamChunk[] = [];
  finish: FinishReason | undefined;
  finishMessage: string | undefined;
  usage: Usage | undefined;
  /** `[DONE]` arrived. */
  done = false;
  /** The stream is broken (an event is not JSON, or it carries an error). */
  failure: Error | undefined;
  readonly #calls = new Map<number, PartialCall>();

  onEvent(event: EventSourceMessage): void {
    if (this.done || this.failure) return;
    if (event.data === "[DONE]") {
      this.done = true;
      return;
    }
    let payload;
    try {
      payload = JSON.parse(event.data);
    } catch {
      this.failure = new ModelRequestError(
        `DeepSeek stream failed: an event is not JSON: ${event.data.slice(0, 200)}`,
      );
      return;
    }
    if (payload?.error) {
      this.failure = new ModelRequestError(
        `DeepSeek stream failed: ${serverMessage(JSON.stringify(payload))}`,
      );
      return;
    }
    if (payload?.usage) this.usage = usageOf(payload.usage);
    const choice = payload?.choices?.[0];
    if (choice) this.#onChoice(choice);
  }

  #onChoice(choice: WireChoice): void {
    const delta = choice.delta ?? {};
    if (typeof delta.reasoning_content === "string" && delta.reasoning_content !== "") {
      this.queue.push({ type: "reasoning", text: delta.reasoning_content });
    }
    if (typeof delta.content === "string" && delta.content !== "") {
      this.queue.push({ type: "text", text: delta.content });
    }
    for (const part of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      this.#onToolCallDelta(part);
    }
    if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
      this.finish = FINISH_REASONS[choice.finish_reason] ?? "error";
      if (this.finish === "error") this.finishMessage = `DeepSeek stopped: ${choice.finish_reason}`;
      this.#flushCalls();
    }
  }

  #onToolCallDelta(part: WireToolCallDelta): void {
    const index = typeof part.index === "number" ? part.index : 0;
    let call = this.#calls.get(index);
    if (!call) this.#calls.set(index, call = { id: "", name: "", arguments: "" });
    if (typeof part.id === "string" && part.id !== "") call.id = part.id;
    if (typeof part.function?.name === "string" && part.function.name !== "") {
      call.name = part.function.name;
    }
    if (typeof part.function?.arguments === "string") call.arguments += part.function.arguments;
  }

  #flushCalls(): void {
    for (const index of [...this.#calls.keys()].sort((a, b) => a - b)) {
      const call = this.#calls.get(index)!;
      this.queue.push({
        type: "tool-call",
        id: call.id,
        name: call.name,
        arguments: call.arguments,
      });
    }
    this.#calls.clear();
  }
}

function usageOf(u: WireUsage): Usage {
  return {
    inputTokens: u.prompt_tokens ?? 0,
    outputTokens: u.completion_tokens ?? 0,
    ...(typeof u.prompt_cache_hit_tokens === "number"
      ? { cacheHitTokens: u.prompt_cache_hit_tokens }
      : {}),
    ...(typeof u.prompt_cache_miss_tokens === "number"
      ? { cacheMissTokens: u.prompt_cache_miss_tokens }
      : {}),
  };
}

/** Parses one SSE response body into chunks. */
export async function* readStream(
  response: Response,
  signal: AbortSignal,
): AsyncGenerator<StreamChunk> {
  if (response.body === null) {
    throw new ModelRequestError("DeepSeek stream failed: the response has no body", {
      retryable: true,
    });
  }
  const answer = new AnswerAssembler();
  const { queue } = answer;
  const parser = createParser({ onEvent: (event) => answer.onEvent(event) });
  // A streaming decoder keeps a multi-byte character split across network chunks intact.
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    while (!answer.done) {
      const { value, done: eof } = await reader.read();
      if (eof) break;
      parser.feed(value);
      if (answer.failure) throw answer.failure;
      while (queue.length > 0) yield queue.shift()!;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  signal.throwIfAborted();
  const { finish, finishMessage, usage } = answer;
  if (finish === undefined) {
    throw new ModelRequestError("DeepSeek stream ended before the answer finished", {
      retryable: true,
    });
  }
  while (queue.length > 0) yield queue.shift()!;
  if (usage) yield { type: "usage", usage };
  yield finishMessage === undefined
    ? { type: "finish", reason: finish }
    : { type: "finish", reason: finish, message: finishMessage };
}
