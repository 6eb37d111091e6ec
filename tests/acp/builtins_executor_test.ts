/**
 * The agent's fs tools, read-before-edit and Code Mode share bash's executor (one environment per
 * session): under `"sandbox": "auto"` the first `read` is what probes it.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { createHarness } from "../../mod.ts";
import { loadBuiltins } from "../../acp/_builtins.ts";
import { DEFAULT_CONFIG } from "../../acp/config.ts";
import type { SafetyState } from "../../acp/_safety_config.ts";
import { tempDir } from "../_helpers.ts";
import type { ToolOutcome } from "../../tools/outcome.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import { createSandboxExecutor } from "../../builtins/sandbox.ts";
import { LazyExecutor } from "../../acp/_lazy_bash.ts";
import { FS_TARGET_EVENT, fsPlugin } from "../../builtins/fs_plugin.ts";
import { FilesOnlyExecutor } from "../_executor_matrix.ts";

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

Deno.test("the local, bwrap and lazy executors keep the fs tools on the verified local path", async () => {
  await using dir = await tempDir();
  const workspace = await Deno.realPath(dir.path);
  await Deno.writeTextFile(`${workspace}/real.txt`, "content\n");
  await Deno.symlink(`${workspace}/real.txt`, `${workspace}/link.txt`);
  const bwrap = await createSandboxExecutor({ workspace });
  const cases = [
    { name: "local", executor: new LocalExecutor(), verified: true },
    { name: "bwrap", executor: bwrap, verified: true },
    { name: "lazy", executor: new LazyExecutor(() => Promise.resolve(bwrap)), verified: true },
    { name: "files-only", executor: new FilesOnlyExecutor(new LocalExecutor()), verified: false },
  ];
  for (const { name, executor, verified } of cases) {
    const ctx = await createHarness();
    try {
      await ctx.plugin(fsPlugin, { executor }).ready;
      const targets: string[] = [];
      // The policies' check of the real path: asked only on the verified (openFile) path.
      ctx.on(FS_TARGET_EVENT, (refusal: unknown, _exec: unknown, target: { real: string }) => {
        targets.push(target.real);
        return refusal;
      });
      const outcome = await ctx.tools.execute({
        callId: "r1",
        name: "read",
        arguments: { file_path: `${workspace}/link.txt` },
      });
      ok(text(outcome).includes("1: content"), `${name}: ${text(outcome)}`);
      deepEqual(targets, verified ? [`${workspace}/real.txt`] : [], name);
    } finally {
      await ctx.fiber.dispose();
    }
  }
});
