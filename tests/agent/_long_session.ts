/**
 * A long session in its own process (run with `--v8-flags=--expose-gc`): `turns` turns of one
 * tool step (a 4 KiB result) and an answer, on a durable log. Prints, as JSON, the heap after a
 * full GC at each checkpoint and the log's size then.
 */
import { createAgent } from "../../mod.ts";
import { MockAdapter, textResponse, toolCallResponse } from "../../agent/mod.ts";
import { createHarness } from "../../mod.ts";
import { defineTool } from "../../mod.ts";

const [dir, checkpointsArg] = Deno.args;
const checkpoints = checkpointsArg!.split(",").map(Number);
const turns = Math.max(...checkpoints);
const ctx = await createHarness({ logLevel: "error" });
const payload = "x".repeat(4096);
ctx.tools.register(defineTool({
  name: "big",
  description: "Returns 4 KiB.",
  parameters: {},
  execute: () => Promise.resolve([{ type: "text", text: payload + Math.random() }]),
}));
const script = [];
for (let i = 0; i < turns; i++) {
  script.push(toolCallResponse(`c${i}`, "big", {}), textResponse(`answer ${i}`));
}
// MockAdapter records every request (a snapshot of the messages): cleared, so only the agent's
// own memory is measured.
const adapter = new MockAdapter(script);
const agent = await createAgent(ctx, {
  adapter,
  model: "mock",
  cwd: dir!,
  logDir: dir!,
});
const gc = (globalThis as unknown as { gc: () => void }).gc;
const points = [];
for (let turn = 1; turn <= turns; turn++) {
  await agent.prompt(`turn ${turn}`);
  adapter.requests.length = 0;
  if (checkpoints.includes(turn)) {
    gc();
    gc();
    const log = (await Deno.stat(`${dir}/${agent.sessionId}.jsonl`)).size;
    points.push({ turn, heap: Deno.memoryUsage().heapUsed, log, events: agent.events.length });
  }
}
await agent.dispose();
console.log(JSON.stringify(points));
