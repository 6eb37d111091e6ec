/**
 * Lifetime bench.
 *
 * - `contain`: one `LocalExecutor.run("true")` in its own PID namespace (setpriv + unshare + init)
 *   against the tracked fallback (setsid, then a process-table scan for stragglers).
 * - `agent stop`: the real agent (acp/main.ts, sandbox "off" and "workspace-write", its real
 *   permission profile) runs four (five with one ignoring SIGTERM)
 *   background jobs whose descendants escape by setsid, double fork and a cleared environment;
 *   the time from SIGTERM until no marked process is left (target < 2 s).
 *
 * `deno bench -A bench/lifetime_bench.ts`.
 */
import { client } from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { LocalExecutor } from "../builtins/local_executor.ts";
import { spawnAgentProcess } from "../acp/_agent_process.ts";
import { parseConfig } from "../acp/config.ts";
import { permissionFlags } from "../acp/permissions.ts";

const namespaced = new LocalExecutor();
const tracked = new LocalExecutor({ pidNamespace: false });
await namespaced.run("true");

Deno.bench("contain: run `true` tracked by group and marker", {
  group: "contain",
  baseline: true,
}, async () => {
  await tracked.run("true");
});

Deno.bench("contain: run `true` in its own PID namespace", { group: "contain" }, async () => {
  await namespaced.run("true");
});

function marked(token: string): number {
  let count = 0;
  for (const entry of Deno.readDirSync("/proc")) {
    try {
      if (Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).split("\0").includes(token)) count++;
    } catch { /* gone */ }
  }
  return count;
}

/** Polls every 5 ms; throws after 30 s so a broken case fails the bench instead of hanging it. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`Cannot finish the bench case: ${what} within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

for (
  const [sandbox, stubborn] of [["off", false], ["workspace-write", false], ["off", true]] as const
) {
  const what = stubborn ? ", one job ignoring SIGTERM" : "";
  Deno.bench(
    `agent stop (sandbox ${sandbox}${what}): SIGTERM until every job's process tree is gone`,
    {
      group: "agent stop",
      n: 5,
      warmup: 1,
    },
    async (b) => await agentStop(b, sandbox, stubborn),
  );
}

async function agentStop(b: Deno.BenchContext, sandbox: string, stubborn: boolean): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "dsh_bench_" });
  const token = `dsh-bench-${crypto.randomUUID().slice(0, 8)}`;
  const sleeper = `bash -c 'exec -a ${token} sleep 300'`;
  const commands = [
    sleeper,
    `env -i setsid -f ${sleeper} >/dev/null 2>&1; sleep 300`,
    `(${sleeper} &) ; sleep 300`,
    `(env -i setsid ${sleeper} >/dev/null 2>&1 &) ; sleep 300`,
    // Ignores SIGTERM: waits for the shutdown's SIGKILL at 0.8 s.
    ...(stubborn ? [`trap "" TERM; ${sleeper}`] : []),
  ];
  const cwd = join(dir, "ws");
  await Deno.mkdir(cwd);
  // Unsandboxed bash asks by default; nobody answers here, so allow it explicitly.
  const configText = JSON.stringify({
    sandbox,
    permissions: [{ tool: "bash", decision: "allow" }],
  });
  const configPath = join(dir, "dsh.jsonc");
  const scriptPath = join(dir, "script.json");
  await Deno.writeTextFile(configPath, configText);
  await Deno.writeTextFile(
    scriptPath,
    JSON.stringify([{
      toolCalls: commands.map((command, i) => ({
        id: `c${i}`,
        name: "bash",
        args: { command, run_in_background: true },
      })),
    }, { text: "ok" }]),
  );
  const sessionsDir = join(dir, "sessions");
  const agent = spawnAgentProcess(client({ name: "bench" }), {
    permissions: permissionFlags(parseConfig(configText, configPath), {
      roots: [cwd],
      sessionsDir,
      readOnly: [configPath, scriptPath],
      tmpDir: dir,
      useDeepSeek: false,
    }),
    args: ["--config", configPath, "--script", scriptPath, "--sessions-dir", sessionsDir],
    cwd,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: dir, TMPDIR: dir },
  });
  const a = agent.connection.agent;
  await a.request("initialize", { protocolVersion: 1 });
  const { sessionId } = await a.request("session/new", { cwd, mcpServers: [] });
  await a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  await until(() => marked(token) >= commands.length, "the jobs started");
  b.start();
  agent.child.kill("SIGTERM");
  await until(() => marked(token) === 0, "every marked process is gone");
  b.end();
  await agent.close();
  await Deno.remove(dir, { recursive: true });
}
