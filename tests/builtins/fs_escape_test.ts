/**
 * Attack tests of the workspace policy (issue 13): symlink tricks that try to make `write` and
 * `edit` create or change files outside the workspace without asking.
 */
import { equal, ok } from "node:assert/strict";
import { workspacePolicyPlugin } from "../../builtins/workspace_policy.ts";
import { tempDir } from "../_helpers.ts";
import { fakeAgent, fsHarness, text } from "./_fixtures.ts";

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** A workspace and an outside dir (both real paths), with the policy set to `outside`. */
async function setup(outside: "ask" | "deny") {
  const ctx = await fsHarness();
  const ws = await tempDir();
  const out = await tempDir();
  const root = await Deno.realPath(ws.path);
  const away = await Deno.realPath(out.path);
  await ctx.plugin(workspacePolicyPlugin, { root, outside }).ready;
  return {
    ctx,
    root,
    away,
    agent: fakeAgent(root),
    async [Symbol.asyncDispose]() {
      await ctx[Symbol.asyncDispose]();
      await ws[Symbol.asyncDispose]();
      await out[Symbol.asyncDispose]();
    },
  };
}

Deno.test("attack: write through a dangling symlink does not create a file outside", async () => {
  for (const outside of ["deny", "ask"] as const) {
    await using s = await setup(outside);
    await Deno.symlink(`${s.away}/created.txt`, `${s.root}/dangling`);
    const outcome = await s.ctx.call("write", { file_path: "dangling", content: "x" }, s.agent);
    equal(outcome.isError, true, text(outcome));
    if (outside === "deny") {
      equal(
        text(outcome),
        `Error: write of "${s.away}/created.txt" is outside the workspace "${s.root}"`,
      );
    } else {
      equal(outcome.error?.code, "DENIED"); // asked; no approval channel here
    }
    equal(await exists(`${s.away}/created.txt`), false);
  }
});

Deno.test("attack: symlink chains, `..` in link targets and symlinked parents are resolved", async () => {
  await using s = await setup("deny");
  await Deno.mkdir(`${s.root}/d`);
  const outName = s.away.slice(s.away.lastIndexOf("/") + 1);
  // A chain of two links, the last one dangling.
  await Deno.symlink("b", `${s.root}/a`);
  await Deno.symlink(`${s.away}/chain.txt`, `${s.root}/b`);
  // A relative target whose `..` climbs out from a real directory.
  await Deno.symlink(`d/../../${outName}/dotdot.txt`, `${s.root}/up`);
  // A symlinked parent directory, with directories still to create.
  await Deno.symlink(s.away, `${s.root}/parent`);
  // A loop.
  await Deno.symlink("loop", `${s.root}/loop`);
  const attempts: [string, string][] = [
    ["a", `${s.away}/chain.txt`],
    ["up", `${s.away}/dotdot.txt`],
    ["parent/new/deep.txt", `${s.away}/new/deep.txt`],
    ["d/../parent/x.txt", `${s.away}/x.txt`],
  ];
  for (const [file_path, target] of attempts) {
    const outcome = await s.ctx.call("write", { file_path, content: "x" }, s.agent);
    equal(text(outcome), `Error: write of "${target}" is outside the workspace "${s.root}"`);
    equal(await exists(target), false, `${file_path} created ${target}`);
  }
  const loop = await s.ctx.call("write", { file_path: "loop", content: "x" }, s.agent);
  equal(loop.isError, true);
  ok(text(loop).includes("is outside the workspace"), text(loop));
  // Nothing was created outside at all.
  equal([...Deno.readDirSync(s.away)].length, 0);
});

Deno.test("attack: `..` after a symlink never writes outside the workspace", async () => {
  await using s = await setup("deny");
  await Deno.mkdir(`${s.away}/inner`);
  await Deno.symlink(`${s.away}/inner`, `${s.root}/link`);
  // The tools normalize `link/..` lexically, so this names the workspace's own `x.txt`.
  const outcome = await s.ctx.call("write", { file_path: "link/../x.txt", content: "in" }, s.agent);
  equal(outcome.isError, false, text(outcome));
  equal(await Deno.readTextFile(`${s.root}/x.txt`), "in");
  equal(await exists(`${s.away}/x.txt`), false);
  // Links that stay inside are fine.
  await Deno.mkdir(`${s.root}/real`);
  await Deno.symlink("real/../real", `${s.root}/alias`);
  const inside = await s.ctx.call("write", { file_path: "alias/f.txt", content: "ok" }, s.agent);
  equal(inside.isError, false, text(inside));
  equal(await Deno.readTextFile(`${s.root}/real/f.txt`), "ok");
});
