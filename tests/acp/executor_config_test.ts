/**
 * The `executor` key of dsh.jsonc: its checks (every bad value named), its schema, and workspace
 * trust: an untrusted project may not pick a remote executor, widen `allowNet` or add secrets; the
 * user-level config may.
 */
import { deepEqual, equal, match, ok, throws } from "node:assert/strict";
import { join } from "node:path";
import { configJsonSchema, DEFAULT_CONFIG, loadConfig, parseConfig } from "../../acp/config.ts";
import { gateProject, mergeConfigs } from "../../acp/_trust.ts";
import { recordTrust } from "../../acp/_trust_store.ts";
import { tempDir } from "../_helpers.ts";

const REMOTE = {
  provider: "deno-sandbox",
  region: "ams",
  memory: 2048,
  allowNet: ["registry.npmjs.org", "*.github.com:443"],
  timeout: "45m",
  onSessionEnd: "destroy",
  secrets: { GH_TOKEN: { hosts: ["api.github.com"], fromEnv: "GH_TOKEN" } },
};

const parse = (executor: unknown) => parseConfig(JSON.stringify({ executor }), "dsh.jsonc");

Deno.test("executor defaults to local and parses a full deno-sandbox setting", () => {
  deepEqual(DEFAULT_CONFIG.executor, {
    provider: "local",
    allowNet: [],
    timeout: "30m",
    onSessionEnd: "keep",
    secrets: {},
  });
  deepEqual(parse(REMOTE).executor, REMOTE);
  deepEqual(parse({ provider: "deno-sandbox", allowNet: [] }).executor, {
    provider: "deno-sandbox",
    allowNet: [],
    timeout: "30m",
    onSessionEnd: "keep",
    secrets: {},
  });
  equal(
    parse({ provider: "deno-sandbox", allowNet: [], timeout: "600s" }).executor.timeout,
    "600s",
  );
});

Deno.test("every bad executor value gets its own clear error", () => {
  const cases: [unknown, RegExp][] = [
    ["remote", /"executor" must be an object: received "remote"/],
    [
      { provider: "deno-sndbox", allowNet: [] },
      /"executor.provider" must be one of "local", "deno-sandbox": received "deno-sndbox"; did you mean "deno-sandbox"\?/,
    ],
    [{ provider: "deno-sandbox" }, /"executor.allowNet" is required for provider "deno-sandbox"/],
    [
      { provider: "deno-sandbox", allowNet: "x.com" },
      /"executor.allowNet" must be an array of host names/,
    ],
    [
      { provider: "deno-sandbox", allowNet: ["https://x.com/a"] },
      /"executor.allowNet\[0\]" must be a host name.*no scheme or path/,
    ],
    [
      { provider: "deno-sandbox", allowNet: [], region: "fra" },
      /"executor.region" must be one of "ord", "ams": received "fra"/,
    ],
    [
      { provider: "deno-sandbox", allowNet: [], memory: 512 },
      /"executor.memory" must be a whole number of MiB from 768 to 4096.*received 512/,
    ],
    [
      { provider: "deno-sandbox", allowNet: [], memory: "1GiB" },
      /"executor.memory" must be a whole number/,
    ],
    [
      { provider: "deno-sandbox", allowNet: [], timeout: "2h" },
      /"executor.timeout" must be a positive whole number of seconds or minutes/,
    ],
    [
      { provider: "deno-sandbox", allowNet: [], timeout: "session" },
      /not "session": it would end the sandbox with the agent's connection/,
    ],
    [{ provider: "deno-sandbox", allowNet: [], timeout: "0m" }, /"executor.timeout"/],
    [
      { provider: "deno-sandbox", allowNet: [], onSessionEnd: "kill" },
      /"executor.onSessionEnd" must be one of "destroy", "keep": received "kill"/,
    ],
    [
      { provider: "deno-sandbox", allowNet: [], zone: 1 },
      /unknown key "executor.zone": expected one of provider, region/,
    ],
    [
      { provider: "deno-sandbox", allowNet: [], secrets: [] },
      /"executor.secrets" must be an object of secrets/,
    ],
    [{
      provider: "deno-sandbox",
      allowNet: [],
      secrets: { "A-B": { hosts: ["a.io"], fromEnv: "X" } },
    }, /"executor.secrets" names must be environment variable names.*"A-B"/],
    [
      { provider: "deno-sandbox", allowNet: [], secrets: { A: { hosts: [], fromEnv: "X" } } },
      /"executor.secrets.A.hosts" must name at least one host/,
    ],
    [
      { provider: "deno-sandbox", allowNet: [], secrets: { A: { hosts: ["a.io"] } } },
      /"executor.secrets.A" must have exactly one of "fromEnv".*or "fromFile"/,
    ],
    [{
      provider: "deno-sandbox",
      allowNet: [],
      secrets: { A: { hosts: ["a.io"], fromEnv: "X", fromFile: "/f" } },
    }, /exactly one of/],
    [
      {
        provider: "deno-sandbox",
        allowNet: [],
        secrets: { A: { hosts: ["a.io"], fromEnv: "1X" } },
      },
      /"executor.secrets.A.fromEnv" must be an environment variable name/,
    ],
    [
      { provider: "deno-sandbox", allowNet: [], secrets: { A: { hosts: ["a.io"], value: "sk" } } },
      /unknown key "executor.secrets.A.value"/,
    ],
    [{ region: "ord" }, /"executor.region" applies only to provider "deno-sandbox"/],
    [
      { provider: "local", allowNet: ["x.io"] },
      /"executor.allowNet" applies only to provider "deno-sandbox"/,
    ],
  ];
  for (const [value, pattern] of cases) {
    throws(() => parse(value), pattern, JSON.stringify(value));
  }
  // Several problems at once are numbered, none lost.
  throws(
    () => parse({ provider: "deno-sandbox", allowNet: [], memory: 1, timeout: "x", region: "y" }),
    (error: Error) => {
      match(error.message, /3 problems in "executor"/);
      match(error.message, /memory/);
      match(error.message, /timeout/);
      match(error.message, /region/);
      return true;
    },
  );
});

Deno.test("the schema describes executor with the same limits", () => {
  const schema = configJsonSchema() as { properties: Record<string, Record<string, unknown>> };
  const executor = schema.properties.executor!;
  const properties = executor.properties as Record<string, Record<string, unknown>>;
  deepEqual(properties.provider!.enum, ["local", "deno-sandbox"]);
  equal(properties.memory!.minimum, 768);
  equal(properties.memory!.maximum, 4096);
  equal(executor.additionalProperties, false);
  ok(new RegExp(String(properties.timeout!.pattern)).test("30m"));
  ok(!new RegExp(String(properties.timeout!.pattern)).test("2h"));
});

Deno.test("an untrusted project may not choose a remote executor, widen allowNet or add secrets", () => {
  const gate = gateProject({ executor: REMOTE });
  deepEqual(gate.asked.map((a) => a.key.replace(/:\{.*$/, "")), [
    "executor.provider:deno-sandbox",
    "executor.allowNet:registry.npmjs.org",
    "executor.allowNet:*.github.com:443",
    "executor.secret:GH_TOKEN",
  ]);
  match(gate.asked[0]!.label, /uploads this workspace.*DENO_DEPLOY_TOKEN/);
  match(gate.asked[3]!.label, /GH_TOKEN.*api\.github\.com/);
  equal(gate.restricted.executor, undefined);
  // On the user's own remote provider: a narrower allowNet applies, a wider host asks.
  const user = { executor: { provider: "deno-sandbox", allowNet: ["registry.npmjs.org"] } };
  const narrow = gateProject(
    {
      executor: {
        provider: "deno-sandbox",
        allowNet: ["registry.npmjs.org", "evil.example"],
        memory: 4096,
      },
    },
    user,
  );
  deepEqual(narrow.asked.map((a) => a.key), ["executor.allowNet:evil.example"]);
  deepEqual(narrow.restricted.executor, {
    provider: "deno-sandbox",
    allowNet: ["registry.npmjs.org"],
    memory: 4096,
  });
  // Back to this machine when the user keeps commands off it asks too.
  deepEqual(gateProject({ executor: { provider: "local" } }, user).asked.map((a) => a.key), [
    "executor.provider:local",
  ]);
  // A secret the user already configured identically asks for nothing.
  const secret = { GH_TOKEN: { hosts: ["api.github.com"], fromEnv: "GH_TOKEN" } };
  const same = gateProject(
    { executor: { provider: "deno-sandbox", secrets: secret } },
    { executor: { provider: "deno-sandbox", allowNet: [], secrets: secret } },
  );
  deepEqual(same.asked, []);
  deepEqual(gateProject({ executor: { provider: "local" } }).asked, []);
});

Deno.test("mergeConfigs() merges executor by key on one provider and replaces it across providers", () => {
  const user = {
    executor: {
      provider: "deno-sandbox",
      allowNet: ["a.io"],
      secrets: { A: { hosts: ["a.io"], fromEnv: "A" } },
    },
  };
  deepEqual(
    mergeConfigs(user, {
      executor: {
        provider: "deno-sandbox",
        memory: 1024,
        secrets: { B: { hosts: ["b.io"], fromFile: "/b" } },
      },
    }).executor,
    {
      provider: "deno-sandbox",
      allowNet: ["a.io"],
      memory: 1024,
      secrets: { A: { hosts: ["a.io"], fromEnv: "A" }, B: { hosts: ["b.io"], fromFile: "/b" } },
    },
  );
  deepEqual(mergeConfigs(user, { executor: { provider: "local" } }).executor, {
    provider: "local",
  });
  deepEqual(mergeConfigs(user, {}).executor, user.executor);
});

Deno.test("loadConfig(): the user-level config may pick deno-sandbox; a project needs trust for it", async () => {
  await using dir = await tempDir();
  const xdg = join(dir.path, "xdg");
  const ws = join(dir.path, "ws");
  await Deno.mkdir(join(xdg, "dsh"), { recursive: true });
  await Deno.mkdir(ws);
  const env = (name: string) => ({ HOME: join(dir.path, "home"), XDG_CONFIG_HOME: xdg })[name];
  await Deno.writeTextFile(join(ws, "dsh.jsonc"), JSON.stringify({ executor: REMOTE }));
  const untrusted = await loadConfig(ws, undefined, { env });
  equal(untrusted.config.executor.provider, "local");
  ok(untrusted.trust!.missing.some((item) => item.key === "executor.provider:deno-sandbox"));
  await recordTrust(
    join(xdg, "dsh"),
    untrusted.trust!.folder,
    untrusted.trust!.file,
    untrusted.trust!.asked,
  );
  const trusted = await loadConfig(ws, undefined, { env });
  deepEqual(trusted.trust!.missing, []);
  deepEqual(trusted.config.executor, REMOTE);
  // The user-level config: applies without any grant; relative secret files resolve in its folder.
  await Deno.remove(join(ws, "dsh.jsonc"));
  await Deno.writeTextFile(
    join(xdg, "dsh", "dsh.jsonc"),
    JSON.stringify({
      executor: {
        provider: "deno-sandbox",
        allowNet: [],
        secrets: { K: { hosts: ["k.io"], fromFile: "k.txt" } },
      },
    }),
  );
  const user = await loadConfig(ws, undefined, { env });
  equal(user.config.executor.provider, "deno-sandbox");
  equal(user.config.executor.secrets.K!.fromFile, join(xdg, "dsh", "k.txt"));
});

Deno.test("the README's executor example is a valid config with what it says", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const section = readme.slice(readme.indexOf("## Running tools remotely"));
  const block = /```jsonc\n([\s\S]*?)```/.exec(section)?.[1];
  ok(block !== undefined, "no jsonc block in the section");
  const { executor } = parseConfig(block, "README.md");
  equal(executor.provider, "deno-sandbox");
  equal(executor.memory, 2048);
  deepEqual(Object.keys(executor.secrets), ["GITHUB_TOKEN"]);
});
