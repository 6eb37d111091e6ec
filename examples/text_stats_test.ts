/**
 * The test of `text_stats.ts`, as the README shows it: the tool through the real agent loop with
 * a scripted model and an in-memory session log, then its editor cards through the real ACP
 * server, pinned in `__snapshots__/text_stats.jsonl` (`DSH_UPDATE_SNAPSHOTS=1` re-records it).
 *
 *     deno test --allow-read --allow-write --allow-env examples/text_stats_test.ts
 *
 * @module
 */
import { deepEqual, equal } from "node:assert/strict";
import { createAgent, createHarness } from "@dsh/harness";
import { assertAcpSnapshot, eventOfType, messagesOfRole } from "@dsh/harness/testing";
import { MockAdapter, textResponse, toolCallResponse } from "@dsh/harness/agent";
import * as textStats from "./text_stats.ts";

Deno.test("text_stats counts, and rejects bad arguments with a message the model can act on", async () => {
  const ctx = await createHarness();
  await ctx.plugin(textStats).ready; // rejects if the plugin fails to apply
  const adapter = new MockAdapter([
    toolCallResponse("c1", "text_stats", { text: "one two\nthree" }),
    toolCallResponse("c2", "text_stats", { text: "x", unit: "pages" }),
    textResponse("done"),
  ]);
  // inMemoryLog: the session log stays in memory, no temp dir to create or remove.
  const agent = await createAgent(ctx, { adapter, model: "mock", cwd: "/", inMemoryLog: true });
  try {
    equal((await agent.prompt("measure it")).stopReason, "end_turn");
    // Typed picks: no casts, no isEventType narrowing.
    const ok = eventOfType(agent.events, "tool/result", (e) => e.callId === "c1");
    deepEqual(ok.content, [{ type: "text", text: "2 lines, 3 words, 13 characters" }]);
    deepEqual(ok.meta, { lines: 2, words: 3, chars: 13 });
    const bad = eventOfType(agent.events, "tool/result", (e) => e.callId === "c2");
    equal(bad.isError, true);
    deepEqual(bad.content, [{
      type: "text",
      text:
        'Error: invalid arguments: "unit": expected one of "lines", "words", "chars", received string "pages" (zod: Invalid option: expected one of "lines"|"words"|"chars"); fix: send "lines"',
    }]);
    // What the model saw: the JSON Schema from zod, and the results sent back.
    equal(adapter.requests[0]!.tools[0]!.name, "text_stats");
    equal(messagesOfRole(adapter.requests[2]!, "tool").length, 2);
  } finally {
    await agent.dispose();
    await ctx.fiber.dispose();
  }
});

Deno.test("text_stats shows its card in the editor", async () => {
  // The real ACP server, in process; compares with the stored transcript.
  await assertAcpSnapshot(new URL("./__snapshots__/text_stats.jsonl", import.meta.url), {
    plugins: [textStats],
    script: [toolCallResponse("c1", "text_stats", { text: "hi there" }), textResponse("2 words")],
  });
});
