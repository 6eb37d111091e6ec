import { deepEqual, equal } from "node:assert/strict";
import { countOccurrences, presentEditCall, presentEditResult } from "../../builtins/fs_edit.ts";
import { tempDir } from "../_helpers.ts";
import { fsHarness, text } from "./_fixtures.ts";

Deno.test("edit replaces exactly one match and keeps the applied hunks", async () => {
  await using ctx = await fsHarness();
  await using dir = await tempDir();
  const path = `${dir.path}/f.ts`;
  await Deno.writeTextFile(path, "const a = 1;\nconst b = 2;\n");
  const outcome = await ctx.call("edit", {
    file_path: path,
    old_string: "b = 2",
    new_string: "b = 3",
  });
  equal(outcome.isError, false);
  equal(text(outcome), `The file ${path} has been updated successfully.`);
  equal(await Deno.readTextFile(path), "const a = 1;\nconst b = 3;\n");
  deepEqual(outcome.meta, {
    path,
    operation: "update",
    diffs: [{ path, oldText: "const a = 1;\nconst b = 2;", newText: "const a = 1;\nconst b = 3;" }],
  });
});

Deno.test("edit with replace_all replaces every occurrence and says how many", async () => {
  await using ctx = await fsHarness();
  await using dir = await tempDir();
  const path = `${dir.path}/f.txt`;
  await Deno.writeTextFile(path, "x $& x\n");
  const outcome = await ctx.call("edit", {
    file_path: path,
    old_string: "x",
    new_string: "$1",
    replace_all: true,
  });
  equal(
    text(outcome),
    `The file ${path} has been updated successfully. All 2 occurrences of old_string were replaced.`,
  );
  equal(await Deno.readTextFile(path), "$1 $& $1\n");
});

Deno.test("edit errors name the match count and the problem", async (t) => {
  await using ctx = await fsHarness();
  await using dir = await tempDir();
  const path = `${dir.path}/f.txt`;
  await Deno.writeTextFile(path, "aa aa\n");
  const cases: [unknown, string][] = [
    [
      { file_path: path, old_string: "zz", new_string: "y" },
      `Error: Cannot edit "${path}": old_string matches 0 times but must match exactly once; it must match the file exactly, including whitespace and indentation; read the file again`,
    ],
    [
      { file_path: path, old_string: "aa", new_string: "y" },
      `Error: Cannot edit "${path}": old_string matches 2 times but must match exactly once; add surrounding lines to make it unique, or set replace_all to true`,
    ],
    [
      { file_path: path, old_string: "", new_string: "y" },
      `Error: Cannot edit "${path}": 'old_string' must be non-empty: current value is ""; use write to create a file`,
    ],
    [
      { file_path: path, old_string: "aa", new_string: "aa" },
      `Error: Cannot edit "${path}": 'new_string' must differ from 'old_string': both are "aa"`,
    ],
    [
      { file_path: `${dir.path}/none`, old_string: "a", new_string: "b" },
      `Error: Cannot edit "${dir.path}/none": file not found`,
    ],
    [
      { file_path: path, old_string: "a" },
      'Error: invalid arguments: "new_string": expected string (required), received nothing (the key is missing); fix: send a string such as "text"',
    ],
  ];
  for (const [args, expected] of cases) {
    await t.step(expected.slice(0, 60), async () => {
      const outcome = await ctx.call("edit", args);
      equal(outcome.isError, true);
      equal(text(outcome), expected);
    });
  }
  equal(await Deno.readTextFile(path), "aa aa\n");
});

Deno.test("countOccurrences() counts non-overlapping matches", () => {
  equal(countOccurrences("abcabc", "abc"), 2);
  equal(countOccurrences("aaaa", "aa"), 2);
  equal(countOccurrences("abc", "x"), 0);
});

Deno.test("presentEditCall() and presentEditResult() give the exact diff views", () => {
  const args = { file_path: "a.ts", old_string: "x", new_string: "y" };
  deepEqual(presentEditCall(args), {
    card: "diff",
    title: "Edit a.ts",
    diffs: [{ path: "a.ts", oldText: "x", newText: "y" }],
    locations: [{ path: "a.ts" }],
  });
  const hunks = [{ path: "/w/a.ts", oldText: null, newText: "y" }];
  deepEqual(presentEditResult(args, { content: [], isError: false, meta: { diffs: hunks } }), {
    card: "diff",
    title: "Edit a.ts",
    diffs: hunks,
  });
  equal(
    presentEditResult(args, { content: [], isError: false, meta: { diffs: [{ path: 1 }] } }),
    undefined,
  );
  equal(presentEditResult(args, { content: [], isError: true }), undefined);
});
