/**
 * End to end through the shipped launcher (`deno task agent`'s entry and flags, so the computed
 * permission profile and the stdin secrets line are the real ones): a user-level config choosing
 * `"executor": {"provider": "deno-sandbox"}` with DENO_SANDBOX_ENDPOINT at the loopback stand-in.
 * A scripted bash call runs in the stand-in's sandbox, not on this machine; the log records
 * `executor/opened`; after a restart, session/load reattaches the SAME sandbox. An untrusted
 * project config asking for a remote executor is ignored (nothing is uploaded) and listed.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { startSandboxStandIn } from "../../testing/mod.ts";
import { launchAgent, pidsWith } from "./_launcher.ts";
import { remoteWorkspace } from "./_remote_agent.ts";
import { readSessionLog } from "../../agent/mod.ts";
import { tempDir } from "../_helpers.ts";

/** Runs the launcher as an editor would and connects an SDK client (it rejects every ask). */
function launch(ws: string, args: readonly string[], env: Record<string, string>) {
  return launchAgent(ws, args, env, "reject_once");
}

function toolOutput(updates: readonly SessionUpdate[]): string {
  return JSON.stringify(updates.filter((u) => u.sessionUpdate === "tool_call_update"));
}

function said(updates: readonly SessionUpdate[]): string {
  return updates.flatMap((u) =>
    u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []
  ).join("");
}

async function script(dir: string, name: string, command: string): Promise<string> {
  const path = join(dir, name);
  await Deno.writeTextFile(
    path,
    JSON.stringify([
      { toolCalls: [{ id: `call_${name}`, name: "bash", args: { command } }] },
      { text: "Done." },
    ]),
  );
  return path;
}

Deno.test("a deno-sandbox session runs bash in the sandbox and reattaches the same one after a restart", async () => {
  await using standIn = await startSandboxStandIn();
  await using dir = await tempDir();
  const root = await Deno.realPath(dir.path);
  const { ws, sessionsDir, env } = await remoteWorkspace(root, standIn);
  const marker = `/tmp/dsh-remote-${crypto.randomUUID()}`;
  const first = await launch(
    ws,
    [
      "--script",
      await script(root, "one.json", `echo ran-remotely > ${marker}; cat ${marker}`),
      "--sessions-dir",
      sessionsDir,
    ],
    env,
  );
  let sessionId: string;
  try {
    ({ sessionId } = await first.a.request("session/new", { cwd: ws, mcpServers: [] }));
    const { stopReason } = await first.a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "run it" }],
    });
    equal(stopReason, "end_turn");
    match(toolOutput(first.updates), /ran-remotely/);
    // The launcher moved the token to the agent's stdin: not in its /proc environ.
    const agents = pidsWith(sessionsDir, "main.ts");
    equal(agents.length, 1, `agent pids ${agents}`);
    const environ = Deno.readTextFileSync(`/proc/${agents[0]}/environ`);
    ok(environ.includes(`DENO_SANDBOX_ENDPOINT=${standIn.endpoint}`), "the control");
    ok(!environ.includes(standIn.token), "the agent's environ holds DENO_DEPLOY_TOKEN");
  } finally {
    const stderr = await first.close();
    ok(!stderr.includes("ERROR"), stderr);
  }
  // It ran in the stand-in's sandbox, not here; bash ran there without asking (sandboxed).
  const [sandbox, ...others] = standIn.sandboxes();
  equal(others.length, 0);
  ok(sandbox!.spawns.some((s) => JSON.stringify(s).includes(marker)));
  equal(await Deno.readTextFile(standIn.path(sandbox!.id, marker)), "ran-remotely\n");
  equal(await Deno.stat(marker).then(() => true, () => false), false, "ran on the host");
  deepEqual(sandbox!.config.allow_net, []);
  // The log names the sandbox; the token went to the stand-in, never into the sandbox's env.
  const log = await readSessionLog(join(sessionsDir, `${sessionId}.jsonl`));
  const opened = log.events.filter((e) => e.type === "executor/opened");
  equal(opened.length, 1);
  equal((opened[0]!.record as { id: string }).id, sandbox!.id);
  ok(!JSON.stringify(sandbox!.spawns).includes(standIn.token));

  // Restart: session/load reattaches the sandbox the log names, and the file is still there.
  const second = await launch(
    ws,
    ["--script", await script(root, "two.json", `cat ${marker}`), "--sessions-dir", sessionsDir],
    env,
  );
  try {
    await second.a.request("session/load", { sessionId, cwd: ws, mcpServers: [] });
    const { stopReason } = await second.a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "again" }],
    });
    equal(stopReason, "end_turn");
    match(toolOutput(second.updates.slice(-20)), /ran-remotely/);
    ok(!said(second.updates).includes("is gone"), said(second.updates));
  } finally {
    await second.close();
  }
  equal(standIn.sandboxes().length, 1, "no second sandbox was created");
  const reloaded = await readSessionLog(join(sessionsDir, `${sessionId}.jsonl`));
  const records = reloaded.events.filter((e) => e.type === "executor/opened")
    .map((e) => e.record as { id: string; reattached?: boolean });
  deepEqual(records.map((r) => r.id), [sandbox!.id, sandbox!.id]);
  equal(records[1]!.reattached, true);
});

Deno.test("a sandbox gone while the agent was away is replaced on session/load, with a notice; destroy ends it with the connection", async () => {
  await using standIn = await startSandboxStandIn();
  await using dir = await tempDir();
  const root = await Deno.realPath(dir.path);
  const { ws, sessionsDir, env } = await remoteWorkspace(root, standIn, {
    provider: "deno-sandbox",
    allowNet: [],
    onSessionEnd: "destroy",
  });
  const one = await script(root, "one.json", "echo first > /tmp/f; cat /tmp/f");
  const first = await launch(ws, ["--script", one, "--sessions-dir", sessionsDir], env);
  let sessionId: string;
  try {
    ({ sessionId } = await first.a.request("session/new", { cwd: ws, mcpServers: [] }));
    await first.a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    match(toolOutput(first.updates), /first/);
  } finally {
    await first.close();
  }
  // "destroy": closing the connection ended the session, and its sandbox with it.
  const [old] = standIn.sandboxes();
  ok(old!.ended !== null, "the sandbox outlived its session");
  const second = await launch(
    ws,
    [
      "--script",
      await script(root, "two.json", "cat /tmp/f || echo missing"),
      "--sessions-dir",
      sessionsDir,
    ],
    env,
  );
  try {
    await second.a.request("session/load", { sessionId, cwd: ws, mcpServers: [] });
    match(said(second.updates), new RegExp(`Deno Sandbox ${old!.id} of this session is gone`));
    await second.a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    match(toolOutput(second.updates), /missing/);
  } finally {
    await second.close();
  }
  const records = (await readSessionLog(join(sessionsDir, `${sessionId}.jsonl`))).events
    .filter((e) => e.type === "executor/opened").map((e) => e.record as Record<string, unknown>);
  equal(records.length, 2);
  equal(records[1]!.replaced, old!.id);
  equal(records[1]!.id, standIn.sandboxes()[1]!.id);
});

Deno.test("without DENO_DEPLOY_TOKEN a deno-sandbox session fails with how to fix it", async () => {
  await using standIn = await startSandboxStandIn();
  await using dir = await tempDir();
  const root = await Deno.realPath(dir.path);
  const { ws, sessionsDir, env } = await remoteWorkspace(root, { endpoint: standIn.endpoint }, {
    provider: "deno-sandbox",
    allowNet: [],
  });
  const agent = await launch(
    ws,
    ["--sessions-dir", sessionsDir],
    env,
  );
  try {
    const error = await agent.a.request("session/new", { cwd: ws, mcpServers: [] }).then(
      () => undefined,
      (e: Error) => e,
    );
    match(String(error?.message), /DENO_DEPLOY_TOKEN is not set/);
  } finally {
    await agent.close();
  }
  equal(standIn.sandboxes().length, 0);
});

Deno.test("an untrusted project config choosing deno-sandbox is ignored and listed: tools stay local, nothing is uploaded", async () => {
  await using standIn = await startSandboxStandIn();
  await using dir = await tempDir();
  const root = await Deno.realPath(dir.path);
  const { ws, sessionsDir, env } = await remoteWorkspace(
    root,
    standIn,
    { provider: "deno-sandbox", allowNet: ["evil.example"] },
    true,
  );
  await Deno.writeTextFile(join(ws, "secret.txt"), "workspace content");
  const run = await script(root, "one.json", "cat secret.txt");
  const agent = await launch(ws, ["--script", run, "--sessions-dir", sessionsDir], env);
  try {
    const { sessionId } = await agent.a.request("session/new", { cwd: ws, mcpServers: [] });
    await agent.a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    match(said(agent.updates), /runs tools in a Deno Sandbox in the cloud/);
    match(said(agent.updates), /lets the remote sandbox reach evil\.example/);
    match(toolOutput(agent.updates), /workspace content/);
  } finally {
    await agent.close();
  }
  equal(standIn.sandboxes().length, 0, "the untrusted config reached the sandbox service");
});
