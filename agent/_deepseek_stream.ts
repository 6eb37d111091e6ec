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
  const queue: StreamChunk[] = [];
  const calls = new Map<number, PartialCall>();
  let finish: FinishReason | undefined;
  let finishMessage: string | undefined;
  let usage: Usage | undefined;
  let done = false;
  let failure: Error | undefined;
  const flushCalls = () => {
    for (const index of [...calls.keys()].sort((a, b) => a - b)) {
      const call = calls.get(index)!;
      queue.push({ type: "tool-call", id: call.id, name: call.name, arguments: call.arguments });
    }
    calls.clear();
  };
  const onEvent = (event: EventSourceMessage) => {
    if (done || failure) return;
    if (event.data === "[DONE]") {
      done = true;
      return;
    }
    let payload;
    try {
      payload = JSON.parse(event.data);
    } catch {
      failure = new ModelRequestError(
        `DeepSeek stream failed: an event is not JSON: ${event.data.slice(0, 200)}`,
      );
      return;
    }
    if (payload?.error) {
      failure = new ModelRequestError(
        `DeepSeek stream failed: ${serverMessage(JSON.stringify(payload))}`,
      );
      return;
    }
    if (payload?.usage) {
      const u = payload.usage;
      usage = {
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
    const choice = payload?.choices?.[0];
    if (!choice) return;
    const delta = choice.delta ?? {};
    if (typeof delta.reasoning_content === "string" && delta.reasoning_content !== "") {
      queue.push({ type: "reasoning", text: delta.reasoning_content });
    }
    if (typeof delta.content === "string" && delta.content !== "") {
      queue.push({ type: "text", text: delta.content });
    }
    for (const part of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      const index = typeof part.index === "number" ? part.index : 0;
      let call = calls.get(index);
      if (!call) calls.set(index, call = { id: "", name: "", arguments: "" });
      if (typeof part.id === "string" && part.id !== "") call.id = part.id;
      if (typeof part.function?.name === "string" && part.function.name !== "") {
        call.name = part.function.name;
      }
      if (typeof part.function?.arguments === "string") call.arguments += part.function.arguments;
    }
    if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
      finish = FINISH_REASONS[choice.finish_reason] ?? "error";
      if (finish === "error") finishMessage = `DeepSeek stopped: ${choice.finish_reason}`;
      flushCalls();
    }
  };
  const parser = createParser({ onEvent });
  // A streaming decoder keeps a multi-byte character split across network chunks intact.
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    while (!done) {
      const { value, done: eof } = await reader.read();
      if (eof) break;
      parser.feed(value);
      if (failure) throw failure;
      while (queue.length > 0) yield queue.shift()!;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  signal.throwIfAborted();
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
