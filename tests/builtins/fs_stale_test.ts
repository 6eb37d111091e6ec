/**
 * Stale writes (issue 13): `write` and `edit` refuse when the file changed on disk since the
 * session read it, and say to read it again; real files, real tool calls.
 */
import { equal, ok } from "node:assert/strict";
import { readBeforeEditPlugin, staleFileReason } from "../../builtins/read_before_edit.ts";
import type { ApprovalService } from "../../registry/hooks.ts";
import { tempDir } from "../_helpers.ts";
import { fakeAgent, fsHarness, text } from "./_fixtures.ts";

async function setup() {
  const ctx = await fsHarness();
  await ctx.plugin(readBeforeEditPlugin).ready;
  const dir = await tempDir();
  return {
    ctx,
    dir: dir.path,
    agent: fakeAgent(dir.path),
    async [Symbol.asyncDispose]() {
      await ctx[Symbol.asyncDispose]();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("attack: edit and write after an outside change are refused, not clobbered", async () => {
  await using s = await setup();
  const path = `${s.dir}/f.txt`;
  await Deno.writeTextFile(path, "alpha\n");
  equal((await s.ctx.call("read", { file_path: path }, s.agent)).isError, false);
  // Same size, written right away: the mtime may not even tick; the content hash catches it.
  await Deno.writeTextFile(path, "omega\n");
  const edit = await s.ctx.call(
    "edit",
    { file_path: path, old_string: "alpha", new_string: "beta" },
    s.agent,
  );
  equal(text(edit), `Error: ${staleFileReason("edit", path)}`);
  const write = await s.ctx.call("write", { file_path: path, content: "mine\n" }, s.agent);
  equal(text(write), `Error: ${staleFileReason("write", path)}`);
  equal(await Deno.readTextFile(path), "omega\n");
  ok(text(edit).includes("read it again"));
  // Reading again makes it editable.
  await s.ctx.call("read", { file_path: path }, s.agent);
  const retry = await s.ctx.call(
    "edit",
    { file_path: path, old_string: "omega", new_string: "beta" },
    s.agent,
  );
  equal(retry.isError, false, text(retry));
  // The session's own edits keep its version current: a second edit needs no re-read.
  const again = await s.ctx.call(
    "edit",
    { file_path: path, old_string: "beta", new_string: "gamma" },
    s.agent,
  );
  equal(again.isError, false, text(again));
  equal(await Deno.readTextFile(path), "gamma\n");
});

Deno.test("a file written by the session, then changed by another session, is stale", async () => {
  await using s = await setup();
  const other = fakeAgent(s.dir, "s2");
  equal(
    (await s.ctx.call("write", { file_path: "n.txt", content: "one\n" }, s.agent)).isError,
    false,
  );
  await s.ctx.call("read", { file_path: "n.txt" }, other);
  equal(
    (await s.ctx.call("edit", { file_path: "n.txt", old_string: "one", new_string: "two" }, other))
      .isError,
    false,
  );
  equal(
    text(
      await s.ctx.call("edit", { file_path: "n.txt", old_string: "two", new_string: "x" }, s.agent),
    ),
    `Error: ${staleFileReason("edit", `${s.dir}/n.txt`)}`,
  );
});

Deno.test("a touch without a content change is not a change", async () => {
  await using s = await setup();
  const path = `${s.dir}/t.txt`;
  await Deno.writeTextFile(path, "same\n");
  await s.ctx.call("read", { file_path: path }, s.agent);
  await Deno.utime(path, new Date(2000, 0, 1), new Date(2000, 0, 1));
  const edit = await s.ctx.call(
    "edit",
    { file_path: path, old_string: "same", new_string: "new" },
    s.agent,
  );
  equal(edit.isError, false, text(edit));
});

Deno.test("attack: a change made while approval is pending is caught before the write", async () => {
  await using s = await setup();
  const path = `${s.dir}/a.txt`;
  await Deno.writeTextFile(path, "v1\n");
  await s.ctx.call("read", { file_path: path }, s.agent);
  s.ctx.on("tools/pre-execute", () => ({ kind: "ask", reason: "check" }));
  const approval: ApprovalService = {
    async request() {
      await Deno.writeTextFile(path, "v2\n"); // the user's editor saves meanwhile
      return "allowed-once";
    },
  };
  s.ctx.provide("approval", approval);
  const write = await s.ctx.call("write", { file_path: path, content: "agent\n" }, s.agent);
  equal(write.isError, true);
  equal(write.error?.code, "FS_STALE");
  equal(text(write), `Error: ${staleFileReason("write", path)}`);
  equal(await Deno.readTextFile(path), "v2\n");
});
