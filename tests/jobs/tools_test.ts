import { deepEqual, equal } from "node:assert/strict";
import { createHarness } from "../../registry/tools_plugin.ts";
import type { ToolOutcome } from "../../tools/outcome.ts";
import type { AgentHandle } from "../../tools/definition.ts";
import { jobsPlugin } from "../../jobs/jobs_plugin.ts";
import type { JobService } from "../../jobs/job_service.ts";

function agentFor(sessionId: string): AgentHandle {
  return { id: sessionId, sessionId, cwd: "/", disposed: false, inject() {}, appendEvent() {} };
}

function text(outcome: ToolOutcome): string {
  return outcome.content.map((block) => block.type === "text" ? block.text : "").join("");
}

async function setup(config: { killWaitMs?: number } = {}) {
  const ctx = await createHarness();
  await ctx.plugin(jobsPlugin, { spill: false, maxOutputBytes: 1000, ...config }).ready;
  const jobs = ctx.get<JobService>("jobs")!;
  const call = (name: string, args: Record<string, unknown>, agent?: AgentHandle) =>
    ctx.tools.execute({ callId: "c", name, arguments: args, ...(agent ? { agent } : {}) });
  return { ctx, jobs, call };
}

Deno.test("job_list() lists the caller's jobs or says there are none", async () => {
  const { ctx, jobs, call } = await setup();
  try {
    const s1 = agentFor("s1");
    equal(text(await call("job_list", {}, s1)), "(no background jobs)");
    const id = jobs.start({
      kind: "bash",
      label: "npm test",
      owner: "s1",
      run: () => ({ exitCode: 0 }),
    });
    jobs.start({ kind: "bash", label: "other", owner: "s2", run: () => {} });
    await jobs.wait(id);
    equal(text(await call("job_list", {}, s1)), "bash-1 [bash] completed, exit code: 0 — npm test");
    deepEqual(ctx.tools.get("job_list")!.presentCall!({}), {
      card: "generic",
      title: "List background jobs",
      kind: "read",
    });
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("job_kill() kills, reports finished jobs, and respects the fence", async () => {
  const { ctx, jobs, call } = await setup();
  try {
    const s1 = agentFor("s1");
    const id = jobs.start({
      kind: "bash",
      label: "sleep",
      owner: "s1",
      run: (job) =>
        new Promise<void>((resolve) => job.signal.addEventListener("abort", () => resolve())),
    });
    const foreign = await call("job_kill", { job_id: id }, agentFor("s2"));
    deepEqual([foreign.isError, text(foreign)], [
      true,
      "Error: job bash-1 belongs to another session",
    ]);
    const killed = await call("job_kill", { job_id: id, reason: "stuck" }, s1);
    equal(
      text(killed),
      "requested cancellation of job bash-1; it stopped [status: killed by the owner session: stuck]",
    );
    equal(
      text(await call("job_kill", { job_id: id }, s1)),
      "job bash-1 had already finished [status: killed by the owner session: stuck]",
    );
    const unknown = await call("job_kill", { job_id: "bash-7" }, s1);
    equal(text(unknown), 'Error: unknown job "bash-7": expected an id listed by job_list');
    deepEqual(ctx.tools.get("job_kill")!.presentCall!({ job_id: "bash-3" }), {
      card: "generic",
      title: "Kill background job bash-3",
      kind: "other",
    });
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("job_kill() gives up on a producer that does not settle by the deadline: killed, never left stopping", async () => {
  const { ctx, jobs, call } = await setup({ killWaitMs: 0 });
  const release = Promise.withResolvers<void>();
  try {
    const id = jobs.start({
      kind: "slow",
      label: "drain",
      owner: "s1",
      run: async (job) => {
        await release.promise;
        job.output.write("too late");
      },
    });
    equal(
      text(await call("job_kill", { job_id: id }, agentFor("s1"))),
      "requested cancellation of job slow-1; it stopped [status: killed by the owner session; gave up waiting for its producer after 0 ms; later output is dropped]",
    );
    equal(jobs.get(id).status, "killed");
    release.resolve();
    await new Promise((resolve) => setTimeout(resolve, 0)); // the producer writes and settles
    // The first settlement stands and the late output is dropped.
    const read = await jobs.read(id);
    equal(read.job.status, "killed");
    equal(read.text, "");
  } finally {
    release.resolve();
    await ctx.fiber.dispose();
  }
});

Deno.test("job_output() returns only new output of a running job, then (no new output)", async () => {
  const { ctx, jobs, call } = await setup();
  const release = Promise.withResolvers<void>();
  try {
    const s1 = agentFor("s1");
    let write: (text: string) => void = () => {};
    const id = jobs.start({
      kind: "bash",
      label: "tail",
      owner: "s1",
      run: (job) => {
        write = (chunk) => job.output.write(chunk);
        return release.promise;
      },
    });
    write("one\n");
    equal(text(await call("job_output", { job_id: id }, s1)), "one\n[status: running]");
    equal(text(await call("job_output", { job_id: id }, s1)), "(no new output)\n[status: running]");
    write("two\n");
    equal(text(await call("job_output", { job_id: id }, s1)), "two\n[status: running]");
    // Another session's reader of an unowned job would have its own cursor; the fence stops s2.
    const foreign = await call("job_output", { job_id: id }, agentFor("s2"));
    equal(text(foreign), "Error: job bash-1 belongs to another session");
    release.resolve();
    await jobs.wait(id);
    equal(
      text(await call("job_output", { job_id: id }, s1)),
      "(no new output)\n[status: completed]",
    );
  } finally {
    release.resolve();
    await ctx.fiber.dispose();
  }
});

Deno.test("job_output() pages with max_bytes and states the exact pending count", async () => {
  const { ctx, jobs, call } = await setup();
  try {
    const s1 = agentFor("s1");
    const id = jobs.start({
      kind: "gen",
      label: "x",
      owner: "s1",
      run: (job) => job.output.write("a".repeat(2500)),
    });
    await jobs.wait(id);
    const path = jobs.get(id).outputPath;
    const first = text(await call("job_output", { job_id: id, max_bytes: 1000 }, s1));
    equal(
      first,
      `${
        "a".repeat(1000)
      }\n[showing bytes 0–1000 of 2500; 1500 more bytes not shown yet: call job_output again, or read ${path}]\n[status: completed]`,
    );
    const second = text(await call("job_output", { job_id: id }, s1));
    equal(
      second.split("\n")[1],
      "[showing bytes 1000–2000 of 2500; 500 more bytes not shown yet: call job_output again, or read " +
        path + "]",
    );
    equal(
      text(await call("job_output", { job_id: id }, s1)),
      `${"a".repeat(500)}\n[status: completed]`,
    );
    const bad = await call("job_output", { job_id: id, wait_ms: -1 }, s1);
    equal(
      text(bad),
      "Error: job_output: wait_ms must be an integer from 0 to 600000: current value is -1",
    );
    deepEqual(ctx.tools.get("job_output")!.presentCall!({ job_id: "bash-3" }), {
      card: "generic",
      title: "Read output from background job bash-3",
      kind: "read",
    });
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("jobsPlugin kills jobs when its fiber is disposed and when the owner agent is disposed", async () => {
  const ctx = await createHarness();
  const fiber = ctx.plugin(jobsPlugin, { spill: false });
  await fiber.ready;
  const jobs = ctx.get<JobService>("jobs")!;
  const forever = (job: { signal: AbortSignal }) =>
    new Promise<void>((resolve) => job.signal.addEventListener("abort", () => resolve()));
  const aborted = Promise.withResolvers<string>();
  jobs.start({
    kind: "p",
    label: "a",
    owner: "s1",
    run: (job) =>
      new Promise<void>((resolve) =>
        job.signal.addEventListener("abort", () => {
          aborted.resolve((job.signal.reason as Error).message);
          resolve();
        })
      ),
  });
  const b = jobs.start({ kind: "p", label: "b", owner: "s2", run: forever });
  ctx.emit("agent/disposed", agentFor("s1"));
  equal(await aborted.promise, "job p-1 was killed: owner session disposed");
  equal(jobs.get(b).status, "running");
  await fiber.dispose();
  deepEqual([jobs.get(b).status, jobs.get(b).detail.killedBy], ["killed", "service-disposed"]);
  await ctx.fiber.dispose();
});
