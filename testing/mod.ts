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
 * import { createAgent, createHarness, defineTool } from "../mod.ts";
 * import { MockAdapter, textResponse, toolCallResponse } from "./mod.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const ctx = await createHarness();
 * ctx.tools.register(defineTool({
 *   name: "echo",
 *   description: "Echo the text back.",
 *   parameters: { text: { type: "string", required: true } },
 *   execute: (args) => [{ type: "text", text: args.text }],
 * }));
 * const adapter = new MockAdapter([toolCallResponse("c1", "echo", { text: "ping" }), textResponse("done")]);
 * const dir = await Deno.makeTempDir();
 * const agent = await createAgent(ctx, { adapter, model: "mock", cwd: dir, logDir: dir });
 * equal((await agent.prompt("say ping")).stopReason, "end_turn");
 * const call = agent.events.find((event) => event.type === "tool/call");
 * const result = agent.events.find((event) => event.type === "tool/result");
 * equal(call?.arguments, '{"text":"ping"}');
 * deepEqual(result?.content, [{ type: "text", text: "ping" }]);
 * equal(adapter.requests.length, 2); // the second request carries the tool result
 * await agent.dispose();
 * await ctx.fiber.dispose();
 * await Deno.remove(dir, { recursive: true });
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
