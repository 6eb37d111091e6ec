/**
 * Symlinks and "Always allow" (issue 19 item 7): a write through a workspace symlink that lands
 * outside asks (rejected: nothing written), and an "Always allow" for a path outside covers that
 * tool in that real folder only, answered through the ACP session permissions.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { SessionPermissions } from "../../acp/session_permissions.ts";
import type { PermissionRequestWire } from "../../acp/session_permissions.ts";
import { workspacePolicyPlugin } from "../../builtins/workspace_policy.ts";
import type { ApprovalScope, PreExecuteDecision } from "../../registry/hooks.ts";
import type { ToolExecution } from "../../tools/definition.ts";
import { tempDir } from "../_helpers.ts";
import { fakeAgent, fsHarness, text } from "./_fixtures.ts";

/** A workspace and two folders outside it, the policy, and ACP session permissions answering `answers`. */
async function setup(answers: string[], options: { askEveryWrite?: boolean } = {}) {
  const dir = await tempDir();
  const top = await Deno.realPath(dir.path);
  const root = `${top}/ws`;
  await Deno.mkdir(root);
  await Deno.mkdir(`${top}/out1/sub`, { recursive: true });
  await Deno.mkdir(`${top}/out2`);
  const ctx = await fsHarness();
  const asked: PermissionRequestWire[] = [];
  const permissions = new SessionPermissions("s1", (params) => {
    asked.push(params);
    const optionId = answers.shift() ?? "reject_once";
    return Promise.resolve({ outcome: { outcome: "selected", optionId } });
  });
  ctx.provide("approval", {
    request(exec: ToolExecution, o: { reason?: string; scope?: ApprovalScope }) {
      const card = { toolCallId: exec.callId, title: `${exec.name}: ${o.reason ?? ""}` };
      return permissions.ask(exec.name, card, undefined, o.scope);
    },
  });
  // A user rule that asks for every write (before the workspace policy, like acp/main.ts's gate).
  if (options.askEveryWrite) {
    ctx.on(
      "tools/pre-execute",
      (d: PreExecuteDecision, exec: ToolExecution) =>
        d.kind === "allow" && exec.name === "write" ? { kind: "ask" as const } : undefined,
    );
  }
  await ctx.plugin(workspacePolicyPlugin, { root }).ready;
  return {
    ctx,
    top,
    root,
    asked,
    agent: fakeAgent(root),
    async [Symbol.asyncDispose]() {
      await ctx[Symbol.asyncDispose]();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("write build/out.txt through a symlink outside asks; rejected writes nothing", async () => {
  await using s = await setup(["reject_once", "allow_once"]);
  await Deno.symlink(`${s.top}/out1`, `${s.root}/build`);
  const outcome = await s.ctx.call("write", { file_path: "build/out.txt", content: "x" }, s.agent);
  equal(outcome.error?.code, "DENIED", text(outcome));
  equal(s.asked.length, 1);
  equal(
    s.asked[0]?.toolCall.title,
    `write: write of "${s.top}/out1/out.txt" is outside the workspace "${s.root}"`,
  );
  equal(await Deno.lstat(`${s.top}/out1/out.txt`).then(() => true, () => false), false);
  // Approved, it lands where the user was told.
  const again = await s.ctx.call("write", { file_path: "build/out.txt", content: "x" }, s.agent);
  equal(again.isError, false, text(again));
  equal(await Deno.readTextFile(`${s.top}/out1/out.txt`), "x");
});

Deno.test("Always allow for a read outside covers that real folder only, not the tool", async () => {
  await using s = await setup(["allow_always", "allow_always", "reject_once", "reject_once"]);
  for (const name of ["out1/a", "out1/b", "out1/sub/c", "out2/d"]) {
    await Deno.writeTextFile(`${s.top}/${name}`, name.slice(-1));
  }
  await Deno.symlink(`${s.top}/out1`, `${s.root}/l1`);
  await Deno.symlink(`${s.top}/out2`, `${s.root}/l2`);
  await Deno.symlink(`${s.top}/out1/b`, `${s.root}/lb`);
  const read = async (file_path: string) => {
    const outcome = await s.ctx.call("read", { file_path }, s.agent);
    return outcome.isError ? `error ${outcome.error?.code}` : text(outcome).split("\n")[3];
  };
  equal(await read("l1/a"), "1: a"); // asks (1): allowed always for out1
  equal(s.asked[0]?.options[1]?.name, `Always allow read in "${s.top}/out1" (this folder only)`);
  equal(await read("lb"), "1: b"); // another symlink into out1: silent
  equal(await read(`${s.top}/out1/a`), "1: a"); // out1 named directly: silent
  equal(s.asked.length, 1);
  equal(await read("l2/d"), "1: d"); // another outside folder through another symlink: asks (2)
  equal(s.asked.length, 2);
  equal(await read("l1/sub/c"), "error DENIED"); // a subfolder is another folder: asks (3)
  equal(s.asked.length, 3);
  // The remembered folder is per tool: a write there asks.
  const write = await s.ctx.call("write", { file_path: "l1/new", content: "x" }, s.agent);
  equal(write.error?.code, "DENIED");
  equal(s.asked.length, 4);
  deepEqual(s.asked.map((a) => a.toolCall.title.split(":")[0]), ["read", "read", "read", "write"]);
});

Deno.test("a tool-wide Always allow from a permission rule never covers a write outside", async () => {
  await using s = await setup(["allow_always", "reject_once"], { askEveryWrite: true });
  await Deno.symlink(`${s.top}/out1`, `${s.root}/build`);
  const inside = await s.ctx.call("write", { file_path: "a.txt", content: "1" }, s.agent);
  equal(inside.isError, false, text(inside));
  equal(s.asked.length, 1); // the rule's ask, allowed always for the tool
  const again = await s.ctx.call("write", { file_path: "b.txt", content: "2" }, s.agent);
  equal(again.isError, false);
  equal(s.asked.length, 1); // remembered
  const outside = await s.ctx.call("write", { file_path: "build/out.txt", content: "x" }, s.agent);
  equal(outside.error?.code, "DENIED", text(outside));
  equal(s.asked.length, 2);
  ok(s.asked[1]?.toolCall.title.includes("is outside the workspace"));
  equal(await Deno.lstat(`${s.top}/out1/out.txt`).then(() => true, () => false), false);
});

Deno.test("a call approved for one real path fails with FS_CHANGED when it reaches another", async () => {
  await using s = await setup([]);
  await Deno.writeTextFile(`${s.top}/out1/a`, "approved");
  await Deno.writeTextFile(`${s.top}/out2/a`, "never");
  await Deno.symlink(`${s.top}/out1`, `${s.root}/l`);
  // The user approves, and while they were asked the link was pointed elsewhere.
  s.ctx.provide("approval", {
    async request() {
      await Deno.remove(`${s.root}/l`);
      await Deno.symlink(`${s.top}/out2`, `${s.root}/l`);
      return "allowed-once";
    },
  });
  const outcome = await s.ctx.call("read", { file_path: "l/a" }, s.agent);
  equal(outcome.error?.code, "FS_CHANGED", text(outcome));
  ok(text(outcome).includes(`it now reaches "${s.top}/out2/a"`), text(outcome));
  ok(!text(outcome).includes("never"));
});

Deno.test("Always allow in a hidden folder outside covers that file only", async () => {
  await using s = await setup(["allow_always", "reject_once"]);
  await Deno.mkdir(`${s.top}/out1/.ssh`);
  await Deno.writeTextFile(`${s.top}/out1/.ssh/config`, "Host x\n");
  await Deno.writeTextFile(`${s.top}/out1/.ssh/id_rsa`, "PRIVATE KEY\n");
  await Deno.symlink(`${s.top}/out1/.ssh`, `${s.root}/keys`);
  const config = await s.ctx.call("read", { file_path: "keys/config" }, s.agent);
  equal(config.isError, false, text(config));
  equal(
    s.asked[0]?.options[1]?.name,
    `Always allow read of "${s.top}/out1/.ssh/config" (this file only)`,
  );
  const again = await s.ctx.call("read", { file_path: "keys/config" }, s.agent);
  equal(again.isError, false);
  equal(s.asked.length, 1);
  const key = await s.ctx.call("read", { file_path: "keys/id_rsa" }, s.agent);
  equal(key.error?.code, "DENIED");
  equal(s.asked.length, 2);
  ok(!text(key).includes("PRIVATE KEY"));
});
