import { equal } from "node:assert/strict";
import { workspacePolicyPlugin } from "../../builtins/workspace_policy.ts";
import { tempDir } from "../_helpers.ts";
import { fakeAgent, fsHarness, text } from "./_fixtures.ts";

Deno.test("workspacePolicyPlugin denies paths outside the workspace when configured to", async () => {
  await using ctx = await fsHarness();
  await using ws = await tempDir();
  await using outside = await tempDir();
  const root = await Deno.realPath(ws.path);
  const out = await Deno.realPath(outside.path);
  await ctx.plugin(workspacePolicyPlugin, { root, outside: "deny" }).ready;
  await Deno.writeTextFile(`${out}/secret`, "s");
  const agent = fakeAgent(root);
  equal(
    text(await ctx.call("read", { file_path: `${out}/secret` }, agent)),
    `Error: read of "${out}/secret" is outside the workspace "${root}"`,
  );
  equal(
    text(await ctx.call("write", { file_path: "../x", content: "" }, agent)),
    `Error: write of "${
      root.slice(0, root.lastIndexOf("/"))
    }/x" is outside the workspace "${root}"`,
  );
  equal(
    (await ctx.call("write", { file_path: "inside.txt", content: "ok" }, agent)).isError,
    false,
  );
});

Deno.test("workspacePolicyPlugin treats a symlink out of the workspace as outside", async () => {
  await using ctx = await fsHarness();
  await using ws = await tempDir();
  await using outside = await tempDir();
  const root = await Deno.realPath(ws.path);
  const out = await Deno.realPath(outside.path);
  await Deno.symlink(out, `${root}/link`);
  await Deno.writeTextFile(`${out}/f`, "x");
  await ctx.plugin(workspacePolicyPlugin, { root, outside: "deny" }).ready;
  equal(
    text(await ctx.call("read", { file_path: `${root}/link/f` })),
    `Error: read of "${out}/f" is outside the workspace "${root}"`,
  );
});

Deno.test("workspacePolicyPlugin asks by default (denied without an approval channel)", async () => {
  await using ctx = await fsHarness();
  await using ws = await tempDir();
  await ctx.plugin(workspacePolicyPlugin, { root: ws.path }).ready;
  const outcome = await ctx.call("read", { file_path: "/etc/hostname" }, fakeAgent(ws.path));
  equal(outcome.isError, true);
  equal(outcome.error?.code, "DENIED");
});

Deno.test("workspacePolicyPlugin loaded before ctx.tools waits for it, then denies", async () => {
  const { Context } = await import("../../core/mod.ts");
  const { toolsPlugin } = await import("../../registry/mod.ts");
  const { fsPlugin } = await import("../../builtins/mod.ts");
  await using ws = await tempDir();
  await using outside = await tempDir();
  const root = await Deno.realPath(ws.path);
  const out = await Deno.realPath(outside.path);
  await Deno.writeTextFile(`${out}/secret`, "s");
  const ctx = new Context({ logSink: () => {} });
  try {
    const policy = ctx.plugin(workspacePolicyPlugin, { root, outside: "deny" });
    equal(policy.state, "pending", "it waits for the tools service instead of throwing");
    ctx.plugin(toolsPlugin);
    await policy.ready;
    await ctx.plugin(fsPlugin).ready;
    const tools = ctx.get<import("../../registry/mod.ts").ToolRegistry>("tools")!;
    const outcome = await tools.execute({
      callId: "c1",
      name: "read",
      arguments: { file_path: `${out}/secret` },
      agent: fakeAgent(root),
    });
    equal(text(outcome), `Error: read of "${out}/secret" is outside the workspace "${root}"`);
  } finally {
    await ctx.fiber.dispose();
  }
});
