/**
 * The pinned open of the fs tools (builtins/_pinned_open.ts) leaves the process's working
 * directory as it was, and the verify-after-open fallback serves a file the agent may reach only
 * by its own path (no folder of it may be entered).
 */
import { equal, ok } from "node:assert/strict";
import { tempDir } from "../_helpers.ts";
import { fakeAgent, fsHarness, text } from "./_fixtures.ts";

Deno.test("read and write through pinned folders leave the working directory unchanged", async () => {
  await using dir = await tempDir();
  const root = await Deno.realPath(dir.path);
  await using ctx = await fsHarness();
  const before = Deno.cwd();
  const agent = fakeAgent(root);
  const write = await ctx.call("write", { file_path: "a/b/c.txt", content: "x\n" }, agent);
  equal(write.isError, false, text(write));
  equal(Deno.cwd(), before);
  const read = await ctx.call("read", { file_path: "a/b/c.txt" }, agent);
  equal(text(read).split("\n")[3], "1: x");
  equal(Deno.cwd(), before);
  const missing = await ctx.call("read", { file_path: "a/nope/c.txt" }, agent);
  equal(missing.error?.code, "NOT_FOUND");
  equal(Deno.cwd(), before);
});

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
