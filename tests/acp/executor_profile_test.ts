/**
 * The agent's Deno permission profile with `"executor": {"provider": "deno-sandbox"}`: the
 * pinned SDK runs under exactly the flags `permissionFlags` computes (create, file write, detach,
 * reattach, destroy against DENO_SANDBOX_ENDPOINT), and without the executor's grants it is
 * refused. The launcher moves DENO_DEPLOY_TOKEN to the stdin secrets line.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { DEFAULT_CONFIG, parseConfig } from "../../acp/config.ts";
import { permissionFlags } from "../../acp/permissions.ts";
import { agentCommand } from "../../acp/launch.ts";
import { compileFlags } from "../../acp/_compile.ts";
import { executorGrants } from "../../acp/_executor_permissions.ts";
import { tempDir } from "../_helpers.ts";
import { startSandboxStandIn } from "../../testing/mod.ts";

const PROBE = new URL("./_sandbox_sdk_probe.ts", import.meta.url).pathname;
const REMOTE = parseConfig(
  JSON.stringify({
    executor: {
      provider: "deno-sandbox",
      allowNet: [],
      secrets: { GH: { hosts: ["api.github.com"], fromEnv: "GH_TOKEN" } },
    },
    // A narrow env policy, so --allow-env lists names (the default grants all of it).
    env: { inherit: "core" },
  }),
  "dsh.jsonc",
);

async function runProbe(
  flags: readonly string[],
  endpoint: string,
  token: string,
): Promise<string> {
  const { stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", ...flags, PROBE],
    env: { DENO_SANDBOX_ENDPOINT: endpoint, DENO_DEPLOY_TOKEN: token },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
}

Deno.test("the SDK runs under the profile permissionFlags computes for deno-sandbox, and not without it", async () => {
  await using dir = await tempDir();
  await using standIn = await startSandboxStandIn();
  const endpoint = { url: standIn.endpoint };
  const base = {
    roots: [dir.path],
    sessionsDir: `${dir.path}/s`,
    useDeepSeek: false,
    denoPath: Deno.execPath(),
    keyDir: `${dir.path}/k`,
  };
  const flags = permissionFlags(REMOTE, { ...base, sandboxEndpoint: { endpoint: endpoint.url } });
  const host = endpoint.url.slice("http://".length);
  ok(flags.includes(`--allow-net=${host}`), flags.join(" "));
  const env = flags.find((f) => f.startsWith("--allow-env="))!;
  for (
    const name of ["DENO_DEPLOY_TOKEN", "DENO_DEPLOY_ORG", "DENO_SANDBOX_ENDPOINT", "GH_TOKEN"]
  ) {
    ok(env.split(/[=,]/).includes(name), `${name} in ${env}`);
  }
  const ran = await runProbe(flags, endpoint.url, standIn.token);
  match(ran, /^ok sbx_ord_\w{20}$/m);
  equal(standIn.sandboxes()[0]?.ended, "killed", ran);
  // The same profile for a local executor: the SDK cannot even load (its dependencies read
  // variables at import time), let alone reach the endpoint.
  const local = permissionFlags({ ...REMOTE, executor: DEFAULT_CONFIG.executor }, base);
  const refused = await runProbe(local, endpoint.url, standIn.token);
  match(refused, /NotCapable: Requires (net|env) access/);
  ok(!refused.includes("ok sbx_"), refused);
});

Deno.test("executorGrants(): the SDK's API hosts for every region by default, the endpoint's when set", () => {
  deepEqual(executorGrants(DEFAULT_CONFIG.executor, {}, "/w"), { net: [], env: [], read: [] });
  deepEqual(executorGrants(REMOTE.executor, {}, "/w").net, [
    "ord.sandbox-api.deno.net:443",
    "ams.sandbox-api.deno.net:443",
  ]);
  deepEqual(executorGrants(REMOTE.executor, { baseDomain: "sbx.example" }, "/w").net, [
    "ord.sbx.example:443",
    "ams.sbx.example:443",
  ]);
  deepEqual(executorGrants(REMOTE.executor, { endpoint: "https://sbx.example" }, "/w").net, [
    "sbx.example:443",
  ]);
  const files = parseConfig(
    JSON.stringify({
      executor: {
        provider: "deno-sandbox",
        allowNet: [],
        secrets: {
          A: { hosts: ["a.io"], fromFile: "a.key" },
          B: { hosts: ["b.io"], fromFile: "~/.b" },
        },
      },
    }),
    "x",
  );
  deepEqual(executorGrants(files.executor, {}, "/w", "/home/u").read, ["/w/a.key", "/home/u/.b"]);
});

Deno.test("the launcher moves DENO_DEPLOY_TOKEN and fromEnv secrets to stdin for deno-sandbox only", async () => {
  await using dir = await tempDir();
  const env = (name: string) =>
    ({ HOME: `${dir.path}/home`, DENO_SANDBOX_ENDPOINT: "http://127.0.0.1:9" })[name];
  await Deno.writeTextFile(`${dir.path}/dsh.jsonc`, "{}");
  const local = await agentCommand(dir.path, [], env);
  deepEqual(local.stdinSecrets, []);
  ok(!local.args.some((a) => a.includes("127.0.0.1:9")));
  // A user-level config (trusted) chooses deno-sandbox.
  await Deno.mkdir(`${dir.path}/home/.config/dsh`, { recursive: true });
  await Deno.writeTextFile(
    `${dir.path}/home/.config/dsh/dsh.jsonc`,
    JSON.stringify({ executor: REMOTE.executor }),
  );
  const remote = await agentCommand(dir.path, [], env);
  deepEqual(remote.stdinSecrets, ["DENO_DEPLOY_TOKEN", "GH_TOKEN"]);
  const net = remote.args.find((a) => a.startsWith("--allow-net="));
  equal(net, "--allow-net=127.0.0.1:9");
});

Deno.test("the compiled profile bakes in the sandbox API host and the SDK's variables", () => {
  const flags = compileFlags({
    baseUrl: "https://api.deepseek.com",
    output: "dist/dsh-agent",
    config: REMOTE,
    workspace: "/w",
    sandboxEndpoint: { endpoint: "https://sbx.example:8443" },
  });
  equal(
    flags.find((f) => f.startsWith("--allow-net=")),
    "--allow-net=api.deepseek.com:443,sbx.example:8443",
  );
  ok(flags.find((f) => f.startsWith("--allow-env="))!.includes("DENO_DEPLOY_TOKEN"));
  const local = compileFlags({
    baseUrl: "https://api.deepseek.com",
    output: "dist/dsh-agent",
    config: { ...REMOTE, executor: DEFAULT_CONFIG.executor },
    workspace: "/w",
  });
  equal(local.find((f) => f.startsWith("--allow-net=")), "--allow-net=api.deepseek.com:443");
});
