import { deepEqual, equal } from "node:assert/strict";
import { formatReadWindow, presentReadCall } from "../../builtins/fs_read.ts";
import { tempDir } from "../_helpers.ts";
import { fakeAgent, fsHarness, text } from "./_fixtures.ts";

Deno.test("read returns a numbered envelope and reports the file as observed", async () => {
  await using ctx = await fsHarness();
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/a.txt`, "one\ntwo\n");
  const agent = fakeAgent(dir.path);
  const outcome = await ctx.call("read", { file_path: "a.txt" }, agent);
  equal(outcome.isError, false);
  equal(
    text(outcome),
    `<path>${dir.path}/a.txt</path>\n<type>file</type>\n<content>\n1: one\n2: two\n(End of file - total 2 lines)\n</content>`,
  );
  const info = await Deno.stat(`${dir.path}/a.txt`);
  deepEqual(ctx.observed, [{
    sessionId: "s1",
    path: `${dir.path}/a.txt`,
    tool: "read",
    version: { size: 8, mtimeMs: info.mtime!.getTime(), hash: ctx.observed[0]?.version?.hash },
  }]);
  equal(ctx.observed[0]?.version?.hash?.length, 16);
  deepEqual(agent.events, [{
    type: "fs/observed",
    data: { path: `${dir.path}/a.txt`, tool: "read", callId: "c1" },
  }]);
});

Deno.test("read pages with offset and limit and says how to continue", async () => {
  await using ctx = await fsHarness();
  await using dir = await tempDir();
  await Deno.writeTextFile(
    `${dir.path}/n.txt`,
    Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join("\n"),
  );
  const outcome = await ctx.call("read", { file_path: `${dir.path}/n.txt`, offset: 3, limit: 2 });
  equal(
    text(outcome),
    `<path>${dir.path}/n.txt</path>\n<type>file</type>\n<content>\n3: l3\n4: l4\n(Showing lines 3-4 of 10. Use offset=5 to read more.)\n</content>`,
  );
});

Deno.test("read caps long lines and the bytes per call, saying so", () => {
  const long = "x".repeat(2500);
  const { text: one } = formatReadWindow("/f", [long], 1, 2000);
  equal(one.split("\n")[3], `1: ${"x".repeat(2000)}… [line truncated: 2500 characters]`);
  const lines = Array.from({ length: 100 }, () => "y".repeat(1000));
  const { text: capped, last } = formatReadWindow("/f", lines, 1, 2000);
  equal(last, 50);
  equal(
    capped.split("\n").at(-2),
    "(Output capped at 50 KiB: showing lines 1-50 of 100. Use offset=51 to read more.)",
  );
});

Deno.test("read rejects bad arguments and unreadable targets", async (t) => {
  await using ctx = await fsHarness();
  await using dir = await tempDir();
  await Deno.writeFile(`${dir.path}/bin`, new Uint8Array([1, 0, 2]));
  await Deno.writeTextFile(`${dir.path}/short`, "a\n");
  const cases: [unknown, string][] = [
    [
      {},
      'Error: invalid arguments: "file_path": expected string (required), received nothing (the key is missing); fix: send a string such as "text"',
    ],
    [
      { file_path: "" },
      `Error: Cannot read: 'file_path' must be a non-empty path: current value is ""`,
    ],
    [
      { file_path: "/x", offset: 0 },
      'Error: invalid arguments: "offset": expected integer >= 1, received number 0; fix: send 1',
    ],
    [
      { file_path: "/x", limit: 2001 },
      'Error: invalid arguments: "limit": expected integer from 1 to 2000, received number 2001; fix: send 2000',
    ],
    [
      { file_path: `${dir.path}/missing` },
      `Error: Cannot read "${dir.path}/missing": file not found`,
    ],
    [
      { file_path: dir.path },
      `Error: Cannot read "${dir.path}": it is a directory; list it with bash (ls) instead`,
    ],
    [
      { file_path: `${dir.path}/bin` },
      `Error: Cannot read "${dir.path}/bin": it is a binary file (3 bytes); read returns text only`,
    ],
    [
      { file_path: `${dir.path}/short`, offset: 5 },
      `Error: Cannot read "${dir.path}/short" from line 5: the file has 1 lines`,
    ],
  ];
  for (const [args, expected] of cases) {
    await t.step(JSON.stringify(args), async () => {
      const outcome = await ctx.call("read", args);
      equal(outcome.isError, true);
      equal(text(outcome), expected);
    });
  }
  deepEqual(ctx.observed, []);
});

Deno.test("read of an empty file says it has 0 lines", async () => {
  await using ctx = await fsHarness();
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/e`, "");
  equal(
    text(await ctx.call("read", { file_path: `${dir.path}/e` })),
    `<path>${dir.path}/e</path>\n<type>file</type>\n<content>\n(End of file - total 0 lines)\n</content>`,
  );
});

Deno.test("presentReadCall() titles the window and points at the line", () => {
  deepEqual(presentReadCall({ file_path: "src/a.ts" }), {
    card: "generic",
    title: "Read src/a.ts",
    kind: "read",
    locations: [{ path: "src/a.ts", line: 1 }],
  });
  equal(presentReadCall({ file_path: "a", offset: 7 }).title, "Read a (from line 7)");
  equal(presentReadCall({ file_path: "a", limit: 5 }).title, "Read a (1 - 5)");
  deepEqual(presentReadCall({ file_path: "a", offset: 7, limit: 3 }).locations, [{
    path: "a",
    line: 7,
  }]);
});

Deno.test("fsPlugin registers read, write and edit and unregisters them on dispose", async () => {
  await using ctx = await fsHarness();
  deepEqual(ctx.tools.list().map((t) => t.name), ["edit", "read", "write"]);
  equal(ctx.tools.isConcurrencySafe("read", { file_path: "a" }), true);
  equal(ctx.tools.isConcurrencySafe("write", { file_path: "a", content: "" }), false);
  equal(
    ctx.tools.isConcurrencySafe("edit", { file_path: "a", old_string: "a", new_string: "b" }),
    false,
  );
  const { fsPlugin } = await import("../../builtins/fs_plugin.ts");
  const { createHarness } = await import("../../mod.ts");
  const root = await createHarness();
  try {
    const fiber = root.plugin(fsPlugin);
    await fiber.ready;
    equal(root.tools.list().length, 3);
    await fiber.dispose();
    equal(root.tools.list().length, 0);
    await root.plugin(fsPlugin).ready;
    equal(root.tools.list().length, 3);
  } finally {
    await root.fiber.dispose();
  }
});
