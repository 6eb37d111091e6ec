/**
 * The trust rules without a process: what a project config asks for, what applies without
 * trust, how a grant covers a later request, the layered load (user-level config, XDG folders,
 * `--config` outside the workspace), the endpoint rule and the protected trust records.
 */
import { deepEqual, equal, match, ok, rejects, throws } from "node:assert/strict";
import { join } from "node:path";
import { gateProject, mergeConfigs, notGranted, requestDigest } from "../../acp/_trust.ts";
import { endpointProblem, modelBaseUrl } from "../../acp/_model_endpoint.ts";
import { DEFAULT_CONFIG, loadConfig, parseConfig } from "../../acp/config.ts";
import { recordTrust } from "../../acp/_trust_store.ts";
import { agentProtectedPaths } from "../../acp/_trust_guard.ts";
import { fsPlugin, workspacePolicyPlugin } from "../../builtins/mod.ts";
import { createHarness } from "../../mod.ts";
import { fakeAgent } from "../builtins/_fixtures.ts";
import { userConfigDir, userStateDir } from "../../core/user_dirs.ts";
import { tempDir } from "../_helpers.ts";

const WIDE = {
  plugins: ["./p.ts"],
  mcpServers: { s: { command: "srv", args: ["--x"] } },
  model: { baseUrl: "https://example.com", model: "deepseek-v4-pro", thinking: "disabled" },
  sandbox: "danger-full-access",
  roots: ["../o"],
  hiddenPaths: ["!~/.ssh", "~/.extra"],
  env: { inherit: "all", include: ["GH_*"], exclude: ["AWS_*"], set: { LD_PRELOAD: "x" } },
  allowRun: ["git"],
  permissions: [
    { tool: "bash", decision: "deny", args: { command: "rm *" } },
    { tool: "*", decision: "allow" },
    { tool: "write", decision: "ask" },
  ],
  defaultDecision: "allow",
  sessionsDir: "/tmp/elsewhere",
  toolMode: "code",
  tools: { deny: ["run_code"] },
};

Deno.test("gateProject() asks for everything that runs code or widens access and keeps what narrows", () => {
  const { asked, restricted } = gateProject(WIDE, { defaultDecision: "ask" });
  deepEqual(asked.map((a) => a.key.split(":")[0]).sort(), [
    "allow",
    "allowRun",
    "defaultDecision",
    "env.include",
    "env.set",
    "mcp",
    "model.baseUrl",
    "plugin",
    "root",
    "sandbox",
    "sessionsDir",
    "unhide",
  ]);
  deepEqual(restricted, {
    model: { model: "deepseek-v4-pro", thinking: "disabled" },
    hiddenPaths: ["~/.extra"],
    env: { exclude: ["AWS_*"], inherit: "all" },
    permissions: [
      { tool: "bash", decision: "deny", args: { command: "rm *" } },
      { tool: "write", decision: "ask" },
    ],
    toolMode: "code",
    tools: { deny: ["run_code"] },
  });
  // What it keeps parses, and keeps the sandbox and the endpoint at their defaults.
  const config = parseConfig(JSON.stringify(restricted), "x");
  equal(config.sandbox, "auto");
  equal(config.model.baseUrl, "https://api.deepseek.com");
});

Deno.test("gateProject() compares levels with the user-level config", () => {
  equal(gateProject({ sandbox: "read-only" }).asked.length, 0);
  equal(gateProject({ sandbox: "workspace-write" }).asked.length, 0);
  equal(gateProject({ sandbox: "workspace-write" }, { sandbox: "read-only" }).asked.length, 1);
  equal(gateProject({ sandbox: "off" }, { sandbox: "danger-full-access" }).asked.length, 0);
  equal(gateProject({ env: { inherit: "core" } }, { env: { inherit: "none" } }).asked.length, 1);
  equal(gateProject({ env: { inherit: "none" } }).asked.length, 0);
  equal(gateProject({ defaultDecision: "allow" }).asked.length, 0);
  equal(
    gateProject({ model: { baseUrl: "https://a.example" } }, {
      model: { baseUrl: "https://a.example" },
    }).asked.length,
    0,
  );
});

Deno.test("a grant covers the same or a smaller request; a new or changed item asks again", async () => {
  const granted = gateProject(WIDE).asked.map((a) => a.key);
  deepEqual(notGranted(granted, gateProject(WIDE).asked), []);
  deepEqual(notGranted(granted, gateProject({ ...WIDE, roots: [] }).asked), []);
  const changed = gateProject({ ...WIDE, mcpServers: { s: { command: "srv", args: ["--y"] } } });
  deepEqual(notGranted(granted, changed.asked).map((a) => a.key.split(":")[0]), ["mcp"]);
  const more = gateProject({ ...WIDE, plugins: ["./p.ts", "./q.ts"] });
  deepEqual(notGranted(granted, more.asked).map((a) => a.key), ["plugin:./q.ts"]);
  // The digest ignores order and repeats.
  const { asked } = gateProject(WIDE);
  equal(await requestDigest(asked), await requestDigest([...asked].reverse()));
  ok((await requestDigest(asked)) !== (await requestDigest(more.asked)));
});

Deno.test("mergeConfigs() puts the project on the user's config, the user's rules first", () => {
  const merged = mergeConfigs(
    { model: { model: "deepseek-v4-pro" }, permissions: [{ tool: "a", decision: "deny" }] },
    { model: { thinking: "disabled" }, permissions: [{ tool: "b", decision: "ask" }] },
  );
  deepEqual(merged, {
    model: { model: "deepseek-v4-pro", thinking: "disabled" },
    permissions: [{ tool: "a", decision: "deny" }, { tool: "b", decision: "ask" }],
  });
});

Deno.test("model endpoints: https anywhere, http only on loopback, for model.baseUrl and DEEPSEEK_BASE_URL", () => {
  for (const ok_ of ["https://api.deepseek.com", "https://proxy.example:8443/v1"]) {
    equal(endpointProblem(ok_), undefined, ok_);
  }
  for (
    const loop of [
      "http://127.0.0.1:8080",
      "http://127.9.0.1",
      "http://localhost:1",
      "http://[::1]:9",
    ]
  ) {
    equal(endpointProblem(loop), undefined, loop);
  }
  for (const bad of ["http://10.0.0.1", "http://example.com", "http://128.0.0.1", "ftp://x"]) {
    ok(endpointProblem(bad), bad);
  }
  throws(() => parseConfig('{"model": {"baseUrl": "http://example.com"}}', "dsh.jsonc"), {
    message:
      'Cannot read config "dsh.jsonc": "model.baseUrl" must be an https URL, or http on loopback (localhost, 127.0.0.0/8, ::1), since it receives the API key and the conversation: received "http://example.com"',
  });
  throws(() => modelBaseUrl(DEFAULT_CONFIG, () => "http://192.168.1.9:80"), /DEEPSEEK_BASE_URL/);
});

Deno.test("user folders follow XDG, relative XDG values are ignored", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  equal(userConfigDir(env({ HOME: "/h" })), "/h/.config/dsh");
  equal(userConfigDir(env({ HOME: "/h", XDG_CONFIG_HOME: "/x/" })), "/x/dsh");
  equal(userConfigDir(env({ HOME: "/h", XDG_CONFIG_HOME: "rel" })), "/h/.config/dsh");
  equal(userStateDir(env({ HOME: "/h", XDG_STATE_HOME: "/s" })), "/s/dsh");
  throws(() => userConfigDir(env({})), /HOME is not set/);
});

Deno.test("loadConfig() layers the user-level config under an untrusted project, then the trusted one", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const ws = join(dir.path, "ws");
  const xdg = join(dir.path, "xdg");
  await Deno.mkdir(join(xdg, "dsh"), { recursive: true });
  await Deno.mkdir(ws);
  const env = (name: string) => ({ HOME: home, XDG_CONFIG_HOME: xdg })[name];
  await Deno.writeTextFile(
    join(xdg, "dsh", "dsh.jsonc"),
    '{ "model": { "baseUrl": "https://mine.example", "model": "deepseek-v4-pro" } }',
  );
  await Deno.writeTextFile(join(ws, "dsh.jsonc"), JSON.stringify(WIDE));
  const first = await loadConfig(ws, undefined, { env });
  equal(first.config.model.baseUrl, "https://mine.example");
  equal(first.config.model.model, "deepseek-v4-pro");
  equal(first.config.sandbox, "auto");
  deepEqual(first.config.plugins, []);
  deepEqual(first.config.mcpServers, {});
  equal(first.config.toolMode, "code");
  equal(first.trust?.missing.length, first.trust?.asked.length);
  await recordTrust(join(xdg, "dsh"), first.trust!.folder, first.trust!.file, first.trust!.asked);
  const second = await loadConfig(ws, undefined, { env });
  deepEqual(second.trust?.missing, []);
  equal(second.config.sandbox, "danger-full-access");
  equal(second.config.model.baseUrl, "https://example.com");
  deepEqual(second.config.plugins, ["./p.ts"]);
  // A config named outside the workspace is the user's choice: it applies whole.
  const outside = join(dir.path, "mine.jsonc");
  await Deno.writeTextFile(outside, JSON.stringify(WIDE));
  const named = await loadConfig(join(dir.path, "elsewhere"), outside, { env });
  equal(named.trust, undefined);
  equal(named.config.sandbox, "danger-full-access");
  // A bad user-level config is an error naming its file.
  await Deno.writeTextFile(join(xdg, "dsh", "dsh.jsonc"), '{ "sandbox": "none" }');
  await rejects(loadConfig(ws, undefined, { env }), /xdg\/dsh\/dsh\.jsonc.*"sandbox" must be/);
});

Deno.test("the fs tools may not read or write the user's dsh folders, links resolved", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  await Deno.mkdir(join(ws, "src"), { recursive: true });
  const env = (name: string) => ({ HOME: dir.path })[name];
  const paths = agentProtectedPaths({ roots: [ws], configFile: join(ws, "dsh.jsonc"), env });
  await Deno.mkdir(join(dir.path, ".config", "dsh"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, ".config", "dsh", "deepseek.key"), "sk-secret\n");
  await Deno.symlink(join(dir.path, ".config"), join(ws, "cfg"));
  // The agent's fs tools and workspace policy, as loadBuiltins composes them.
  const ctx = await createHarness({ logSink: () => {} });
  await ctx.plugin(fsPlugin).ready;
  await ctx.plugin(workspacePolicyPlugin, { protectedPaths: paths }).ready;
  let n = 0;
  const call = (name: string, args: Record<string, string>) =>
    ctx.tools.execute({ callId: `c${++n}`, name, arguments: args, agent: fakeAgent(ws) });
  try {
    for (
      const [name, args] of [
        ["write", { file_path: join(dir.path, ".config/dsh/trusted.json"), content: "{}" }],
        ["edit", { file_path: "cfg/dsh/dsh.jsonc", old_string: "a", new_string: "b" }],
        ["write", { file_path: join(dir.path, ".local/state/dsh/x.jsonl"), content: "{}" }],
        ["read", { file_path: join(dir.path, ".config/dsh/deepseek.key") }],
        ["read", { file_path: "cfg/dsh/deepseek.key" }],
      ] as const
    ) {
      const outcome = await call(name, args);
      equal(outcome.error?.code, "DENIED", `${name} ${args.file_path}`);
      match(JSON.stringify(outcome.content), /is denied: the user's dsh (config|state)/);
    }
    equal((await call("write", { file_path: "src/a.ts", content: "x\n" })).isError, false);
    equal((await call("read", { file_path: "src/a.ts" })).isError, false);
    equal(
      await Deno.stat(join(dir.path, ".config/dsh/trusted.json")).catch(() => undefined),
      undefined,
    );
    equal(paths.find(join(ws, "dsh.jsonc"))?.decision, undefined); // asks (fs tools), not denied
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("an untrusted config's local plugin files are protected before the folder is trusted", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  await Deno.mkdir(join(ws, "tools"), { recursive: true });
  await Deno.writeTextFile(join(ws, "tools", "p.ts"), "export function apply() {}\n");
  await Deno.writeTextFile(
    join(ws, "dsh.jsonc"),
    JSON.stringify({ plugins: ["./tools/p.ts", "npm:some-plugin@1"] }),
  );
  const env = (name: string) => ({ HOME: dir.path })[name];
  const { trust } = await loadConfig(ws, undefined, { env });
  ok(trust !== undefined && trust.missing.length > 0, "the folder is not trusted");
  const paths = agentProtectedPaths({ roots: [ws], configFile: trust.file, env, trust });
  match(paths.find(join(ws, "tools", "p.ts"))?.reason ?? "", /plugin file this folder's config/);
  equal(paths.find(join(ws, "tools", "other.ts")), undefined);
});
