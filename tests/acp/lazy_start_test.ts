import { equal, ok } from "node:assert/strict";
import { client, type SessionUpdate } from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { spawnAgentProcess } from "../../acp/_agent_process.ts";
import { tempDir } from "../_helpers.ts";
import { plainEnv } from "./_snapshot.ts";

const ENTRY = new URL("../../acp/dsh_agent.ts", import.meta.url);

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("deno task agent answers initialize once, and the sandbox probe waits for the first prompt", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  const bin = join(dir.path, "bin");
  await Deno.mkdir(ws);
  await Deno.mkdir(bin);
  // A bwrap first in PATH that records each run, then runs the real one.
  const marker = join(dir.path, "bwrap_runs");
  const real = new TextDecoder().decode(
    (await new Deno.Command("bash", { args: ["-c", "command -v bwrap"] }).output()).stdout,
  ).trim();
  await Deno.writeTextFile(
    join(bin, "bwrap"),
    `#!/bin/bash\necho run >> ${JSON.stringify(marker)}\nexec ${JSON.stringify(real)} "$@"\n`,
    { mode: 0o755 },
  );
  const script = join(dir.path, "script.json");
  await Deno.writeTextFile(
    script,
    JSON.stringify([
      { toolCalls: [{ id: "c1", name: "bash", args: { command: "echo lazy-$((40+2))" } }] },
      { text: "done" },
    ]),
  );
  const updates: SessionUpdate[] = [];
  let asked = 0;
  const frames: string[] = [];
  const app = client({ name: "lazy" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update);
    })
    .onRequest("session/request_permission", () => {
      asked++;
      return { outcome: { outcome: "cancelled" } };
    });
  const env = plainEnv(dir.path);
  const agent = spawnAgentProcess(app, {
    main: ENTRY,
    permissions: ["--allow-read", "--allow-env", "--allow-run=deno,bash"],
    args: ["--script", script, "--sessions-dir", join(dir.path, "sessions")],
    cwd: ws,
    clearEnv: true,
    env: { ...env, PATH: `${bin}:${env.PATH}`, XDG_STATE_HOME: join(dir.path, "state") },
    onFrame: (line) => frames.push(line),
  });
  try {
    const a = agent.connection.agent;
    const init = await a.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { _meta: { terminal_output: true } },
    });
    equal(init.protocolVersion, 1);
    await a.request("session/new", { cwd: ws, mcpServers: [] });
    const { sessionId } = await a.request("session/new", { cwd: ws, mcpServers: [] });
    // Two sessions are open and bwrap never ran.
    equal(await exists(marker), false);
    const { stopReason } = await a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "run it" }],
    });
    equal(stopReason, "end_turn");
    ok(await exists(marker), "the first prompt probes the sandbox");
    // Sandboxed bash runs without asking; the capability the launcher answered reached the agent.
    equal(asked, 0);
    const output = JSON.stringify(updates);
    ok(output.includes("lazy-42"), output);
    ok(output.includes("terminal_output"), "terminal output streamed as the client asked");
  } finally {
    await agent.close();
  }
  equal(frames.filter((line) => line.includes('"agentCapabilities"')).length, 1);
});

Deno.test("the agent task's entry loads only the few small modules that answer initialize before the launcher", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", ENTRY.pathname],
    stdout: "piped",
    stderr: "null",
  }).output();
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: {
      specifier: string;
      dependencies?: { isDynamic?: boolean; code?: { specifier: string } }[];
    }[];
  };
  const modules = new Map(graph.modules.map((m) => [m.specifier, m]));
  // What loads with the entry itself: static code imports (dynamic ones load on demand).
  const loaded = new Set<string>();
  const todo = [graph.roots[0]!];
  while (todo.length > 0) {
    const specifier = todo.pop()!;
    if (loaded.has(specifier)) continue;
    loaded.add(specifier);
    for (const dep of modules.get(specifier)?.dependencies ?? []) {
      if (!dep.isDynamic && dep.code !== undefined) todo.push(dep.code.specifier);
    }
  }
  const names = [...loaded].map((s) => s.replace(/^.*\/(acp|core)\//, "$1/"));
  ok(!names.some((n) => n.startsWith("npm:") || n.includes("node_modules")), names.join(" "));
  ok(!names.some((n) => /_config_table|_cli|registry\//.test(n)), names.join(" "));
  ok(names.length <= 12, `${names.length} modules: ${names.join(" ")}`);
});
