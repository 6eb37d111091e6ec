import { createAgent, MockAdapter, textResponse, toolCallResponse } from "../agent/mod.ts";
import { createHarness } from "../registry/mod.ts";
import { defineTool } from "../tools/mod.ts";
const dir = await Deno.makeTempDir();
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
for (let i = 0; i < 30; i++) {
  if (i === 29) {
    console.error("MARK-START");
    Deno.statSync("/tmp/MARKSTART-" + i);
  }
  const agent = await createAgent(ctx, {
    adapter: new MockAdapter([
      toolCallResponse("c1", "echo", { text: "hi" }),
      textResponse("done"),
    ]),
    model: "m",
    cwd: dir,
    logDir: dir,
    logKey,
  });
  await agent.prompt("go");
  await agent.dispose();
}
