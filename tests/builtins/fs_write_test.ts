import { deepEqual, equal } from "node:assert/strict";
import { presentWriteCall, presentWriteResult } from "../../builtins/fs_write.ts";
import { tempDir } from "../_helpers.ts";
import { fakeAgent, fsHarness, text } from "./_fixtures.ts";

Deno.test("write creates a file (and its directories) with an empty diff list", async () => {
  await using ctx = await fsHarness();
  await using dir = await tempDir();
  const outcome = await ctx.call(
    "write",
    { file_path: "sub/new.txt", content: "a\nb\n" },
    fakeAgent(dir.path),
  );
  equal(outcome.isError, false);
  equal(text(outcome), `Created file ${dir.path}/sub/new.txt (2 lines)`);
  deepEqual(outcome.meta, { path: `${dir.path}/sub/new.txt`, operation: "create", diffs: [] });
  equal(await Deno.readTextFile(`${dir.path}/sub/new.txt`), "a\nb\n");
  deepEqual(ctx.observed.map((o) => o.tool), ["write"]);
  // A one-line file is counted as "1 line".
  const one = await ctx.call(
    "write",
    { file_path: "one.txt", content: "x\n" },
    fakeAgent(dir.path),
  );
  equal(text(one), `Created file ${dir.path}/one.txt (1 line)`);
});

Deno.test("write overwrites a file and keeps the applied hunks in meta", async () => {
  await using ctx = await fsHarness();
  await using dir = await tempDir();
  const path = `${dir.path}/f.txt`;
  await Deno.writeTextFile(path, "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
  const outcome = await ctx.call("write", {
    file_path: path,
    content: "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n",
  });
  equal(text(outcome), `Updated file ${path} (9 lines)`);
  deepEqual(outcome.meta, {
    path,
    operation: "update",
    diffs: [{ path, oldText: "2\n3\n4\n5\n6\n7\n8", newText: "2\n3\n4\nFIVE\n6\n7\n8" }],
  });
});

Deno.test("write rejects bad arguments and directories", async () => {
  await using ctx = await fsHarness();
  await using dir = await tempDir();
  equal(
    text(await ctx.call("write", { file_path: "a" })),
    'Error: invalid arguments: "content": expected string (required), received nothing (the key is missing); fix: send a string such as "text"',
  );
  equal(
    text(await ctx.call("write", { file_path: "", content: "" })),
    `Error: Cannot write: 'file_path' must be a non-empty path: current value is ""`,
  );
  equal(
    text(await ctx.call("write", { file_path: dir.path, content: "" })),
    `Error: Cannot write "${dir.path}": it is a directory`,
  );
});

Deno.test("presentWriteCall() and presentWriteResult() give the exact diff views", () => {
  const args = { file_path: "a.txt", content: "new" };
  deepEqual(presentWriteCall(args), {
    card: "diff",
    title: "Write a.txt",
    diffs: [{ path: "a.txt", oldText: null, newText: "new" }],
    locations: [{ path: "a.txt" }],
  });
  const hunks = [{ path: "/w/a.txt", oldText: "old", newText: "new" }];
  deepEqual(presentWriteResult(args, { content: [], isError: false, meta: { diffs: hunks } }), {
    card: "diff",
    title: "Write a.txt",
    diffs: hunks,
  });
  deepEqual(presentWriteResult(args, { content: [], isError: false, meta: { diffs: [] } }), {
    card: "diff",
    title: "Write a.txt",
    diffs: [{ path: "a.txt", oldText: null, newText: "new" }],
  });
  equal(presentWriteResult(args, { content: [], isError: true }), undefined);
});
