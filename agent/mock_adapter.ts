/**
 * A scripted model adapter for tests: drive your tools through the real agent loop.
 *
 * @module
 */
import type { JsonValue } from "../core/json.ts";
import type { ModelAdapter, ModelRequest, StreamChunk } from "./model.ts";

/**
 * One scripted answer: a chunk array, a function of the request, `"hang"` (streams the text
 * `partial`, then waits for the abort), `"hang-slow"` (the same, but notices the abort
 * 50 ms late, like a provider slow to close its stream) or
 * `{ hangAfter }` (streams the chunks, then waits for the abort). A hang rejects with the
 * abort's `signal.reason`.
 */
export type MockEntry =
  | readonly StreamChunk[]
  | ((request: ModelRequest) => readonly StreamChunk[] | Promise<readonly StreamChunk[]>)
  | "hang"
  | "hang-slow"
  | { readonly hangAfter: readonly StreamChunk[] };

const HANG_SLOW_DELAY_MS = 50;
const SCRIPT_EXHAUSTED_MESSAGE = "MockAdapter: script exhausted";

const PARTIAL: readonly StreamChunk[] = [{ type: "text", text: "partial" }];

function waitForAbort(signal: AbortSignal, delayMs: number): Promise<never> {
  return new Promise((_, reject) => {
    const fail = (): void => {
      if (delayMs === 0) reject(signal.reason);
      else setTimeout(() => reject(signal.reason), delayMs);
    };
    if (signal.aborted) fail();
    else signal.addEventListener("abort", fail, { once: true });
  });
}

/**
 * A {@linkcode ModelAdapter} that answers each request with the next script entry and records
 * every request (with a snapshot of its messages) in `requests`.
 *
 * @example Usage
 * ```ts
 * import { MockAdapter, textResponse } from "./mock_adapter.ts";
 * import { equal } from "node:assert/strict";
 * const adapter = new MockAdapter([textResponse("hi")]);
 * const request = { model: "m", system: "", messages: [], tools: [], signal: new AbortController().signal };
 * let text = "";
 * for await (const chunk of adapter.stream(request)) if (chunk.type === "text") text += chunk.text;
 * equal(text, "hi");
 * equal(adapter.requests.length, 1);
 * ```
 */
export class MockAdapter implements ModelAdapter {
  /** Every request received, in order (messages and tools are copied at request time). */
  readonly requests: ModelRequest[] = [];
  #script: MockEntry[];

  /**
   * Creates a mock.
   *
   * @param script The answers, consumed one per request.
   */
  constructor(script: readonly MockEntry[] = []) {
    this.#script = [...script];
  }

  /** Appends entries to the script. @param entries The answers. */
  push(...entries: MockEntry[]): void {
    this.#script.push(...entries);
  }

  /** How many entries are left. */
  get remaining(): number {
    return this.#script.length;
  }

  /**
   * Streams the next entry.
   *
   * @param request The request (recorded).
   * @returns The scripted chunks.
   * @throws {Error} `MockAdapter: script exhausted` when no entry is left.
   */
  async *stream(request: ModelRequest): AsyncIterable<StreamChunk> {
    this.requests.push({ ...request, messages: [...request.messages], tools: [...request.tools] });
    const entry = this.#script.shift();
    if (entry === undefined) {
      throw new Error(SCRIPT_EXHAUSTED_MESSAGE);
    }
    const { signal } = request;
    signal.throwIfAborted();
    let chunks: readonly StreamChunk[];
    let hangDelayMs: number | undefined;
    if (entry === "hang" || entry === "hang-slow") {
      chunks = PARTIAL;
      hangDelayMs = entry === "hang" ? 0 : HANG_SLOW_DELAY_MS;
    } else if (typeof entry === "function") {
      chunks = await entry(request);
    } else if ("hangAfter" in entry) {
      chunks = entry.hangAfter;
      hangDelayMs = 0;
    } else {
      chunks = entry;
    }
    for (const chunk of chunks) {
      signal.throwIfAborted();
      yield chunk;
    }
    if (hangDelayMs !== undefined) await waitForAbort(signal, hangDelayMs);
  }
}

/**
 * A plain text answer: the text, usage 10/length, finish `stop`.
 *
 * @param text The answer.
 * @returns The chunks.
 *
 * @example Usage
 * ```ts
 * import { textResponse } from "./mock_adapter.ts";
 * import { equal } from "node:assert/strict";
 * equal(textResponse("ok").at(-1)?.type, "finish");
 * ```
 */
export function textResponse(text: string): StreamChunk[] {
  return [
    { type: "text", text },
    { type: "usage", usage: { inputTokens: 10, outputTokens: text.length } },
    { type: "finish", reason: "stop" },
  ];
}

/**
 * A text answer cut off at the output token limit (finish `max-tokens`).
 *
 * @param text The partial answer.
 * @returns The chunks.
 *
 * @example Usage
 * ```ts
 * import { maxTokensResponse } from "./mock_adapter.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(maxTokensResponse("cut").at(-1), { type: "finish", reason: "max-tokens" });
 * ```
 */
export function maxTokensResponse(text: string): StreamChunk[] {
  return [
    { type: "text", text },
    { type: "usage", usage: { inputTokens: 10, outputTokens: text.length } },
    { type: "finish", reason: "max-tokens" },
  ];
}

/** One call of {@linkcode multiCall}. */
export interface MockToolCall {
  /** Call id. */
  readonly id: string;
  /** Tool name. */
  readonly name: string;
  /** Arguments: a JSON value (stringified) or a raw string sent as is (for invalid JSON). */
  readonly args: JsonValue | { readonly raw: string };
}

function rawArgs(args: MockToolCall["args"]): string {
  if (typeof args === "object" && args !== null && !Array.isArray(args) && "raw" in args) {
    const raw = (args as { raw: unknown }).raw;
    if (typeof raw === "string") return raw;
  }
  return JSON.stringify(args);
}

/**
 * An answer calling several tools, in order, optionally after some text (finish `tool-calls`).
 *
 * @param calls The calls.
 * @param text Leading text.
 * @returns The chunks.
 *
 * @example Usage
 * ```ts
 * import { multiCall } from "./mock_adapter.ts";
 * import { equal } from "node:assert/strict";
 * const chunks = multiCall([{ id: "a", name: "t", args: {} }, { id: "b", name: "t", args: {} }]);
 * equal(chunks.filter((c) => c.type === "tool-call").length, 2);
 * ```
 */
export function multiCall(calls: readonly MockToolCall[], text?: string): StreamChunk[] {
  const chunks: StreamChunk[] = [];
  if (text !== undefined && text !== "") chunks.push({ type: "text", text });
  for (const call of calls) {
    chunks.push({ type: "tool-call", id: call.id, name: call.name, arguments: rawArgs(call.args) });
  }
  chunks.push({ type: "usage", usage: { inputTokens: 10, outputTokens: 5 } });
  chunks.push({ type: "finish", reason: "tool-calls" });
  return chunks;
}

/**
 * An answer calling one tool (finish `tool-calls`).
 *
 * @param callId Call id.
 * @param name Tool name.
 * @param args Arguments (a JSON value, or `{ raw }` for a raw string).
 * @param text Leading text.
 * @returns The chunks.
 *
 * @example Usage
 * ```ts
 * import { toolCallResponse } from "./mock_adapter.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(toolCallResponse("c1", "echo", { text: "ping" })[0], {
 *   type: "tool-call", id: "c1", name: "echo", arguments: '{"text":"ping"}',
 * });
 * ```
 */
export function toolCallResponse(
  callId: string,
  name: string,
  args: MockToolCall["args"],
  text?: string,
): StreamChunk[] {
  return multiCall([{ id: callId, name, args }], text);
}
