import { deepEqual, equal, match, ok, throws } from "node:assert/strict";
import { type Agent, createAgent } from "../../agent/agent.ts";
import { MockAdapter, textResponse, toolCallResponse } from "../../agent/mock_adapter.ts";
import type { StreamChunk } from "../../agent/model.ts";
import { bashPlugin } from "../../builtins/bash.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import { createHarness, type ToolsContext } from "../../registry/tools_plugin.ts";
import { jobsPlugin } from "../../jobs/jobs_plugin.ts";
import type { JobService } from "../../jobs/job_service.ts";
import type { Executor } from "../../tools/executor.ts";
import type { DetachedJobRecord, JobServiceOptions } from "../../jobs/types.ts";
import {
  HANG_GUARD_MS,
  isAlive,
  markedSleep,
  tempDir,
  TERM_GRACE_MS,
  uniqueToken,
  waitGone,
  within,
} from "../_helpers.ts";
import { DetachedTestExecutor } from "./_detached_executor.ts";
import { formatJobStatus } from "../../jobs/job_status.ts";

interface Session extends AsyncDisposable {
  readonly ctx: ToolsContext;
  readonly jobs: JobService;
  readonly agent: Agent;
  readonly adapter: MockAdapter;
}

/** A harness (jobs + bash on `executor`) and an agent on `logDir`, new or resumed. */
async function session(
  executor: Executor,
  logDir: string,
  responses: StreamChunk[][],
  resume?: string,
  options: JobServiceOptions = {},
): Promise<Session> {
  const ctx = await createHarness();
  await ctx.plugin(jobsPlugin, {
    spill: false,
    detachedPollMs: 10,
    detachedMaxPollMs: 50,
    killGraceMs: TERM_GRACE_MS,
    ...options,
  }).ready;
  await ctx.plugin(bashPlugin, { executor }).ready;
  const adapter = new MockAdapter(responses);
  const agent = await createAgent(ctx, {
    adapter,
    model: "mock",
    cwd: logDir,
    logDir,
    ...(resume !== undefined ? { sessionId: resume, resume: true } : {}),
  });
  return {
    ctx,
    jobs: ctx.get<JobService>("jobs")!,
    agent,
    adapter,
    async [Symbol.asyncDispose]() {
      await agent.dispose();
      await ctx.fiber.dispose();
    },
  };
}

function startInBackground(command: string, extra: Record<string, unknown> = {}): StreamChunk[] {
  return toolCallResponse("c1", "bash", { command, run_in_background: true, ...extra });
}

function detachedRecords(agent: Agent): DetachedJobRecord[] {
  return agent.events.filter((event) => event.type === "job/detached") as never;
}

function endedRecords(agent: Agent): Record<string, unknown>[] {
  return agent.events.filter((event) => event.type === "job/ended");
}

function resultText(agent: Agent, callId: string): string {
  const result = agent.events.find((event) =>
    event.type === "tool/result" && event.callId === callId
  ) as { content: { text: string }[] } | undefined;
  return result?.content.map((block) => block.text).join("") ?? "(no tool/result)";
}

/** Waits (on the job's own output events) until its output contains `text`. */
async function outputContains(jobs: JobService, id: string, text: string): Promise<string> {
  for (;;) {
    const read = await within(jobs.read(id, { waitMs: HANG_GUARD_MS }), `output of ${id}`);
    if (read.text.includes(text)) return read.text;
    if (read.job.status !== "running") return read.text;
    await within(
      jobs.read(id, { cursor: read.total, waitMs: HANG_GUARD_MS }),
      `more output of ${id}`,
    );
  }
}

/** Waits for a file the detached run writes (it runs outside this process: nothing to await). */
async function fileAppears(path: string): Promise<void> {
  await within(
    (async () => {
      while (!await Deno.stat(path).then(() => true, () => false)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })(),
    `${path} to appear`,
  );
}

/** A durable test environment under `dir` (its root exists). */
async function environment(dir: string): Promise<DetachedTestExecutor> {
  const executor = new DetachedTestExecutor(`${dir}/env`);
  await Deno.mkdir(executor.root);
  return executor;
}

/**
 * A first agent starts `command` in the background, waits until its output holds `text`, and is
 * disposed (the run goes on); returns its session id and the run's record.
 */
async function startAndLeave(
  executor: Executor,
  logDir: string,
  command: string,
  text: string,
): Promise<{ readonly sessionId: string; readonly run: DetachedJobRecord["run"] }> {
  await using first = await session(executor, logDir, [
    startInBackground(command),
    textResponse("started"),
  ]);
  await first.agent.prompt("start");
  await outputContains(first.jobs, "bash-1", text);
  return { sessionId: first.agent.sessionId, run: detachedRecords(first.agent)[0]!.run };
}

const WAIT_FOR_GO = "echo one; while [ ! -e GO ]; do sleep 0.05; done; echo two; exit 3";
const SERVE = "echo up; while true; do sleep 0.05; done";

Deno.test("a durable bash job: detached start, output into the job, job/detached and job/ended in the log", async () => {
  await using dir = await tempDir();
  const executor = await environment(dir.path);
  await using s = await session(executor, dir.path, [
    startInBackground(WAIT_FOR_GO),
    textResponse("started"),
  ]);
  await s.agent.prompt("build");
  match(resultText(s.agent, "c1"), /started background job bash-1/);
  // Output comes from reading the run's file: the run was started and recorded before.
  equal(await outputContains(s.jobs, "bash-1", "one"), "one\n");
  const [record] = detachedRecords(s.agent);
  ok(record !== undefined, "job/detached is logged");
  equal(record.jobId, "bash-1");
  equal(record.kind, "bash");
  equal(record.label, WAIT_FOR_GO);
  deepEqual(record.run.environment, executor.environment);
  match(record.run.outputPath, /^.*\/env\/bash-1-[0-9a-f]{8}\/output$/);
  ok(isAlive(record.run.pid), "the detached run is a real process");
  // The model's cursor: the first poll sees "one", the next only what is new.
  equal((await s.jobs.poll("bash-1", { caller: s.agent.sessionId })).text, "one\n");
  equal((await s.jobs.poll("bash-1", { caller: s.agent.sessionId })).text, "");
  await Deno.writeTextFile(`${dir.path}/GO`, "");
  const done = await within(s.jobs.wait("bash-1"), "the job");
  equal(done.status, "completed");
  equal(done.detail.exitCode, 3);
  equal((await s.jobs.read("bash-1")).text, "one\ntwo\n[exit code: 3]");
  equal((await s.jobs.poll("bash-1", { caller: s.agent.sessionId })).text, "two\n[exit code: 3]");
  const [ended] = endedRecords(s.agent);
  equal(ended?.jobId, "bash-1");
  equal(ended?.exitCode, 3);
  equal(ended?.signal, null);
});

Deno.test("a durable job survives its agent; a new agent on the same log adopts it and job_output and job_kill work through the loop", async () => {
  await using dir = await tempDir();
  const executor = await environment(dir.path);
  const command = "trap 'echo got TERM; exit 7' TERM; echo start; while true; do sleep 0.05; done";
  const { sessionId, run: { pid } } = await startAndLeave(executor, dir.path, command, "start");
  ok(isAlive(pid), "the run outlived the agent and its job service");
  await using second = await session(executor, dir.path, [
    toolCallResponse("c2", "job_output", { job_id: "bash-1" }),
    toolCallResponse("c3", "job_kill", { job_id: "bash-1", reason: "done with it" }),
    toolCallResponse("c4", "job_list", {}),
    textResponse("stopped"),
  ], sessionId);
  const loaded = second.agent.events.length;
  const report = await second.jobs.adoptFromLog(second.agent.events, second.agent);
  deepEqual(report, { adopted: [{ id: "bash-1", jobId: "bash-1" }], invalid: [] });
  equal(second.jobs.get("bash-1").status, "running");
  equal((await second.agent.prompt("stop it")).stopReason, "end_turn");
  const calls = second.agent.events.slice(loaded).filter((event) => event.type === "tool/call")
    .map((event) => event.name);
  deepEqual(calls, ["job_output", "job_kill", "job_list"]);
  match(resultText(second.agent, "c2"), /^start\n[\s\S]*\[status: running\]$/);
  equal(
    resultText(second.agent, "c3"),
    "requested cancellation of job bash-1; it stopped [status: killed by the owner session: done with it (exit code: 7)]",
  );
  match(resultText(second.agent, "c4"), /^bash-1 \[bash\] killed by the owner session/);
  equal(isAlive(pid), false);
  match((await second.jobs.read("bash-1")).text, /got TERM\n\[exit code: 7\]$/);
  const [ended] = endedRecords(second.agent);
  deepEqual([ended?.jobId, ended?.exitCode, ended?.killed], ["bash-1", 7, "kill"]);
  // A job started now is numbered past the adopted one.
  equal(
    second.jobs.start({ kind: "bash", label: "x", run: () => {} }),
    "bash-2",
  );
});

Deno.test("a durable job that ended while no agent ran is the usual notice on the next turn, once", async () => {
  await using dir = await tempDir();
  const executor = await environment(dir.path);
  const { sessionId, run: { exitPath } } = await startAndLeave(
    executor,
    dir.path,
    WAIT_FOR_GO,
    "one",
  );
  await Deno.writeTextFile(`${dir.path}/GO`, "");
  await fileAppears(exitPath);
  const notice =
    `background job bash-1 (bash: ${WAIT_FOR_GO}) finished [status: completed, exit code: 3]. Read its output with job_output.`;
  {
    await using second = await session(executor, dir.path, [textResponse("ok")], sessionId);
    await second.jobs.adoptFromLog(second.agent.events, second.agent);
    equal(second.jobs.get("bash-1").status, "completed");
    await second.agent.prompt("what happened?");
    ok(
      JSON.stringify(second.adapter.requests[0]!.messages).includes(
        JSON.stringify(notice).slice(1, -1),
      ),
    );
    equal(endedRecords(second.agent).length, 1);
  }
  await using third = await session(executor, dir.path, [textResponse("ok")], sessionId);
  deepEqual(await third.jobs.adoptFromLog(third.agent.events, third.agent), {
    adopted: [],
    invalid: [],
  });
});

Deno.test("a durable job whose environment is gone is reported lost, not left running", async () => {
  await using dir = await tempDir();
  const executor = await environment(dir.path);
  const { sessionId, run } = await startAndLeave(executor, dir.path, SERVE, "up");
  // The environment is destroyed while the agent is away: its processes and files go.
  Deno.kill(-run.pid, "SIGKILL");
  await fileAppears(run.exitPath);
  await Deno.remove(executor.root, { recursive: true });
  await using second = await session(executor, dir.path, [textResponse("ok")], sessionId);
  await second.jobs.adoptFromLog(second.agent.events, second.agent);
  const job = await within(second.jobs.wait("bash-1"), "the lost job");
  equal(job.status, "failed");
  match(
    job.detail.error ?? "",
    new RegExp(`^lost: its detached-test environment ${executor.root} is gone \\(`),
  );
  await second.agent.prompt("and?");
  match(
    JSON.stringify(second.adapter.requests[0]!.messages),
    /bash-1 .* finished \[status: failed: lost: /,
  );
  equal(endedRecords(second.agent)[0]?.lost, job.detail.error);
});

Deno.test("a durable job's timeout_ms kills its run (SIGTERM) and says so", async () => {
  await using dir = await tempDir();
  const executor = await environment(dir.path);
  await using s = await session(executor, dir.path, [
    startInBackground("echo waiting; exec sleep 600", { timeout_ms: 200 }),
    textResponse("started"),
  ]);
  await s.agent.prompt("wait");
  const job = await within(s.jobs.wait("bash-1"), "the timed-out job");
  equal(detachedRecords(s.agent)[0]?.timeoutMs, 200);
  equal(job.status, "completed");
  equal(job.detail.signal, "SIGTERM");
  equal(
    (await s.jobs.read("bash-1")).text,
    "waiting\n[timed out after 200 ms]\n[killed by signal: SIGTERM]",
  );
  equal(endedRecords(s.agent)[0]?.killed, "timeout");
});

Deno.test("locally a background job is not durable: nothing is logged and it dies with the agent", async () => {
  await using dir = await tempDir();
  const token = uniqueToken();
  const s = await session(new LocalExecutor(), dir.path, [
    startInBackground(`echo up; ${markedSleep(token)}`),
    textResponse("started"),
  ]);
  try {
    await s.agent.prompt("serve");
    await outputContains(s.jobs, "bash-1", "up");
    deepEqual(detachedRecords(s.agent), []);
  } finally {
    await s[Symbol.asyncDispose]();
  }
  deepEqual(await waitGone(token), []);
});

Deno.test("adoptFromLog names unreadable records, kinds with no executor and executors without detached runs; adopt refuses a local executor", async () => {
  await using dir = await tempDir();
  await using s = await session(new LocalExecutor(), dir.path, []);
  const run = { environment: { provider: "p", id: "e" }, pid: 5, outputPath: "/o", exitPath: "/x" };
  const events = [
    {
      type: "job/detached",
      jobId: "bash-1",
      label: "l",
      kind: "bash",
      run: { pid: 5 },
      startedAt: "2026-01-01T00:00:00Z",
    },
    {
      type: "job/detached",
      jobId: "fetch-4",
      label: "l",
      kind: "fetch",
      run,
      startedAt: "2026-01-01T00:00:00Z",
    },
    {
      type: "job/detached",
      jobId: "bash-2",
      label: "l",
      kind: "bash",
      run,
      startedAt: "2026-01-01T00:00:00Z",
    },
  ];
  deepEqual(await s.jobs.adoptFromLog(events, s.agent), {
    adopted: [],
    invalid: [
      "job/detached bash-1: 'run.environment' is missing",
      "job fetch-4: no executor for fetch jobs in this agent (it runs in p e)",
      // The log's job ran remotely; this agent's bash runs locally now.
      "job bash-2: the local executor of this agent cannot reach it (it runs in p e)",
    ],
  });
  throws(
    () =>
      s.jobs.adopt({
        jobId: "bash-9",
        label: "l",
        kind: "bash",
        run,
        startedAt: "2026-01-01T00:00:00Z",
      }, new LocalExecutor()),
    { message: "Cannot adopt job bash-9: the local executor cannot read detached runs" },
  );
});

Deno.test("an adopted job whose id is taken in this process gets a new id, and the model is told", async () => {
  await using dir = await tempDir();
  const executor = await environment(dir.path);
  const { sessionId } = await startAndLeave(executor, dir.path, SERVE, "up");
  await using second = await session(executor, dir.path, [
    toolCallResponse("c2", "job_kill", { job_id: "bash-2" }),
    textResponse("ok"),
  ], sessionId);
  // Another session of this process already has bash-1.
  const gate = Promise.withResolvers<void>();
  second.jobs.start({
    kind: "bash",
    label: "other",
    owner: "other-session",
    run: () => gate.promise,
  });
  deepEqual(await second.jobs.adoptFromLog(second.agent.events, second.agent), {
    adopted: [{ id: "bash-2", jobId: "bash-1" }],
    invalid: [],
  });
  await second.agent.prompt("stop it");
  ok(
    JSON.stringify(second.adapter.requests[0]!.messages).includes(
      "background job bash-1 from before the agent restarted is now job bash-2: use bash-2 with job_output and job_kill.",
    ),
  );
  match(resultText(second.agent, "c2"), /^requested cancellation of job bash-2; it stopped/);
  // The log keeps the job's own id.
  equal(endedRecords(second.agent)[0]?.jobId, "bash-1");
  gate.resolve();
});

Deno.test("an unreachable environment makes an adopted job lost here but not ended: a later load reconnects", async () => {
  await using dir = await tempDir();
  const executor = await environment(dir.path);
  const { sessionId } = await startAndLeave(executor, dir.path, SERVE, "up");
  executor.unreachable = true;
  {
    await using second = await session(executor, dir.path, [], sessionId);
    await second.jobs.adoptFromLog(second.agent.events, second.agent);
    const job = await within(second.jobs.wait("bash-1"), "the unreachable job");
    equal(job.status, "failed");
    match(
      job.detail.error ?? "",
      /could not be reached 5 times in a row \(cannot reach the environment .*\); it may still run: load the session again to reconnect$/,
    );
    deepEqual(endedRecords(second.agent), []);
  }
  executor.unreachable = false;
  await using third = await session(executor, dir.path, [
    toolCallResponse("c3", "job_kill", { job_id: "bash-1" }),
    textResponse("ok"),
  ], sessionId);
  await third.jobs.adoptFromLog(third.agent.events, third.agent);
  equal(third.jobs.get("bash-1").status, "running");
  await third.agent.prompt("stop it");
  match(
    resultText(third.agent, "c3"),
    /^requested cancellation of job bash-1; it stopped \[status: killed by the owner session \(signal SIGTERM\)\]$/,
  );
});

Deno.test("a kill reaches a durable run at once, even while its read is stuck", async () => {
  await using dir = await tempDir();
  const executor = await environment(dir.path);
  await using s = await session(
    executor,
    dir.path,
    [
      startInBackground("trap 'echo bye; exit 4' TERM; echo up; while true; do sleep 0.05; done"),
      textResponse("started"),
    ],
    undefined,
    { detachedCallTimeoutMs: HANG_GUARD_MS },
  );
  await s.agent.prompt("serve");
  await outputContains(s.jobs, "bash-1", "up");
  const { run } = detachedRecords(s.agent)[0]!;
  const release = executor.holdReads();
  const killed = s.jobs.kill("bash-1", { reason: "stop" });
  // The run ends (its exit file appears) while the follower's read is still stuck.
  await fileAppears(run.exitPath);
  equal(isAlive(run.pid), false);
  release();
  const result = await within(killed, "the kill");
  equal(result.outcome, "killed");
  equal(formatJobStatus(result.job), "killed by the host application: stop (exit code: 4)");
  match((await s.jobs.read("bash-1")).text, /bye\n\[exit code: 4\]$/);
});

Deno.test("a read of a durable run that never answers counts as failed: the job is lost here, not hung", async () => {
  await using dir = await tempDir();
  const executor = await environment(dir.path);
  await using s = await session(
    executor,
    dir.path,
    [
      startInBackground(SERVE),
      textResponse("started"),
    ],
    undefined,
    { detachedCallTimeoutMs: 200, detachedReadFailures: 2 },
  );
  await s.agent.prompt("serve");
  await outputContains(s.jobs, "bash-1", "up");
  const { run } = detachedRecords(s.agent)[0]!;
  const release = executor.holdReads();
  try {
    const job = await within(s.jobs.wait("bash-1"), "the stuck job");
    equal(job.status, "failed");
    match(
      job.detail.error ?? "",
      /could not be reached 2 times in a row \(Cannot read the run's output: no answer within 200 ms\)/,
    );
  } finally {
    release();
    Deno.kill(-run.pid, "SIGKILL");
  }
});

Deno.test("a durable start whose record the session log refuses fails JOB_NOT_RECORDED and kills the run", async () => {
  await using dir = await tempDir();
  const executor = await environment(dir.path);
  const ctx = await createHarness({ logSink: () => {} });
  try {
    await ctx.plugin(jobsPlugin, { spill: false, detachedPollMs: 10 }).ready;
    await ctx.plugin(bashPlugin, { executor }).ready;
    const jobs = ctx.get<JobService>("jobs")!;
    const token = uniqueToken();
    const refused: string[] = [];
    const started = await ctx.tools.execute({
      callId: "c1",
      name: "bash",
      arguments: { command: markedSleep(token), run_in_background: true },
      agent: {
        id: "agent-s1",
        sessionId: "s1",
        cwd: dir.path,
        disposed: false,
        inject() {},
        appendEvent(type) {
          refused.push(type);
          throw new Error("disk full");
        },
      },
    });
    equal(started.isError, false, JSON.stringify(started));
    const id = (started.meta as { jobId: string }).jobId;
    const ended = await jobs.wait(id, { timeoutMs: HANG_GUARD_MS });
    equal(ended.status, "failed");
    equal(
      formatJobStatus(jobs.get(id)),
      `failed: Cannot run job ${id} durably: the session log refused its record (disk full); the detached run was killed`,
    );
    deepEqual(refused, ["job/detached"]);
    deepEqual(await waitGone(token), [], "the refused run is killed, not left behind");
  } finally {
    await ctx.fiber.dispose();
  }
});
