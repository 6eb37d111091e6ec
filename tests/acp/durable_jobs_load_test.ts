import { deepEqual, equal, match, ok } from "node:assert/strict";
import { client, ndJsonStream, type SessionUpdate } from "@agentclientprotocol/sdk";
import { textResponse, toolCallResponse } from "../../agent/mock_adapter.ts";
import type { StreamChunk } from "../../agent/model.ts";
import { isAlive, tempDir, within } from "../_helpers.ts";
import { startSandboxStandIn } from "../../testing/deno_sandbox_stand_in.ts";

type Update = SessionUpdate & Record<string, unknown>;

const CHILD = new URL("./_durable_agent_child.ts", import.meta.url).pathname;

interface AgentProcess {
  readonly updates: Update[];
  readonly a: ReturnType<ReturnType<typeof client>["connect"]>["agent"];
  readonly child: Deno.ChildProcess;
}

/** Starts one agent process (an ACP server on stdio, bash on the durable test executor). */
async function spawnAgent(
  dir: string,
  name: string,
  script: StreamChunk[][],
  executor: string[] = ["local", `${dir}/env`],
): Promise<AgentProcess> {
  const scriptPath = `${dir}/${name}.json`;
  await Deno.writeTextFile(scriptPath, JSON.stringify(script));
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CHILD, dir, scriptPath, ...executor],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const updates: Update[] = [];
  const connection = client({ name: "test" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update as Update);
    })
    .connect(ndJsonStream(child.stdin, child.stdout));
  await connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  return { updates, a: connection.agent, child };
}

function logEvents(dir: string, sessionId: string): Record<string, unknown>[] {
  return Deno.readTextFileSync(`${dir}/${sessionId}.jsonl`).trim().split("\n")
    .map((line) => JSON.parse(line)).filter((event) => typeof event.type === "string");
}

/** Waits until the session log has a `job/detached` record. */
async function detachedRecord(dir: string, sessionId: string): Promise<Record<string, unknown>> {
  return await within(
    (async () => {
      for (;;) {
        const found = logEvents(dir, sessionId).find((event) => event.type === "job/detached");
        if (found !== undefined) return found;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })(),
    "the job/detached record",
  );
}

/** Waits until the run's output file (outside any agent process) contains `text`. */
async function outputHas(path: string, text: string): Promise<void> {
  await within(
    (async () => {
      while (!(await Deno.readTextFile(path).catch(() => "")).includes(text)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })(),
    `${JSON.stringify(text)} in ${path}`,
  );
}

Deno.test("a durable job survives a killed agent process; session/load in a new process adopts it and job_output and job_kill work through ACP", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/env`);
  const command =
    "trap 'echo stopping; exit 5' TERM; echo serving; while true; do sleep 0.05; done";
  const first = await spawnAgent(dir.path, "first", [
    toolCallResponse("c1", "bash", { command, run_in_background: true }),
    textResponse("it runs"),
  ]);
  const { sessionId } = await first.a.request("session/new", { cwd: dir.path, mcpServers: [] });
  await first.a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  const detached = await detachedRecord(dir.path, sessionId);
  const run = detached.run as { pid: number; outputPath: string };
  await outputHas(run.outputPath, "serving");
  // The agent process dies hard: no shutdown, no release, nothing logged after this.
  first.child.kill("SIGKILL");
  await first.child.status;
  ok(isAlive(run.pid), "the run outlived the agent process");

  const second = await spawnAgent(dir.path, "second", [
    toolCallResponse("c2", "job_output", { job_id: "bash-1" }),
    toolCallResponse("c3", "job_kill", { job_id: "bash-1" }),
    textResponse("stopped it"),
  ]);
  try {
    await second.a.request("session/load", { sessionId, cwd: dir.path, mcpServers: [] });
    ok(
      JSON.stringify(second.updates).includes(
        "[dsh] Reconnected to background job(s) started before: bash-1.",
      ),
    );
    const { stopReason } = await second.a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "stop it" }],
    });
    equal(stopReason, "end_turn");
    const events = logEvents(dir.path, sessionId);
    const after = events.slice(events.findLastIndex((event) => event.type === "user/message"));
    deepEqual(
      after.filter((event) => event.type === "tool/call").map((event) => event.name),
      ["job_output", "job_kill"],
    );
    const text = (id: string) =>
      JSON.stringify(after.find((event) => event.type === "tool/result" && event.callId === id));
    match(text("c2"), /serving\\n.*\[status: running\]/);
    match(text("c3"), /it stopped \[status: killed by the owner session \(exit code: 5\)\]/);
    const ended = after.find((event) => event.type === "job/ended");
    deepEqual([ended?.jobId, ended?.exitCode, ended?.killed], ["bash-1", 5, "kill"]);
    equal(isAlive(run.pid), false);
    const cards = second.updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.title);
    // The replayed start of the job, then the two calls of this turn.
    deepEqual(cards, [
      command,
      "Read output from background job bash-1",
      "Kill background job bash-1",
    ]);
  } finally {
    await second.child.stdin.close().catch(() => {});
    await second.child.status;
  }
});

Deno.test("remote: a job in a Deno Sandbox (loopback stand-in) survives a killed agent process; session/load reattaches, job_output and job_kill work", async () => {
  await using dir = await tempDir();
  await using standIn = await startSandboxStandIn();
  const remote = ["remote", standIn.endpoint, standIn.token];
  const command =
    "trap 'echo stopping; exit 5' TERM; echo serving; while true; do sleep 0.05; done";
  const first = await spawnAgent(dir.path, "first", [
    toolCallResponse("c1", "bash", { command, run_in_background: true }),
    textResponse("it runs"),
  ], remote);
  const { sessionId } = await first.a.request("session/new", { cwd: dir.path, mcpServers: [] });
  await first.a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  const detached = await detachedRecord(dir.path, sessionId);
  const run = detached.run as {
    environment: { provider: string; id: string };
    outputPath: string;
    exitPath: string;
  };
  equal(run.environment.provider, "deno-sandbox");
  // The run's files live in the sandbox; the stand-in shows where they are on this machine.
  await outputHas(standIn.path(run.environment.id, run.outputPath), "serving");
  first.child.kill("SIGKILL");
  await first.child.status;
  const second = await spawnAgent(dir.path, "second", [
    toolCallResponse("c2", "job_output", { job_id: "bash-1" }),
    toolCallResponse("c3", "job_kill", { job_id: "bash-1" }),
    textResponse("stopped it"),
  ], remote);
  try {
    await second.a.request("session/load", { sessionId, cwd: dir.path, mcpServers: [] });
    ok(
      JSON.stringify(second.updates).includes(
        "Reconnected to background job(s) started before: bash-1.",
      ),
    );
    await second.a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "stop" }],
    });
    const events = logEvents(dir.path, sessionId);
    const after = events.slice(events.findLastIndex((event) => event.type === "user/message"));
    deepEqual(
      after.filter((event) => event.type === "tool/call").map((event) => event.name),
      ["job_output", "job_kill"],
    );
    const text = (id: string) =>
      JSON.stringify(after.find((event) => event.type === "tool/result" && event.callId === id));
    match(text("c2"), /serving\\n.*\[status: running\]/);
    match(text("c3"), /it stopped \[status: killed by the owner session \(exit code: 5\)\]/);
    const ended = after.find((event) => event.type === "job/ended");
    deepEqual([ended?.jobId, ended?.exitCode, ended?.killed], ["bash-1", 5, "kill"]);
    equal(await Deno.readTextFile(standIn.path(run.environment.id, run.exitPath)), "5\n");
    // One sandbox: the second process reattached the first one's.
    equal(standIn.sandboxes().length, 1);
  } finally {
    await second.child.stdin.close().catch(() => {});
    await second.child.status;
  }
});
