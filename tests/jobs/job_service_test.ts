import { deepEqual, equal, rejects, throws } from "node:assert/strict";
import { HarnessError } from "../../core/errors.ts";
import { JobService } from "../../jobs/job_service.ts";
import type { JobControl } from "../../jobs/types.ts";
import type { AgentHandle } from "../../tools/definition.ts";
import { isAlive, tempDir } from "../_helpers.ts";

/** A hand-written agent double recording injects. */
function fakeAgent(sessionId: string): AgentHandle & { injected: string[]; dispose(): void } {
  let disposed = false;
  const injected: string[] = [];
  return {
    id: `agent-${sessionId}`,
    sessionId,
    cwd: "/",
    get disposed() {
      return disposed;
    },
    injected,
    inject(content) {
      if (disposed) throw new Error("disposed");
      injected.push(typeof content === "string" ? content : JSON.stringify(content));
    },
    appendEvent() {},
    dispose() {
      disposed = true;
    },
  };
}

/** A producer that hands control to the test: each `step()` resolves the producer's next await. */
function steppedProducer() {
  let control!: JobControl;
  let gate = Promise.withResolvers<boolean>();
  return {
    run: async (job: JobControl) => {
      control = job;
      while (await gate.promise) gate = Promise.withResolvers<boolean>();
    },
    get job() {
      return control;
    },
    step(text: string) {
      control.output.write(text);
    },
    finish() {
      gate.resolve(false);
    },
  };
}

Deno.test("JobService.poll() returns each byte exactly once across incremental reads", async () => {
  await using dir = await tempDir();
  await using jobs = new JobService({ spillDir: dir.path, windowBytes: 64 });
  const producer = steppedProducer();
  const id = jobs.start({ kind: "gen", label: "lines", owner: "s1", run: producer.run });
  equal(id, "gen-1");
  let expected = "";
  let got = "";
  for (let i = 0; i < 300; i++) {
    const line = `line ${i} ${"é".repeat(i % 7)}\n`;
    expected += line;
    producer.step(line);
    if (i % 13 === 0) got += (await jobs.poll(id, { caller: "s1", maxBytes: 50 })).text;
  }
  producer.finish();
  await jobs.wait(id);
  for (;;) {
    const read = await jobs.poll(id, { caller: "s1", maxBytes: 100 });
    got += read.text;
    if (read.next === read.total) break;
  }
  equal(got, expected);
  const job = jobs.get(id);
  equal(job.status, "completed");
  equal(job.reported, true);
  equal((await Deno.stat(job.outputPath!)).size, new TextEncoder().encode(expected).length);
});

Deno.test("JobService.read() supports independent readers with their own cursors", async () => {
  await using jobs = new JobService();
  const id = jobs.start({ kind: "gen", label: "x", run: (job) => job.output.write("abcdef") });
  await jobs.wait(id);
  const a = await jobs.read(id, { cursor: 0, maxBytes: 2 });
  const b = await jobs.read(id, { cursor: 3 });
  deepEqual([a.text, a.next, b.text, b.next], ["ab", 2, "def", 6]);
  equal((await jobs.poll(id)).text, "abcdef");
  equal((await jobs.poll(id)).text, "");
});

Deno.test("JobService.poll() with waitMs resolves when output arrives", async () => {
  await using jobs = new JobService();
  const producer = steppedProducer();
  const id = jobs.start({ kind: "gen", label: "x", owner: "s1", run: producer.run });
  const pending = jobs.poll(id, { caller: "s1", waitMs: 600_000 });
  producer.step("hello");
  const read = await pending;
  deepEqual([read.text, read.job.status], ["hello", "running"]);
  const idle = await jobs.poll(id, { caller: "s1", waitMs: 1 });
  deepEqual([idle.text, idle.job.status], ["", "running"]);
  const settled = jobs.poll(id, { caller: "s1", waitMs: 600_000 });
  producer.finish();
  equal((await settled).job.status, "completed");
});

Deno.test("JobService.poll() stops waiting on its signal without touching the job", async () => {
  await using jobs = new JobService();
  const producer = steppedProducer();
  const id = jobs.start({ kind: "gen", label: "x", run: producer.run });
  const controller = new AbortController();
  const pending = jobs.poll(id, { waitMs: 600_000, signal: controller.signal });
  controller.abort(new Error("caller gave up"));
  await rejects(pending, { message: "caller gave up" });
  equal(jobs.get(id).status, "running");
  producer.finish();
  await jobs.wait(id);
});

Deno.test("JobService records honest terminal statuses", async () => {
  await using jobs = new JobService();
  const ok = jobs.start({ kind: "p", label: "ok", run: () => ({ exitCode: 0 }) });
  const bad = jobs.start({
    kind: "p",
    label: "bad",
    run: () => Promise.reject(new Error("disk full")),
  });
  const exit = jobs.start({
    kind: "p",
    label: "exit",
    run: () => ({ status: "failed", exitCode: 3, error: "tests failed" }),
  });
  deepEqual((await jobs.wait(ok)).detail, { exitCode: 0 });
  const failed = await jobs.wait(bad);
  deepEqual([failed.status, failed.detail.error], ["failed", "disk full"]);
  deepEqual((await jobs.wait(exit)).detail, { exitCode: 3, error: "tests failed" });
  const killed = jobs.start({
    kind: "p",
    label: "slow",
    run: (job) =>
      new Promise((_, reject) =>
        job.signal.addEventListener("abort", () => reject(job.signal.reason))
      ),
  });
  const result = await jobs.kill(killed, { reason: "not needed" });
  deepEqual([result.outcome, result.job.status, result.job.detail], ["killed", "killed", {
    killedBy: "embedder",
    reason: "not needed",
  }]);
  equal((await jobs.kill(killed)).outcome, "already-finished");
});

Deno.test("JobService enforces the owner fence", async () => {
  await using jobs = new JobService();
  const producer = steppedProducer();
  const id = jobs.start({ kind: "bash", label: "secret", owner: "s1", run: producer.run });
  const open = jobs.start({ kind: "bash", label: "open", run: () => {} });
  const fence = {
    name: "HarnessError",
    code: "JOB_FORBIDDEN",
    message: `job ${id} belongs to another session`,
  };
  throws(() => jobs.get(id, "s2"), fence);
  await rejects(jobs.read(id, { caller: "s2" }), fence);
  await rejects(jobs.poll(id, { caller: "s2" }), fence);
  await rejects(jobs.kill(id, { caller: "s2" }), fence);
  deepEqual(jobs.list("s2").map((job) => job.id), [open]);
  deepEqual(jobs.list("s1").map((job) => job.id), [id, open]);
  deepEqual(jobs.list().map((job) => job.id), [id, open]);
  throws(
    () => jobs.get("bash-9"),
    (error) =>
      error instanceof HarnessError && error.code === "JOB_NOT_FOUND" &&
      error.message === 'unknown job "bash-9": expected an id listed by job_list',
  );
  producer.finish();
});

Deno.test("JobService sends the completion notice exactly once", async (t) => {
  await t.step("on completion", async () => {
    await using jobs = new JobService();
    const agent = fakeAgent("s1");
    const id = jobs.start({
      kind: "bash",
      label: "npm test",
      owner: agent,
      run: () => ({ exitCode: 1 }),
    });
    await jobs.wait(id);
    await jobs.poll(id, { caller: "s1" });
    deepEqual(agent.injected, [
      "background job bash-1 (bash: npm test) finished [status: completed, exit code: 1]. Read its output with job_output.",
    ]);
  });
  await t.step("not after the owner's kill", async () => {
    await using jobs = new JobService();
    const agent = fakeAgent("s1");
    const producer = steppedProducer();
    const id = jobs.start({ kind: "bash", label: "x", owner: agent, run: producer.run });
    const killing = jobs.kill(id, { caller: "s1", reason: "done" });
    producer.finish();
    equal((await killing).job.status, "killed");
    deepEqual(agent.injected, []);
  });
  await t.step("not when the owner's waiting poll read it to the end", async () => {
    await using jobs = new JobService();
    const agent = fakeAgent("s1");
    const producer = steppedProducer();
    const id = jobs.start({ kind: "bash", label: "x", owner: agent, run: producer.run });
    const polling = jobs.poll(id, { caller: "s1", waitMs: 600_000 });
    producer.finish();
    const read = await polling;
    deepEqual([read.job.status, read.job.reported, agent.injected], ["completed", true, []]);
  });
  await t.step("after a waiting poll by another session", async () => {
    await using jobs = new JobService();
    const agent = fakeAgent("s1");
    const producer = steppedProducer();
    const id = jobs.start({ kind: "bash", label: "x", run: producer.run });
    equal(jobs.get(id).owner, undefined);
    const owned = jobs.start({ kind: "bash", label: "y", owner: agent, run: () => {} });
    const polling = jobs.poll(id, { caller: "s2", waitMs: 600_000 });
    producer.finish();
    await polling;
    await jobs.wait(owned);
    equal(agent.injected.length, 1);
  });
  await t.step("dropped silently for a disposed agent", async () => {
    await using jobs = new JobService();
    const agent = fakeAgent("s1");
    const producer = steppedProducer();
    const id = jobs.start({ kind: "bash", label: "x", owner: agent, run: producer.run });
    agent.dispose();
    producer.finish();
    equal((await jobs.wait(id)).status, "completed");
  });
});

Deno.test("JobService.kill() kills a process tree with grandchildren and confirms reaping", async () => {
  await using jobs = new JobService({ killGraceMs: 500 });
  const pids = Promise.withResolvers<number[]>();
  const id = jobs.start({
    kind: "sh",
    label: "tree",
    owner: "s1",
    run: async (job) => {
      const child = new Deno.Command("sh", {
        args: [
          "-c",
          "trap '' TERM; (sleep 300; true) & setsid sleep 301 & echo $!; sleep 302 & wait",
        ],
        detached: true,
        stdout: "piped",
        stderr: "null",
      }).spawn();
      job.trackProcess(child.pid, { group: true });
      const reader = child.stdout.getReader();
      const first = await reader.read();
      job.output.write(first.value!);
      const setsidPid = Number(new TextDecoder().decode(first.value!).trim());
      pids.resolve([child.pid, setsidPid]);
      while (!(await reader.read()).done);
      const status = await child.status;
      return {
        ...(status.signal !== null ? { signal: status.signal } : {}),
        exitCode: status.code,
      };
    },
  });
  const [shell, escaped] = await pids.promise;
  const before = [shell!, escaped!];
  deepEqual(before.map(isAlive), [true, true]);
  const result = await jobs.kill(id, { caller: "s1", reason: "tree test" });
  equal(result.outcome, "killed");
  equal(result.job.status, "killed");
  equal(result.job.detail.survivors, undefined);
  equal(result.job.detail.signal, "SIGKILL");
  deepEqual(before.map(isAlive), [false, false]);
});

Deno.test("JobService.disposeOwner() kills the session's jobs and leftover group processes", async () => {
  await using jobs = new JobService({ killGraceMs: 500 });
  const agent = fakeAgent("s1");
  const pid = Promise.withResolvers<number>();
  const running = jobs.start({
    kind: "sh",
    label: "server",
    owner: agent,
    run: async (job) => {
      const child = new Deno.Command("sleep", { args: ["300"], detached: true }).spawn();
      job.trackProcess(child.pid, { group: true });
      pid.resolve(child.pid);
      await child.status;
    },
  });
  const leftover = Promise.withResolvers<number>();
  const finished = jobs.start({
    kind: "sh",
    label: "spawns a daemon",
    owner: agent,
    run: async (job) => {
      const child = new Deno.Command("sh", {
        args: ["-c", "sleep 303 > /dev/null 2>&1 & echo $!"],
        detached: true,
        stdout: "piped",
      }).spawn();
      job.trackProcess(child.pid, { group: true });
      const out = await child.output();
      leftover.resolve(Number(new TextDecoder().decode(out.stdout).trim()));
    },
  });
  const other = jobs.start({ kind: "sh", label: "other", owner: "s2", run: () => {} });
  await jobs.wait(finished);
  const daemon = await leftover.promise;
  const server = await pid.promise;
  equal(isAlive(daemon), true);
  await jobs.disposeOwner("s1");
  deepEqual([isAlive(server), isAlive(daemon)], [false, false]);
  deepEqual(agent.injected.length, 1); // only the finished job's notice, before disposal
  throws(() => jobs.get(running), { code: "JOB_NOT_FOUND" });
  equal(jobs.get(other).status, "completed");
});

Deno.test("JobService.dispose() kills running jobs and refuses new ones", async () => {
  const jobs = new JobService();
  const id = jobs.start({
    kind: "p",
    label: "x",
    run: (job) =>
      new Promise<void>((resolve) => job.signal.addEventListener("abort", () => resolve())),
  });
  await jobs.dispose();
  const job = jobs.get(id);
  deepEqual([job.status, job.detail.killedBy], ["killed", "service-disposed"]);
  throws(() => jobs.start({ kind: "p", label: "y", run: () => {} }), {
    name: "TypeError",
    message: "Cannot start job: the job service is disposed",
  });
});

Deno.test("JobService.start() validates its input", () => {
  const jobs = new JobService();
  throws(() => jobs.start({ kind: "bad kind", label: "x", run: () => {} }), {
    name: "TypeError",
    message:
      "Cannot start job as 'kind' must match /^[A-Za-z0-9_.-]{1,64}$/: current value is \"bad kind\"",
  });
  const agent = fakeAgent("s9");
  agent.dispose();
  throws(() => jobs.start({ kind: "p", label: "x", owner: agent, run: () => {} }), {
    message: "Cannot start job: the owner agent of session s9 is disposed",
  });
  throws(() => new JobService({ windowBytes: -1 }), { name: "RangeError" });
});
