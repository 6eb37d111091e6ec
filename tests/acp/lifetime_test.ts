/**
 * Real-process lifetime tests: the real agent binary (acp/main.ts, or the launcher acp/launch.ts
 * in front of it) under its real permission profile starts background jobs whose descendants
 * escape in every known way (`setsid`, double fork, cleared environment); a signal or the end of
 * stdin must take every one of them down. Processes are found by a unique argv marker in the
 * host `/proc`; the 2 s bounds are failure guards, not timings.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { client, ndJsonStream } from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { spawnAgentProcess } from "../../acp/_agent_process.ts";
import { parseConfig } from "../../acp/config.ts";
import { permissionFlags } from "../../acp/permissions.ts";
import {
  HANG_GUARD_MS,
  markedSleep,
  tempDir,
  uniqueToken,
  waitGone,
  waitMarked,
} from "../_helpers.ts";
import { EVERYTHING, plainEnv } from "./_snapshot.ts";

/** Commands that leave marked sleepers behind in every known way (one marked sleeper each). */
function escapingCommands(token: string): string[] {
  const sleeper = markedSleep(token);
  return [
    // The job's own foreground process.
    sleeper,
    // A new session with a cleared environment, detached by setsid's fork (the case).
    `env -i setsid -f ${sleeper} >/dev/null 2>&1; sleep 300`,
    // A double fork: the sleeper is re-parented away from the job's shell.
    `(${sleeper} &) ; sleep 300`,
    // Both: a cleared environment and a double fork into a new session.
    `(env -i setsid ${sleeper} >/dev/null 2>&1 &) ; sleep 300`,
    // A tree that ignores SIGTERM (the disposition survives exec): only SIGKILL ends it.
    `trap "" TERM; ${sleeper}`,
  ];
}

interface Workspace extends AsyncDisposable {
  readonly cwd: string;
  readonly sessionsDir: string;
  readonly configPath: string;
  readonly scriptPath: string;
  readonly flags: string[];
  readonly env: Record<string, string>;
}

async function workspace(
  sandbox: string,
  token: string,
  mcpServers: Record<string, unknown> = {},
): Promise<Workspace> {
  const dir = await tempDir();
  const cwd = join(dir.path, "ws");
  const sessionsDir = join(dir.path, "sessions");
  await Deno.mkdir(cwd);
  // Unsandboxed bash asks by default; these tests run it without a permission client.
  const permissions = [{ tool: "bash", decision: "allow" }, { tool: "mcp__*", decision: "allow" }];
  const configText = JSON.stringify({ sandbox, mcpServers, permissions });
  const configPath = join(dir.path, "dsh.jsonc");
  const scriptPath = join(dir.path, "script.json");
  await Deno.writeTextFile(configPath, configText);
  const toolCalls = escapingCommands(token).map((command, i) => ({
    id: `call_${i}`,
    name: "bash",
    args: { command, run_in_background: true },
  }));
  await Deno.writeTextFile(scriptPath, JSON.stringify([{ toolCalls }, { text: "Started." }]));
  const flags = permissionFlags(parseConfig(configText, configPath), {
    roots: [cwd],
    sessionsDir,
    readOnly: [configPath, scriptPath, EVERYTHING],
    tmpDir: dir.path,
    useDeepSeek: false,
  });
  return {
    cwd,
    sessionsDir,
    configPath,
    scriptPath,
    flags,
    env: plainEnv(dir.path),
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

function agentArgs(ws: Workspace): string[] {
  return ["--config", ws.configPath, "--script", ws.scriptPath, "--sessions-dir", ws.sessionsDir];
}

async function statusWithin(
  child: Deno.ChildProcess,
  ms: number,
): Promise<Deno.CommandStatus | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const status = await Promise.race([
    child.status,
    new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), ms)),
  ]);
  clearTimeout(timer);
  return status;
}

const stops = ["SIGTERM", "SIGINT", "SIGHUP", "stdin EOF"] as const;

for (const sandbox of ["off", "workspace-write"]) {
  for (const stop of stops) {
    Deno.test(`agent (sandbox ${sandbox}) stops every job's process tree on ${stop}`, async () => {
      const token = uniqueToken();
      await using ws = await workspace(sandbox, token);
      const agent = spawnAgentProcess(client({ name: "lifetime" }), {
        permissions: ws.flags,
        args: agentArgs(ws),
        cwd: ws.cwd,
        clearEnv: true,
        env: ws.env,
      });
      try {
        const a = agent.connection.agent;
        await a.request("initialize", { protocolVersion: 1 });
        const { sessionId } = await a.request("session/new", { cwd: ws.cwd, mcpServers: [] });
        const { stopReason } = await a.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "Start the servers" }],
        });
        equal(stopReason, "end_turn");
        await waitMarked(token, escapingCommands(token).length);
        if (stop === "stdin EOF") void agent.close();
        else agent.child.kill(stop);
        deepEqual(await waitGone(token), [], agent.stderr());
        const status = await statusWithin(agent.child, HANG_GUARD_MS);
        ok(status !== undefined, "the agent exited");
        equal(status.code, { SIGTERM: 143, SIGINT: 130, SIGHUP: 129, "stdin EOF": 0 }[stop]);
      } finally {
        try {
          agent.child.kill("SIGKILL");
        } catch { /* exited */ }
        await agent.close();
      }
    });
  }
}

Deno.test("agent closes its MCP servers on SIGTERM", async () => {
  const token = uniqueToken();
  const mcpToken = uniqueToken("dsh-mcp");
  await using ws = await workspace("off", token, {
    everything: { command: "bash", args: ["-c", `exec -a ${mcpToken} node ${EVERYTHING} stdio`] },
  });
  const agent = spawnAgentProcess(client({ name: "lifetime" }), {
    permissions: ws.flags,
    args: agentArgs(ws),
    cwd: ws.cwd,
    clearEnv: true,
    env: ws.env,
  });
  try {
    const a = agent.connection.agent;
    await a.request("initialize", { protocolVersion: 1 });
    await a.request("session/new", { cwd: ws.cwd, mcpServers: [] });
    await waitMarked(mcpToken, 1);
    agent.child.kill("SIGTERM");
    deepEqual(await waitGone(mcpToken), [], agent.stderr());
    equal((await statusWithin(agent.child, HANG_GUARD_MS))?.code, 143);
  } finally {
    try {
      agent.child.kill("SIGKILL");
    } catch { /* exited */ }
    await agent.close();
  }
});

for (const signal of ["SIGTERM", "SIGKILL"] as const) {
  const what = signal === "SIGTERM"
    ? "forwards SIGTERM to the agent"
    : "killed with SIGKILL still takes the agent down (it watches its parent)";
  Deno.test(`launcher ${what}: neither the agent nor its jobs are orphaned`, async () => {
    const token = uniqueToken();
    await using ws = await workspace("off", token);
    const launch = new URL("../../acp/launch.ts", import.meta.url).pathname;
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        "--allow-read",
        "--allow-env",
        `--allow-run=${Deno.execPath()}`,
        launch,
        ...agentArgs(ws),
      ],
      cwd: ws.cwd,
      clearEnv: true,
      env: ws.env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(child.stderr).text();
    const connection = client({ name: "lifetime" }).connect(
      ndJsonStream(child.stdin, child.stdout),
    );
    try {
      const a = connection.agent;
      await a.request("initialize", { protocolVersion: 1 });
      const { sessionId } = await a.request("session/new", { cwd: ws.cwd, mcpServers: [] });
      await a.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Start the servers" }],
      });
      await waitMarked(token, escapingCommands(token).length);
      // The agent is the launcher's only deno child.
      const agentPid = childrenOf(child.pid)[0];
      ok(agentPid !== undefined, "the launcher runs the agent as its child");
      child.kill(signal);
      // SIGKILL reaches the launcher only: the agent notices its new parent within 250 ms.
      deepEqual(await waitGone(token), []);
      const status = await statusWithin(child, HANG_GUARD_MS);
      ok(status !== undefined, "the launcher exited");
      if (signal === "SIGTERM") equal(status.code, 143);
      const until = Date.now() + HANG_GUARD_MS;
      while (alive(agentPid) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      ok(!alive(agentPid), "the agent exited with the launcher");
    } finally {
      try {
        child.kill("SIGKILL");
      } catch { /* exited */ }
      connection.close();
      await child.status;
      await stderr;
    }
  });
}

function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    const candidate = Number(entry.name);
    if (!Number.isInteger(candidate)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${candidate}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) found.push(candidate);
    } catch { /* gone */ }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !["Z", "X"].includes(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] ?? "");
  } catch {
    return false;
  }
}
