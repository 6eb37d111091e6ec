/**
 * End to end through the shipped launcher with `"executor": {"provider": "deno-sandbox"}` and the
 * loopback stand-in: a background bash job runs detached in the session's sandbox, the agent
 * process stops (the editor closes it), the job goes on; a new agent process loads the session,
 * reattaches the sandbox and adopts the job, and `job_output` and `job_kill` work on it.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { startSandboxStandIn } from "../../testing/mod.ts";
import { launchAgent } from "./_launcher.ts";
import { remoteWorkspace } from "./_remote_agent.ts";
import { readSessionLog } from "../../agent/mod.ts";
import { tempDir, within } from "../_helpers.ts";

/** Runs the launcher as an editor would and connects an SDK client (it allows every ask). */
function launch(ws: string, args: readonly string[], env: Record<string, string>) {
  return launchAgent(ws, args, env, "allow_once");
}

async function script(dir: string, name: string, steps: unknown[]): Promise<string> {
  const path = join(dir, name);
  await Deno.writeTextFile(path, JSON.stringify(steps));
  return path;
}

/** Waits (a hang guard, not a timing) until `read()` holds `text`. */
async function until(read: () => Promise<string>, text: string, what: string): Promise<void> {
  await within(
    (async () => {
      while (!(await read().catch(() => "")).includes(text)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })(),
    what,
  );
}

Deno.test("a background job in the session's Deno Sandbox survives the agent; session/load in a new agent adopts it, job_output and job_kill work", async () => {
  await using standIn = await startSandboxStandIn();
  await using dir = await tempDir();
  const root = await Deno.realPath(dir.path);
  const { ws, sessionsDir, env } = await remoteWorkspace(root, standIn);
  const command =
    "trap 'echo stopping; exit 5' TERM; echo serving; while true; do sleep 0.05; done";
  const first = await launch(ws, [
    "--script",
    await script(root, "one.json", [
      {
        toolCalls: [{ id: "call_start", name: "bash", args: { command, run_in_background: true } }],
      },
      { text: "Started." },
    ]),
    "--sessions-dir",
    sessionsDir,
  ], env);
  const logPath = () => join(sessionsDir, `${sessionId}.jsonl`);
  let sessionId = "";
  try {
    ({ sessionId } = await first.a.request("session/new", { cwd: ws, mcpServers: [] }));
    await first.a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    await until(() => Deno.readTextFile(logPath()), '"job/detached"', "the job/detached record");
  } finally {
    const stderr = await first.close();
    ok(!stderr.includes("ERROR"), stderr);
  }
  const log = await readSessionLog(logPath());
  const detached = log.events.find((event) => event.type === "job/detached")!;
  const run = detached.run as {
    environment: { provider: string; id: string };
    outputPath: string;
    exitPath: string;
  };
  const [sandbox] = standIn.sandboxes();
  deepEqual(run.environment, { provider: "deno-sandbox", id: sandbox!.id });
  await until(
    () => Deno.readTextFile(standIn.path(sandbox!.id, run.outputPath)),
    "serving",
    "output",
  );
  // The agent is gone; the job is not: no exit file, and it still runs after a while of output.
  equal(
    await Deno.stat(standIn.path(sandbox!.id, run.exitPath)).then(() => true, () => false),
    false,
  );
  equal(log.events.some((event) => event.type === "job/ended"), false);

  const second = await launch(ws, [
    "--script",
    await script(root, "two.json", [
      { toolCalls: [{ id: "call_read", name: "job_output", args: { job_id: "bash-1" } }] },
      { toolCalls: [{ id: "call_kill", name: "job_kill", args: { job_id: "bash-1" } }] },
      { text: "Stopped." },
    ]),
    "--sessions-dir",
    sessionsDir,
  ], env);
  try {
    await second.a.request("session/load", { sessionId, cwd: ws, mcpServers: [] });
    const text = JSON.stringify(second.updates);
    ok(text.includes("Reconnected to background job(s) started before: bash-1."), text);
    const { stopReason } = await second.a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "stop it" }],
    });
    equal(stopReason, "end_turn");
  } finally {
    const stderr = await second.close();
    ok(!stderr.includes("ERROR"), stderr);
  }
  const after = (await readSessionLog(logPath())).events;
  const result = (id: string) =>
    JSON.stringify(after.find((event) => event.type === "tool/result" && event.callId === id));
  match(result("call_read"), /serving\\n.*\[status: running\]/);
  match(result("call_kill"), /it stopped \[status: killed by the owner session \(exit code: 5\)\]/);
  const ended = after.find((event) => event.type === "job/ended");
  deepEqual([ended?.jobId, ended?.exitCode, ended?.killed], ["bash-1", 5, "kill"]);
  equal(await Deno.readTextFile(standIn.path(sandbox!.id, run.exitPath)), "5\n");
  match(
    await Deno.readTextFile(standIn.path(sandbox!.id, run.outputPath)),
    /serving\n[\s\S]*stopping\n$/,
  );
  equal(standIn.sandboxes().length, 1, "the second agent reattached the same sandbox");
});

/** Starts a background bash job in a new session and stops the agent; returns the run. */
async function startAndLeave(
  root: string,
  standIn: { endpoint: string; token: string },
  command: string,
) {
  const { ws, sessionsDir, env } = await remoteWorkspace(root, standIn);
  const first = await launch(ws, [
    "--script",
    await script(root, "one.json", [
      {
        toolCalls: [{ id: "call_start", name: "bash", args: { command, run_in_background: true } }],
      },
      { text: "Started." },
    ]),
    "--sessions-dir",
    sessionsDir,
  ], env);
  let sessionId = "";
  try {
    ({ sessionId } = await first.a.request("session/new", { cwd: ws, mcpServers: [] }));
    await first.a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    const path = join(sessionsDir, `${sessionId}.jsonl`);
    await until(() => Deno.readTextFile(path), '"job/detached"', "the job/detached record");
  } finally {
    await first.close();
  }
  const logPath = join(sessionsDir, `${sessionId}.jsonl`);
  const detached = (await readSessionLog(logPath)).events.find((e) => e.type === "job/detached")!;
  const run = detached.run as { environment: { id: string }; outputPath: string; exitPath: string };
  return { ws, sessionsDir, env, sessionId, logPath, run };
}

/** A new agent process loads the session left behind and runs one turn; returns the log's events. */
async function loadAndPrompt(
  root: string,
  left: Awaited<ReturnType<typeof startAndLeave>>,
  steps: unknown[],
  text: string,
) {
  const { ws, sessionsDir, env, sessionId } = left;
  const second = await launch(ws, [
    "--script",
    await script(root, "two.json", steps),
    "--sessions-dir",
    sessionsDir,
  ], env);
  try {
    await second.a.request("session/load", { sessionId, cwd: ws, mcpServers: [] });
    await second.a.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  } finally {
    await second.close();
  }
  return (await readSessionLog(left.logPath)).events;
}

Deno.test("a remote job that ended while no agent ran is the completion notice after session/load", async () => {
  await using standIn = await startSandboxStandIn();
  await using dir = await tempDir();
  const root = await Deno.realPath(dir.path);
  const command =
    "echo waiting; while [ ! -e /tmp/go ]; do sleep 0.05; done; echo finished; exit 2";
  const left = await startAndLeave(root, standIn, command);
  const { run } = left;
  const id = run.environment.id;
  await until(() => Deno.readTextFile(standIn.path(id, run.outputPath)), "waiting", "output");
  await Deno.writeTextFile(standIn.path(id, "/tmp/go"), "");
  await until(() => Deno.readTextFile(standIn.path(id, run.exitPath)), "2", "the exit file");
  const events = await loadAndPrompt(root, left, [{ text: "Noted." }], "news?");
  const notice =
    `background job bash-1 (bash: ${command}) finished [status: completed, exit code: 2]. Read its output with job_output.`;
  const injected = events.findIndex((e) =>
    e.type === "context/inject" && JSON.stringify(e).includes(JSON.stringify(notice).slice(1, -1))
  );
  const answered = events.findLastIndex((e) => e.type === "assistant/message");
  ok(injected >= 0 && injected < answered, "the notice is in the context of the next model step");
  const ended = events.filter((e) => e.type === "job/ended");
  deepEqual(ended.map((e) => [e.jobId, e.exitCode]), [["bash-1", 2]]);
});

Deno.test("a remote job whose sandbox is gone on session/load is reported lost", async () => {
  await using standIn = await startSandboxStandIn();
  await using dir = await tempDir();
  const root = await Deno.realPath(dir.path);
  const left = await startAndLeave(root, standIn, "echo up; while true; do sleep 0.05; done");
  await standIn.expire(left.run.environment.id);
  const events = await loadAndPrompt(root, left, [
    { toolCalls: [{ id: "call_read", name: "job_output", args: { job_id: "bash-1" } }] },
    { text: "Lost." },
  ], "and?");
  const read = JSON.stringify(
    events.find((e) => e.type === "tool/result" && e.callId === "call_read"),
  );
  match(read, /\[status: failed: lost: its deno-sandbox environment sbx_\w+ is gone \(/);
  const ended = events.find((e) => e.type === "job/ended");
  match(String(ended?.lost), /^lost: /);
});
