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

const SERVE = "trap 'echo stopping; exit 5' TERM; echo serving; while true; do sleep 0.05; done";

/** A first agent process starts {@linkcode SERVE} in the background in a new session. */
async function startServing(dir: string, executor?: string[]) {
  const first = await spawnAgent(dir, "first", [
    toolCallResponse("c1", "bash", { command: SERVE, run_in_background: true }),
    textResponse("it runs"),
  ], executor);
  const { sessionId } = await first.a.request("session/new", { cwd: dir, mcpServers: [] });
  await first.a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  return { first, sessionId, detached: await detachedRecord(dir, sessionId) };
}

/**
 * A second agent process loads the session and runs one turn, `job_output` then `job_kill` of
 * bash-1: checks the reconnect notice and the turn's calls, results and `job/ended`, then runs
 * `more` before the process is closed.
 */
async function adoptAndStop(
  dir: string,
  sessionId: string,
  executor: string[] | undefined,
  more: (second: AgentProcess, stopReason: string) => void | Promise<void>,
): Promise<void> {
  const second = await spawnAgent(dir, "second", [
    toolCallResponse("c2", "job_output", { job_id: "bash-1" }),
    toolCallResponse("c3", "job_kill", { job_id: "bash-1" }),
    textResponse("stopped it"),
  ], executor);
  try {
    await second.a.request("session/load", { sessionId, cwd: dir, mcpServers: [] });
    ok(
      JSON.stringify(second.updates).includes(
        "Reconnected to background job(s) started before: bash-1.",
      ),
    );
    const { stopReason } = await second.a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "stop it" }],
    });
    const events = logEvents(dir, sessionId);
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
    await more(second, stopReason);
  } finally {
    await second.child.stdin.close().catch(() => {});
    await second.child.status;
  }
}

Deno.test("a durable job survives a killed agent process; session/load in a new process adopts it and job_output and job_kill work through ACP", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/env`);
  const { first, sessionId, detached } = await startServing(dir.path);
  const run = detached.run as { pid: number; outputPath: string };
  await outputHas(run.outputPath, "serving");
  // The agent process dies hard: no shutdown, no release, nothing logged after this.
  first.child.kill("SIGKILL");
  await first.child.status;
  ok(isAlive(run.pid), "the run outlived the agent process");
  await adoptAndStop(dir.path, sessionId, undefined, (second, stopReason) => {
    ok(
      JSON.stringify(second.updates).includes(
        "[dsh] Reconnected to background job(s) started before: bash-1.",
      ),
    );
    equal(stopReason, "end_turn");
    equal(isAlive(run.pid), false);
    const cards = second.updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.title);
    // The replayed start of the job, then the two calls of this turn.
    deepEqual(cards, [
      SERVE,
      "Read output from background job bash-1",
      "Kill background job bash-1",
    ]);
  });
});

Deno.test("remote: a job in a Deno Sandbox (loopback stand-in) survives a killed agent process; session/load reattaches, job_output and job_kill work", async () => {
  await using dir = await tempDir();
  await using standIn = await startSandboxStandIn();
  const remote = ["remote", standIn.endpoint, standIn.token];
  const { first, sessionId, detached } = await startServing(dir.path, remote);
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
  await adoptAndStop(dir.path, sessionId, remote, async () => {
    equal(await Deno.readTextFile(standIn.path(run.environment.id, run.exitPath)), "5\n");
    // One sandbox: the second process reattached the first one's.
    equal(standIn.sandboxes().length, 1);
  });
});
