/**
 * Test helpers for tool authors: drive your tools through the real agent loop with a scripted
 * model.
 *
 * - {@linkcode MockAdapter}: answers each request with the next script entry (chunk arrays,
 *   functions of the request, `"hang"` / `"hang-slow"` / `{ hangAfter }` until aborted) and
 *   records every request; an exhausted script throws `MockAdapter: script exhausted`.
 * - {@linkcode textResponse}, {@linkcode toolCallResponse}, {@linkcode multiCall},
 *   {@linkcode maxTokensResponse}: ready-made answers.
 *
 * @example Usage
 * ```ts
 * import { MockAdapter, toolCallResponse, textResponse } from "./mod.ts";
 * import { equal } from "node:assert/strict";
 * const adapter = new MockAdapter([toolCallResponse("c1", "echo", { text: "ping" }), textResponse("done")]);
 * equal(adapter.remaining, 2);
 * ```
 *
 * @module
 */
export {
  maxTokensResponse,
  MockAdapter,
  multiCall,
  textResponse,
  toolCallResponse,
} from "../agent/mock_adapter.ts";
export type { MockEntry, MockToolCall } from "../agent/mock_adapter.ts";
