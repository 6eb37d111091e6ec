/**
 * The DeepSeek adapter: the OpenAI-compatible `/chat/completions` API, streamed.
 *
 * @module
 */
import type { ModelAdapter, ModelRequest, StreamChunk } from "./model.ts";
import { ModelRequestError } from "./model_request_error.ts";
import { errorMessage } from "../core/error_message.ts";
import { createLogger } from "../core/logger.ts";
import { netHost } from "../core/permission_hint.ts";
import { readStream, serverMessage } from "./_deepseek_stream.ts";
import { connectFailure } from "./_connect_failure.ts";
import {
  CURRENT_MODELS,
  formatDelay,
  isPermissionError,
  modelHint,
  requestBody,
  retiredModelMessage,
} from "./_deepseek_wire.ts";
import { retiredModelProblem } from "./deepseek_models.ts";

/** DeepSeek's thinking mode switch (`thinking: {type}` on the wire). */
export type ThinkingMode = "enabled" | "disabled";

/** How hard DeepSeek thinks in thinking mode (`reasoning_effort` on the wire). */
export type ReasoningEffort = "low" | "high" | "max";

/**
 * The model ids DeepSeek serves today: `deepseek-flash` (DeepSeek-V4.1-Flash, recommended),
 * `deepseek-v4-pro`, and `deepseek-v4-flash` (an alias of `deepseek-flash`). `deepseek-chat` and
 * `deepseek-reasoner` were retired on 2026-07-24.
 *
 * @example Usage
 * ```ts
 * import { DEEPSEEK_MODELS } from "./deepseek.ts";
 * import { equal } from "node:assert/strict";
 * equal(DEEPSEEK_MODELS[0], "deepseek-flash");
 * ```
 */
export const DEEPSEEK_MODELS: readonly string[] = CURRENT_MODELS;

/** Options for {@linkcode DeepSeekAdapter}. */
export interface DeepSeekAdapterOptions {
  /** API key. @default {Deno.env.get("DEEPSEEK_API_KEY")} */
  readonly apiKey?: string;
  /** API base URL. @default {Deno.env.get("DEEPSEEK_BASE_URL") ?? "https://api.deepseek.com"} */
  readonly baseUrl?: string;
  /** Model used when a request names none. @default {"deepseek-flash"} */
  readonly model?: string;
  /**
   * Thinking mode. When enabled (the API's default) the reasoning of every assistant message
   * that made tool calls is passed back, and `temperature` is not sent. @default {"enabled"}
   */
  readonly thinking?: ThinkingMode;
  /** `reasoning_effort` in thinking mode; the API's default when unset. */
  readonly reasoningEffort?: ReasoningEffort;
  /** Retries after a 429, a 5xx, a transient network error (a reset, not a refusal) or a stream cut before any output. @default {3} */
  readonly maxRetries?: number;
  /** First backoff delay; doubles per retry. @default {1000} */
  readonly initialRetryDelayMs?: number;
  /** Cap on any retry delay, `Retry-After` included. @default {60000} */
  readonly maxRetryDelayMs?: number;
  /** Waits between retries (injectable for tests); rejects with `signal.reason` on abort. @default {an abortable setTimeout} */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The fetch implementation. @default {globalThis.fetch} */
  readonly fetch?: typeof fetch;
  /** Sampling temperature, sent only with thinking disabled (thinking mode ignores it). */
  readonly temperature?: number;
}

/**
 * Reads an environment variable when this process may: one that Deno's permissions do not grant
 * is reported in `unreadable` (never read, so never a permission prompt) instead of passing for
 * unset silently.
 */
function env(name: string, unreadable: string[]): string | undefined {
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
    unreadable.push(name);
    return undefined;
  }
  return Deno.env.get(name);
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
 * becomes reasoning chunks; usage carries the prompt cache hit/miss tokens. Thinking mode (on by
 * default) passes the reasoning of every assistant message that made tool calls back as
 * `reasoning_content`, as DeepSeek requires, and does not send `temperature`.
 *
 * 429, 5xx, network errors and a stream cut before any output are retried with exponential
 * backoff (honouring `Retry-After`); before each wait a `retry` chunk tells the caller (for
 * example `DeepSeek busy (HTTP 503), retrying in 2 s (attempt 2 of 4)`), and an abort ends the
 * wait at once. Once output has streamed nothing is retried. A Deno permission failure, a refused
 * connection, an unknown host and a failed TLS handshake are never retried: they fail at once,
 * naming the host:port, the cause and where the endpoint is set. Other failures throw {@linkcode ModelRequestError} with the server's message (and the
 * current model ids when the id was rejected); an abort rejects with `signal.reason`.
 *
 * @example Usage
 * ```ts ignore
 * import { DeepSeekAdapter } from "./deepseek.ts";
 * const adapter = new DeepSeekAdapter({ reasoningEffort: "high" }); // DEEPSEEK_API_KEY from the environment
 * const request = { model: "deepseek-flash", system: "", messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }], tools: [], signal: new AbortController().signal };
 * for await (const chunk of adapter.stream(request)) console.log(chunk);
 * ```
 */
export class DeepSeekAdapter implements ModelAdapter {
  /** The default model. */
  readonly model: string;
  /** The base URL (no trailing slash). */
  readonly baseUrl: string;
  /** The thinking mode. */
  readonly thinking: ThinkingMode;
  #apiKey: string | undefined;
  readonly #keyUnreadable: boolean;
  #options: DeepSeekAdapterOptions;

  /**
   * Creates the adapter. The key is checked on the first request, not here.
   *
   * @param options Key, URL, model, thinking mode, retry policy.
   * @throws {RangeError} When a retry option is negative or not finite.
   * @throws {TypeError} When `thinking` or `reasoningEffort` is not one of its values, or `model`
   * is a retired id (`deepseek-chat`, `deepseek-reasoner`).
   */
  constructor(options: DeepSeekAdapterOptions = {}) {
    const {
      maxRetries = 3,
      initialRetryDelayMs = 1000,
      maxRetryDelayMs = 60_000,
      thinking = "enabled",
      reasoningEffort,
    } = options;
    for (
      const [name, value] of Object.entries({ maxRetries, initialRetryDelayMs, maxRetryDelayMs })
    ) {
      if (!Number.isFinite(value) || value < 0) {
        throw new RangeError(
          `Cannot create DeepSeek adapter as '${name}' must be a non-negative number: current value is ${value}`,
        );
      }
    }
    if (thinking !== "enabled" && thinking !== "disabled") {
      throw new TypeError(
        `Cannot create DeepSeek adapter as 'thinking' must be "enabled" or "disabled": current value is ${
          JSON.stringify(thinking)
        }`,
      );
    }
    if (reasoningEffort !== undefined && !["low", "high", "max"].includes(reasoningEffort)) {
      throw new TypeError(
        `Cannot create DeepSeek adapter as 'reasoningEffort' must be "low", "high" or "max": current value is ${
          JSON.stringify(reasoningEffort)
        }`,
      );
    }
    const retired = options.model === undefined ? undefined : retiredModelProblem(options.model);
    if (retired !== undefined) {
      throw new TypeError(retiredModelMessage("Cannot create DeepSeek adapter", retired));
    }
    this.#options = options;
    const unreadable: string[] = [];
    this.#apiKey = options.apiKey ?? env("DEEPSEEK_API_KEY", unreadable);
    this.#keyUnreadable = unreadable.includes("DEEPSEEK_API_KEY");
    this.baseUrl = (options.baseUrl ?? env("DEEPSEEK_BASE_URL", unreadable) ??
      "https://api.deepseek.com").replace(/\/+$/, "");
    if (unreadable.includes("DEEPSEEK_BASE_URL")) {
      createLogger({ name: "deepseek" }).warn(
        `Cannot read DEEPSEEK_BASE_URL: Deno's permissions do not grant it (run with --allow-env=DEEPSEEK_API_KEY,DEEPSEEK_BASE_URL, or pass 'baseUrl'); using ${this.baseUrl}`,
      );
    }
    this.model = options.model ?? CURRENT_MODELS[0]!;
    this.thinking = thinking;
  }

  /**
   * Streams one answer.
   *
   * @param request The request.
   * @returns Retry notices, then text, reasoning, complete tool calls, usage and one finish.
   * @throws {ModelRequestError} When the server refuses the request, the stream breaks or Deno's
   * permissions do not allow the request.
   */
  async *stream(request: ModelRequest): AsyncIterable<StreamChunk> {
    const { signal } = request;
    const { maxRetries = 3, sleep = delay } = this.#options;
    signal.throwIfAborted();
    const call = this.#prepare(request);
    for (let attempt = 0;; attempt++) {
      const step = await this.#post(call, attempt, signal);
      if (step.type === "retry") {
        yield step;
        await sleep(step.delayMs, signal);
        continue;
      }
      let streamed = false;
      try {
        for await (const chunk of readStream(step, signal)) {
          streamed = true;
          yield chunk;
        }
        return;
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        const retryable = error instanceof ModelRequestError ? error.retryable : true;
        if (streamed || !retryable || attempt >= maxRetries) throw streamFailure(error);
        const backoff = this.#backoff(attempt);
        yield call.notice(backoff, attempt, "DeepSeek stream broke before any output");
        await sleep(backoff, signal);
      }
    }
  }

  /** The request body, the model, and the retry notices of one `stream` call. */
  #prepare(request: ModelRequest): PreparedCall {
    const { maxRetries = 3, temperature, reasoningEffort } = this.#options;
    if (this.#apiKey === undefined || this.#apiKey === "") {
      throw new ModelRequestError(
        this.#keyUnreadable
          ? "Cannot call DeepSeek: DEEPSEEK_API_KEY cannot be read, Deno's permissions do not grant it; run with --allow-env=DEEPSEEK_API_KEY or pass 'apiKey'"
          : "Cannot call DeepSeek: no API key; set DEEPSEEK_API_KEY or pass 'apiKey'",
      );
    }
    const model = request.model === "" ? this.model : request.model;
    const retired = retiredModelProblem(model);
    if (retired !== undefined) {
      throw new ModelRequestError(retiredModelMessage("Cannot call DeepSeek", retired));
    }
    const body = requestBody(request, {
      model,
      thinking: this.thinking,
      reasoningEffort,
      temperature,
    });
    const maxAttempts = maxRetries + 1;
    const notice = (ms: number, attempt: number, cause: string, status?: number) =>
      retryNotice({ delayMs: ms, attempt: attempt + 2, maxAttempts, cause, status });
    return { model, body, notice };
  }

  #backoff(attempt: number): number {
    const { initialRetryDelayMs = 1000, maxRetryDelayMs = 60_000 } = this.#options;
    return Math.min(maxRetryDelayMs, initialRetryDelayMs * 2 ** attempt);
  }

  /**
   * Sends the request once: the response to stream, or a retry notice (its `delayMs` is the
   * wait). Throws when the request cannot succeed or the attempts are used up.
   */
  async #post(
    call: PreparedCall,
    attempt: number,
    signal: AbortSignal,
  ): Promise<Response | RetryChunk> {
    const { maxRetries = 3, maxRetryDelayMs = 60_000, fetch: fetchImpl = globalThis.fetch } =
      this.#options;
    const backoff = this.#backoff(attempt);
    let response: Response;
    try {
      response = await fetchImpl(`${this.baseUrl}/chat/completions`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "text/event-stream",
          authorization: `Bearer ${this.#apiKey}`,
        },
        body: call.body,
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (isPermissionError(error)) throw permissionFailure(this.baseUrl, error);
      const { cause, permanent } = connectFailure(error);
      const where = `${netHost(this.baseUrl)} (${this.baseUrl}/chat/completions)`;
      if (!permanent && attempt < maxRetries) {
        return call.notice(backoff, attempt, `DeepSeek unreachable at ${where}: ${cause}`);
      }
      const tries = attempt === 0 ? "" : ` after ${attempt + 1} attempts`;
      throw new ModelRequestError(
        `Cannot reach DeepSeek at ${where}${tries}: ${cause}; ${ENDPOINT_SETTING}`,
        { retryable: !permanent, cause: error },
      );
    }
    if (response.ok) return response;
    const { status } = response;
    const text = await response.text().catch(() => "");
    const retryable = status === 429 || status >= 500;
    if (retryable && attempt < maxRetries) {
      const wait = Math.min(maxRetryDelayMs, retryAfterMs(response.headers) ?? backoff);
      return call.notice(wait, attempt, `DeepSeek busy (HTTP ${status})`, status);
    }
    const hint = STATUS_HINTS[status];
    const message = serverMessage(text);
    throw new ModelRequestError(
      `DeepSeek request failed with HTTP ${status}${hint ? ` (${hint})` : ""}${
        retryable ? ` after ${attempt + 1} attempts` : ""
      }: ${message}${modelHint(status, message, call.model)}`,
      { status, retryable },
    );
  }
}

type RetryChunk = Extract<StreamChunk, { type: "retry" }>;

/** What {@linkcode DeepSeekAdapter.stream} computes once per call. */
interface PreparedCall {
  readonly model: string;
  readonly body: string;
  /** The retry notice after failed attempt `attempt` (0-based), waiting `ms`. */
  notice(ms: number, attempt: number, cause: string, status?: number): RetryChunk;
}

function retryNotice(
  { delayMs, attempt, maxAttempts, cause, status }: {
    delayMs: number;
    attempt: number;
    maxAttempts: number;
    cause: string;
    status: number | undefined;
  },
): RetryChunk {
  return {
    type: "retry",
    attempt,
    maxAttempts,
    delayMs,
    ...(status === undefined ? {} : { status }),
    message: `${cause}, retrying in ${formatDelay(delayMs)} (attempt ${attempt} of ${maxAttempts})`,
  };
}

/** Where the agent's endpoint is set, for the messages of a request that cannot reach it. */
const ENDPOINT_SETTING =
  "the endpoint is DEEPSEEK_BASE_URL when set, else model.baseUrl in dsh.jsonc (the adapter's 'baseUrl' option)";

/** Retrying cannot help: the process's permission profile decides, not the network. */
function permissionFailure(baseUrl: string, error: unknown): ModelRequestError {
  return new ModelRequestError(
    `DeepSeek request to ${baseUrl} is not allowed by Deno's permissions (${
      errorMessage(error)
    }): dsh's launcher and compile task allow network access to exactly the host:port of DEEPSEEK_BASE_URL when set, else of model.baseUrl in dsh.jsonc; set the endpoint there (or run with --allow-net=${
      netHost(baseUrl)
    })`,
    { cause: error },
  );
}

/** A stream that failed for good. */
function streamFailure(error: unknown): ModelRequestError {
  if (error instanceof ModelRequestError) return error;
  return new ModelRequestError(
    `DeepSeek stream failed: ${errorMessage(error)}`,
    { retryable: true, cause: error },
  );
}
