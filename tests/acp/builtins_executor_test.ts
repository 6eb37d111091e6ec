/**
 * The agent's fs tools, read-before-edit and Code Mode share bash's executor (one environment per
 * session): under `"sandbox": "auto"` the first `read` is what probes it.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { createHarness } from "../../registry/mod.ts";
import { loadBuiltins } from "../../acp/_builtins.ts";
import { DEFAULT_CONFIG } from "../../acp/config.ts";
import type { SafetyState } from "../../acp/_safety_config.ts";
import { tempDir } from "../_helpers.ts";
import type { ToolOutcome } from "../../registry/types.ts";

function text(outcome: ToolOutcome): string {
  return outcome.content.map((block) => block.type === "text" ? block.text : "").join("");
}

Deno.test("loadBuiltins gives read, write, edit and Code Mode the bash executor", async () => {
  await using dir = await tempDir();
  const workspace = await Deno.realPath(dir.path);
  await Deno.writeTextFile(`${workspace}/a.txt`, "one\n");
  const ctx = await createHarness();
  try {
    const safety: SafetyState = { bashSandboxed: undefined, notice: undefined };
    await loadBuiltins(ctx, {
      config: { ...DEFAULT_CONFIG, sandbox: "auto", toolMode: "both" },
      workspace,
      safety,
    });
    equal(safety.bashSandboxed, undefined, "not probed at start-up");
    const agent = {
      id: "agent-s1",
      sessionId: "s1",
      cwd: workspace,
      disposed: false,
      inject() {},
      appendEvent() {},
    };
    const call = (name: string, args: unknown) =>
      ctx.tools.execute({ callId: crypto.randomUUID(), name, arguments: args, agent });
    const read = await call("read", { file_path: "a.txt" });
    ok(text(read).includes("1: one"), text(read));
    // The read went through the agent's (lazy) executor: it chose bash's sandbox.
    equal(safety.bashSandboxed, true);
    const edit = await call("edit", { file_path: "a.txt", old_string: "one", new_string: "two" });
    equal(edit.isError, false, text(edit));
    equal(await Deno.readTextFile(`${workspace}/a.txt`), "two\n");
    const run = await call("run_code", {
      code: "return await tools.bash({ command: 'cat a.txt' });",
    });
    deepEqual(text(run), "two");
  } finally {
    await ctx.fiber.dispose();
  }
});
