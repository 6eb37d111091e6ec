/**
 * Protected paths in the fs tools (issue 19, Deliver 2): `write` and `edit` of the files the
 * agent trusts or executes ask, naming why, even inside the workspace; a deny entry denies; a
 * rejected ask writes nothing; a workspace symlink to `.git` is protected too.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { ProtectedPaths } from "../../builtins/protected_paths.ts";
import { workspacePolicyPlugin } from "../../builtins/workspace_policy.ts";
import type { ApprovalOutcome, ApprovalScope } from "../../registry/hooks.ts";
import type { ToolExecution } from "../../tools/definition.ts";
import { tempDir } from "../_helpers.ts";
import { fakeAgent, fsHarness, text } from "./_fixtures.ts";

interface Asked {
  readonly tool: string;
  readonly reason: string | undefined;
  readonly scope: ApprovalScope | undefined;
}

/** A workspace with the fs tools, the policy and an approval channel that answers `answer`. */
async function setup(options: { protectedPaths?: (root: string) => ProtectedPaths } = {}) {
  const ws = await tempDir();
  const root = await Deno.realPath(ws.path);
  const ctx = await fsHarness();
  const asked: Asked[] = [];
  const state = { answer: "rejected" as ApprovalOutcome };
  ctx.provide("approval", {
    request(exec: ToolExecution, o: { reason?: string; scope?: ApprovalScope }) {
      asked.push({ tool: exec.name, reason: o.reason, scope: o.scope });
      return Promise.resolve(state.answer);
    },
  });
  const protectedPaths = options.protectedPaths?.(root);
  await ctx.plugin(workspacePolicyPlugin, { root, ...(protectedPaths ? { protectedPaths } : {}) })
    .ready;
  return {
    ctx,
    root,
    asked,
    state,
    agent: fakeAgent(root),
    async [Symbol.asyncDispose]() {
      await ctx[Symbol.asyncDispose]();
      await ws[Symbol.asyncDispose]();
    },
  };
}

const read = (path: string) => Deno.readTextFile(path).catch(() => undefined);

Deno.test("write of a protected path asks with the reason even inside the workspace; rejected writes nothing", async () => {
  await using s = await setup({
    protectedPaths: (root) => {
      const paths = new ProtectedPaths([root]);
      paths.set("plugin:x", [{
        path: `${root}/tools/x.ts`,
        reason: "a plugin file the agent loads",
      }]);
      return paths;
    },
  });
  const cases: [string, string][] = [
    ["dsh.jsonc", "the agent's project config"],
    [".git/config", "git runs its config and hooks on the host"],
    [".git/hooks/pre-commit", "git runs its config and hooks on the host"],
    [".vscode/settings.json", "editor settings the editor acts on"],
    ["tools/x.ts", "a plugin file the agent loads"],
  ];
  for (const [name, why] of cases) {
    s.asked.length = 0;
    const outcome = await s.ctx.call("write", { file_path: name, content: "pwned" }, s.agent);
    equal(outcome.isError, true, text(outcome));
    equal(outcome.error?.code, "DENIED");
    deepEqual(s.asked, [{
      tool: "write",
      reason: `write of "${s.root}/${name}" needs your approval: ${why}`,
      scope: { key: `protected:${s.root}/${name}`, label: `write of "${s.root}/${name}"` },
    }]);
    equal(await read(`${s.root}/${name}`), undefined, `${name} was written`);
  }
  // Approved once, the write goes through.
  s.state.answer = "allowed-once";
  const outcome = await s.ctx.call(
    "write",
    { file_path: ".git/config", content: "[core]\n" },
    s.agent,
  );
  equal(outcome.isError, false, text(outcome));
  equal(await read(`${s.root}/.git/config`), "[core]\n");
});

Deno.test("edit of a protected path asks; rejected leaves the file as it was", async () => {
  await using s = await setup();
  await Deno.mkdir(`${s.root}/.git`);
  await Deno.writeTextFile(`${s.root}/.git/config`, "[core]\n\tbare = false\n");
  const args = {
    file_path: ".git/config",
    old_string: "bare = false",
    new_string: "fsmonitor = x",
  };
  const outcome = await s.ctx.call("edit", args, s.agent);
  equal(outcome.error?.code, "DENIED", text(outcome));
  equal(
    s.asked[0]?.reason,
    `edit of "${s.root}/.git/config" needs your approval: git runs its config and hooks on the host`,
  );
  equal(await read(`${s.root}/.git/config`), "[core]\n\tbare = false\n");
  // Reads of protected paths do not ask.
  s.asked.length = 0;
  const seen = await s.ctx.call("read", { file_path: ".git/config" }, s.agent);
  equal(seen.isError, false, text(seen));
  deepEqual(s.asked, []);
});

Deno.test("a deny entry denies without asking; the defaults apply when no instance is given", async () => {
  await using s = await setup({
    protectedPaths: (root) => {
      const paths = new ProtectedPaths([]);
      paths.set("user", [{
        path: `${root}/keys`,
        reason: "the user's trust records",
        decision: "deny",
      }]);
      return paths;
    },
  });
  const outcome = await s.ctx.call(
    "write",
    { file_path: "keys/trust.json", content: "{}" },
    s.agent,
  );
  equal(outcome.error?.code, "DENIED");
  equal(
    text(outcome),
    `Error: write of "${s.root}/keys/trust.json" is denied: the user's trust records`,
  );
  deepEqual(s.asked, []);
  equal(await read(`${s.root}/keys/trust.json`), undefined);
  // A deny entry denies reads too (it holds keys); other protected paths are read freely.
  await Deno.mkdir(`${s.root}/keys`);
  await Deno.writeTextFile(`${s.root}/keys/api.key`, "sk-secret\n");
  const key = await s.ctx.call("read", { file_path: "keys/api.key" }, s.agent);
  equal(key.error?.code, "DENIED");
  equal(text(key), `Error: read of "${s.root}/keys/api.key" is denied: the user's trust records`);
  deepEqual(s.asked, []);
  // The instance has no defaults, but the workspace root's own are always checked.
  const config = await s.ctx.call("write", { file_path: "dsh.jsonc", content: "{}" }, s.agent);
  equal(config.error?.code, "DENIED");
  equal(s.asked.length, 1);
  equal(await read(`${s.root}/dsh.jsonc`), undefined);
});

Deno.test("a workspace symlink to .git is protected: the resolved target is checked", async () => {
  await using s = await setup();
  await Deno.mkdir(`${s.root}/.git/hooks`, { recursive: true });
  await Deno.symlink(".git", `${s.root}/g`);
  await Deno.symlink(".git/hooks/pre-commit", `${s.root}/hook`);
  for (const name of ["g/config", "g/hooks/post-checkout", "hook"]) {
    s.asked.length = 0;
    const outcome = await s.ctx.call(
      "write",
      { file_path: name, content: "#!/bin/sh\nid\n" },
      s.agent,
    );
    equal(outcome.error?.code, "DENIED", `${name}: ${text(outcome)}`);
    equal(s.asked.length, 1, name);
    ok(s.asked[0]?.reason?.startsWith(`write of "${s.root}/.git/`), s.asked[0]?.reason);
    ok(s.asked[0]?.reason?.endsWith("git runs its config and hooks on the host"));
  }
  deepEqual([...Deno.readDirSync(`${s.root}/.git/hooks`)], []);
  equal(await read(`${s.root}/.git/config`), undefined);
});

Deno.test("paths added to the instance after the policy applied are protected at once", async () => {
  const paths = new ProtectedPaths([]);
  await using s = await setup({ protectedPaths: () => paths });
  await Deno.writeTextFile(`${s.root}/plugin.ts`, "export {};\n");
  const before = await s.ctx.call("read", { file_path: "plugin.ts" }, s.agent);
  equal(before.isError, false);
  paths.set("plugin:p", [{ path: `${s.root}/plugin.ts`, reason: "a plugin file" }]);
  const outcome = await s.ctx.call("write", { file_path: "plugin.ts", content: "evil" }, s.agent);
  equal(outcome.error?.code, "DENIED");
  equal(s.asked[0]?.reason, `write of "${s.root}/plugin.ts" needs your approval: a plugin file`);
  equal(await read(`${s.root}/plugin.ts`), "export {};\n");
});
