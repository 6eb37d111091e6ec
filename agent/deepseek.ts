/**
 * The DeepSeek adapter: the OpenAI-compatible `/chat/completions` API, streamed.
 *
 * @module
 */
import { contentText } from "../tools/content.ts";
import type { ModelAdapter, ModelMessage, ModelRequest, StreamChunk } from "./model.ts";
import { ModelRequestError } from "./model_request_error.ts";
import { errorMessage } from "../core/error_message.ts";
import { readStream, serverMessage } from "./_deepseek_stream.ts";

/** Options for {@linkcode DeepSeekAdapter}. */
export interface DeepSeekAdapterOptions {
  /** API key. @default {Deno.env.get("DEEPSEEK_API_KEY")} */
  readonly apiKey?: string;
  /** API base URL. @default {Deno.env.get("DEEPSEEK_BASE_URL") ?? "https://api.deepseek.com"} */
  readonly baseUrl?: string;
  /** Model used when a request names none. @default {"deepseek-chat"} */
  readonly model?: string;
  /** Retries after a 429, a 5xx, a network error or a stream cut before any output. @default {3} */
  readonly maxRetries?: number;
  /** First backoff delay; doubles per retry. @default {1000} */
  readonly initialRetryDelayMs?: number;
  /** Cap on any retry delay, `Retry-After` included. @default {60000} */
  readonly maxRetryDelayMs?: number;
  /** Waits between retries (injectable for tests); rejects with `signal.reason` on abort. @default {an abortable setTimeout} */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The fetch implementation. @default {globalThis.fetch} */
  readonly fetch?: typeof fetch;
  /** Sampling temperature, when set. */
  readonly temperature?: number;
}

function env(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    // No --allow-env: behave as if unset.
    return undefined;
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

const STATUS_HINTS: Readonly<Record<number, string>> = {
  400: "invalid request",
  401: "authentication failed; check DEEPSEEK_API_KEY",
  402: "insufficient balance",
  422: "invalid parameters",
};

/** Converts messages to the OpenAI wire shape. */
function wireMessages(system: string, messages: readonly ModelMessage[]): unknown[] {
  const out: unknown[] = [];
  if (system !== "") out.push({ role: "system", content: system });
  for (const message of messages) {
    switch (message.role) {
      case "user":
        out.push({ role: "user", content: contentText(message.content) });
        break;
      case "tool":
        out.push({
          role: "tool",
          tool_call_id: message.callId,
          content: contentText(message.content),
        });
        break;
      case "assistant": {
        let text = "";
        const calls: unknown[] = [];
        for (const block of message.content) {
          if (block.type === "text") text += block.text;
          else if (block.type === "tool-call") {
            calls.push({
              id: block.id,
              type: "function",
              function: { name: block.name, arguments: block.arguments },
            });
          }
        }
        out.push(
          calls.length > 0
            ? { role: "assistant", content: text === "" ? null : text, tool_calls: calls }
            : { role: "assistant", content: text },
        );
        break;
      }
    }
  }
  return out;
}

function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * Streams chat completions from DeepSeek (or any OpenAI-compatible server).
 *
 * Tool calls are assembled from deltas by `index` and emitted complete; `reasoning_content`
 * becomes reasoning chunks; usage carries the prompt cache hit/miss tokens. 429, 5xx, network
 * errors and a stream cut before any output are retried with exponential backoff (honouring
 * `Retry-After`); once output has streamed nothing is retried. Other failures throw
 * {@linkcode ModelRequestError} with the server's message; an abort rejects with `signal.reason`.
 *
 * @example Usage
 * ```ts ignore
 * import { DeepSeekAdapter } from "./deepseek.ts";
 * const adapter = new DeepSeekAdapter(); // DEEPSEEK_API_KEY from the environment
 * const request = { model: "deepseek-chat", system: "", messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }], tools: [], signal: new AbortController().signal };
 * for await (const chunk of adapter.stream(request)) console.log(chunk);
 * ```
 */
export class DeepSeekAdapter implements ModelAdapter {
  /** The default model. */
  readonly model: string;
  /** The base URL (no trailing slash). */
  readonly baseUrl: string;
  #apiKey: string | undefined;
  #options: DeepSeekAdapterOptions;

  /**
   * Creates the adapter. The key is checked on the first request, not here.
   *
   * @param options Key, URL, retry policy.
   * @throws {RangeError} When a retry option is negative or not finite.
   */
  constructor(options: DeepSeekAdapterOptions = {}) {
    const { maxRetries = 3, initialRetryDelayMs = 1000, maxRetryDelayMs = 60_000 } = options;
    for (
      const [name, value] of Object.entries({ maxRetries, initialRetryDelayMs, maxRetryDelayMs })
    ) {
      if (!Number.isFinite(value) || value < 0) {
        throw new RangeError(
          `Cannot create DeepSeek adapter as '${name}' must be a non-negative number: current value is ${value}`,
        );
      }
    }
    this.#options = options;
    this.#apiKey = options.apiKey ?? env("DEEPSEEK_API_KEY");
    this.baseUrl = (options.baseUrl ?? env("DEEPSEEK_BASE_URL") ?? "https://api.deepseek.com")
      .replace(/\/+$/, "");
    this.model = options.model ?? "deepseek-chat";
  }

  /**
   * Streams one answer.
   *
   * @param request The request.
   * @returns Text, reasoning, complete tool calls, usage and one finish.
   * @throws {ModelRequestError} When the server refuses the request or the stream breaks.
   */
  async *stream(request: ModelRequest): AsyncIterable<StreamChunk> {
    const { signal } = request;
    const {
      maxRetries = 3,
      initialRetryDelayMs = 1000,
      maxRetryDelayMs = 60_000,
      sleep = delay,
      fetch: fetchImpl = globalThis.fetch,
      temperature,
    } = this.#options;
    signal.throwIfAborted();
    if (this.#apiKey === undefined || this.#apiKey === "") {
      throw new ModelRequestError(
        "Cannot call DeepSeek: no API key; set DEEPSEEK_API_KEY or pass 'apiKey'",
      );
    }
    const body = JSON.stringify({
      model: request.model === "" ? this.model : request.model,
      messages: wireMessages(request.system, request.messages),
      ...(request.tools.length > 0
        ? {
          tools: request.tools.map((tool) => ({
            type: "function",
            function: {
              name: tool.name,
              description: tool.description,
              parameters: tool.parameters,
            },
          })),
        }
        : {}),
      ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
      ...(temperature === undefined ? {} : { temperature }),
      stream: true,
      stream_options: { include_usage: true },
    });
    const url = `${this.baseUrl}/chat/completions`;
    for (let attempt = 0;; attempt++) {
      const backoff = Math.min(maxRetryDelayMs, initialRetryDelayMs * 2 ** attempt);
      let response: Response;
      try {
        response = await fetchImpl(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "text/event-stream",
            authorization: `Bearer ${this.#apiKey}`,
          },
          body,
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (attempt < maxRetries) {
          await sleep(backoff, signal);
          continue;
        }
        throw new ModelRequestError(
          `DeepSeek request failed after ${attempt + 1} attempts: network error: ${
            errorMessage(error)
          }`,
          { retryable: true, cause: error },
        );
      }
      if (!response.ok) {
        const { status } = response;
        const text = await response.text().catch(() => "");
        const retryable = status === 429 || status >= 500;
        if (retryable && attempt < maxRetries) {
          await sleep(Math.min(maxRetryDelayMs, retryAfterMs(response.headers) ?? backoff), signal);
          continue;
        }
        const hint = STATUS_HINTS[status];
        throw new ModelRequestError(
          `DeepSeek request failed with HTTP ${status}${hint ? ` (${hint})` : ""}${
            retryable ? ` after ${attempt + 1} attempts` : ""
          }: ${serverMessage(text)}`,
          { status, retryable },
        );
      }
      let streamed = false;
      try {
        for await (const chunk of readStream(response, signal)) {
          streamed = true;
          yield chunk;
        }
        return;
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        const retryable = error instanceof ModelRequestError ? error.retryable : true;
        if (streamed || !retryable || attempt >= maxRetries) {
          if (error instanceof ModelRequestError) throw error;
          throw new ModelRequestError(
            `DeepSeek stream failed: ${errorMessage(error)}`,
            { retryable: true, cause: error },
          );
        }
        await sleep(backoff, signal);
      }
    }
  }
}
