import { createAgent, MockAdapter, textResponse, toolCallResponse } from "../agent/mod.ts";
import { createHarness } from "../registry/mod.ts";
import { defineTool } from "../tools/mod.ts";
const dir = await Deno.makeTempDir({ dir: Deno.args[0] });
const ctx = await createHarness({ logLevel: "error" });
ctx.tools.register(
  defineTool({
    name: "echo",
    description: "e",
    parameters: { text: { type: "string", required: true } },
    execute: (a) => Promise.resolve([{ type: "text", text: a.text }]),
  }),
);
const logKey = crypto.getRandomValues(new Uint8Array(32));
async function run(mode: string) {
  const ts: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now();
    const agent = await createAgent(ctx, {
      adapter: new MockAdapter([
        toolCallResponse("c1", "echo", { text: "hi" }),
        textResponse("done"),
      ]),
      model: "m",
      cwd: dir,
      ...(mode === "mem" ? { inMemoryLog: true } : { logDir: dir, logKey }),
    });
    const t1 = performance.now();
    await agent.prompt("go");
    const t2 = performance.now();
    await agent.dispose();
    ts.push(performance.now() - t0);
    if (i === 299) {
      console.log(
        mode,
        "create",
        (t1 - t0).toFixed(2),
        "prompt",
        (t2 - t1).toFixed(2),
        "dispose",
        (performance.now() - t2).toFixed(2),
      );
    }
  }
  ts.sort((a, b) => a - b);
  console.log(mode, "median", ts[150]!.toFixed(3));
}
await run("mem");
await run("disk");
await run("mem");
await run("disk");
const f = await Deno.open(`${dir}/x`, { write: true, create: true });
const s: number[] = [];
for (let i = 0; i < 50; i++) {
  f.writeSync(new Uint8Array(100));
  const t = performance.now();
  f.syncDataSync();
  s.push(performance.now() - t);
}
s.sort((a, b) => a - b);
console.log("fsync median", s[25]!.toFixed(3));
