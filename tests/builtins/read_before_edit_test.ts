import { deepEqual, equal } from "node:assert/strict";
import { readBeforeEditPlugin } from "../../builtins/read_before_edit.ts";
import { tempDir } from "../_helpers.ts";
import { fakeAgent, fsHarness, text } from "./_fixtures.ts";

Deno.test("readBeforeEditPlugin denies editing or overwriting an unread file", async () => {
  await using ctx = await fsHarness();
  await ctx.plugin(readBeforeEditPlugin).ready;
  await using dir = await tempDir();
  const path = `${dir.path}/f.txt`;
  await Deno.writeTextFile(path, "hello\n");
  const agent = fakeAgent(dir.path);
  const edit = await ctx.call("edit", {
    file_path: "f.txt",
    old_string: "hello",
    new_string: "bye",
  }, agent);
  equal(edit.isError, true);
  equal(text(edit), `Error: edit requires reading "${path}" first`);
  equal(
    text(await ctx.call("write", { file_path: path, content: "x" }, agent)),
    `Error: edit requires reading "${path}" first`,
  );
  equal(await Deno.readTextFile(path), "hello\n");
  // Reading allows it; another session still has to read.
  await ctx.call("read", { file_path: path }, agent);
  equal(
    (await ctx.call("edit", { file_path: path, old_string: "hello", new_string: "bye" }, agent))
      .isError,
    false,
  );
  const other = fakeAgent(dir.path, "s2");
  equal(
    text(await ctx.call("edit", { file_path: path, old_string: "bye", new_string: "x" }, other)),
    `Error: edit requires reading "${path}" first`,
  );
});

Deno.test("readBeforeEditPlugin lets a new file be created and edited after", async () => {
  await using ctx = await fsHarness();
  await ctx.plugin(readBeforeEditPlugin).ready;
  await using dir = await tempDir();
  const agent = fakeAgent(dir.path);
  equal((await ctx.call("write", { file_path: "n.txt", content: "a\n" }, agent)).isError, false);
  equal(
    (await ctx.call("edit", { file_path: "n.txt", old_string: "a", new_string: "b" }, agent))
      .isError,
    false,
  );
  equal(
    text(
      await ctx.call("edit", { file_path: "none.txt", old_string: "a", new_string: "b" }, agent),
    ),
    `Error: Cannot edit "${dir.path}/none.txt": file not found`,
  );
});

Deno.test("readBeforeEditPlugin stops denying once disposed", async () => {
  await using ctx = await fsHarness();
  const fiber = ctx.plugin(readBeforeEditPlugin);
  await fiber.ready;
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/f`, "a");
  equal((await ctx.call("write", { file_path: `${dir.path}/f`, content: "b" })).isError, true);
  await fiber.dispose();
  deepEqual((await ctx.call("write", { file_path: `${dir.path}/f`, content: "b" })).isError, false);
});
