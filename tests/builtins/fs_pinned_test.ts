/**
 * The verify-after-open fallback of the fs tools (builtins/_safe_fs.ts) serves a file the agent
 * may reach only by its own path (no folder of it may be entered), and it is what a process gets
 * that did not turn the pinned walk on. The pinned walk's own tests are in `_fs_race_scenario.ts`.
 */
import { equal, ok } from "node:assert/strict";
import { tempDir } from "../_helpers.ts";
import { fakeAgent, fsHarness, text } from "./_fixtures.ts";

Deno.test("a file the agent may reach only by its own path is read and written (fallback)", async () => {
  await using dir = await tempDir();
  const path = `${await Deno.realPath(dir.path)}/only.txt`;
  await Deno.writeTextFile(path, "old\n");
  const child = new URL("./_fs_fallback_child.ts", import.meta.url).pathname;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", `--allow-read=${path}`, `--allow-write=${path}`, child, path],
    stdout: "piped",
    stderr: "piped",
  }).output();
  equal(code, 0, new TextDecoder().decode(stderr));
  const { read, write, content } = JSON.parse(new TextDecoder().decode(stdout));
  ok(JSON.stringify(read).includes("1: old"), JSON.stringify(read));
  ok(JSON.stringify(write).includes("Updated file"), JSON.stringify(write));
  equal(content, "new\n");
});

Deno.test("the fs tools leave the working directory alone unless the process turned the pinned walk on", async () => {
  await using dir = await tempDir();
  const root = await Deno.realPath(dir.path);
  await using ctx = await fsHarness();
  const seen = new Set<string>();
  const before = Deno.cwd();
  // Sample the working directory while the calls run: another Worker of this process would.
  const sampler = setInterval(() => seen.add(Deno.cwd()), 0);
  try {
    for (let i = 0; i < 20; i++) {
      const write = await ctx.call(
        "write",
        { file_path: `a/b/${i}.txt`, content: "x\n" },
        fakeAgent(root),
      );
      equal(write.isError, false, text(write));
      seen.add(Deno.cwd());
    }
  } finally {
    clearInterval(sampler);
  }
  equal([...seen].join(","), before);
});
