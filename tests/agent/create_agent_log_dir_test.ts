import { equal } from "node:assert/strict";
import { createAgent } from "../../mod.ts";
import { MockAdapter, textResponse } from "../../agent/mod.ts";
import { createHarness } from "../../mod.ts";
import { tempDir } from "../_helpers.ts";

Deno.test("createAgent() creates a missing logDir, parents included", async () => {
  await using dir = await tempDir("dsh_log_dir_");
  const logDir = `${dir.path}/.dsh/sessions`;
  const ctx = await createHarness({ logSink: () => {} });
  const adapter = new MockAdapter([textResponse("hi")]);
  const agent = await createAgent(ctx, { adapter, model: "mock", cwd: dir.path, logDir });
  try {
    equal((await agent.prompt("hello")).stopReason, "end_turn");
    equal((await Deno.stat(`${logDir}/${agent.sessionId}.jsonl`)).isFile, true);
  } finally {
    await agent.dispose();
    await ctx.fiber.dispose();
  }
});
