/**
 * Registry faults of issue 14: a background start aborted in the same tick, output of an
 * abandoned body, hostile request objects, and fiber disposal with calls running.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { bashPlugin } from "../../builtins/bash.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import type { Context } from "../../core/context.ts";
import { jobsPlugin } from "../../jobs/jobs_plugin.ts";
import type { JobService } from "../../jobs/job_service.ts";
import type { ToolRegistry } from "../../registry/types.ts";
import { fakeAgent, harness, rawTool, text, untilAborted } from "./_harness.ts";
import { HANG_GUARD_MS } from "../_helpers.ts";

Deno.test("a background start aborted in the same tick is killed and its id is reported", async () => {
  await using h = await harness();
  await h.ctx.plugin(jobsPlugin, { spill: false }).ready;
  await h.ctx.plugin(bashPlugin, { executor: new LocalExecutor(), killGraceMs: 50 }).ready;
  const jobs = h.ctx.get<JobService>("jobs")!;
  const marker = `dsh-orphan-${crypto.randomUUID()}`;
  const controller = new AbortController();
  const pending = h.ctx.tools.execute({
    callId: "c1",
    name: "bash",
    arguments: { command: `sleep 30; : ${marker}`, run_in_background: true },
    agent: fakeAgent("s1"),
    signal: controller.signal,
  });
  controller.abort(new DOMException("user cancelled", "AbortError"));
  const outcome = await pending;
  equal(outcome.isError, true);
  equal(outcome.error?.code, "ABORTED");
  const notice = outcome.additionalContexts?.flat().map((block) => text({ content: [block] }));
  match(notice?.join("\n") ?? "", /background job (bash-\d+) \(bash\) was started and then killed/);
  const jobId = /background job (bash-\d+)/.exec(notice!.join("\n"))![1]!;
  const done = await jobs.wait(jobId, { timeoutMs: HANG_GUARD_MS });
  equal(done.status, "killed");
  const survivors = await new Deno.Command("pgrep", { args: ["-f", marker], stdout: "piped" })
    .output();
  equal(new TextDecoder().decode(survivors.stdout).trim(), "", "no process of the job survives");
  // Nothing else is left running.
  deepEqual(jobs.list().filter((job) => job.status === "running"), []);
});

Deno.test("a background start that returns before the abort keeps running and its id is returned", async () => {
  await using h = await harness();
  await h.ctx.plugin(jobsPlugin, { spill: false }).ready;
  await h.ctx.plugin(bashPlugin, { executor: new LocalExecutor(), killGraceMs: 50 }).ready;
  const jobs = h.ctx.get<JobService>("jobs")!;
  const controller = new AbortController();
  const outcome = await h.ctx.tools.execute({
    callId: "c1",
    name: "bash",
    arguments: { command: "sleep 30", run_in_background: true },
    agent: fakeAgent("s1"),
    signal: controller.signal,
  });
  controller.abort();
  equal(outcome.isError, false);
  const jobId = (outcome.meta as { jobId: string }).jobId;
  equal(jobs.get(jobId).status, "running", "an outer cancel after the start does not kill the job");
  await jobs.kill(jobId);
});

Deno.test("output written by an abandoned body after its result was published is dropped", async () => {
  await using h = await harness({ abortGraceMs: 20 });
  const release = Promise.withResolvers<void>();
  const finished = Promise.withResolvers<void>();
  h.ctx.tools.register(rawTool("stubborn", async (_args, exec) => {
    exec.output.write("early\n");
    await release.promise; // ignores exec.signal
    exec.output.write("late\n");
    finished.resolve();
    return [];
  }));
  const seen: string[] = [];
  const controller = new AbortController();
  const pending = h.ctx.tools.execute({
    callId: "c1",
    name: "stubborn",
    arguments: {},
    signal: controller.signal,
    onOutput: (chunk) => seen.push(chunk),
  });
  await Promise.resolve();
  controller.abort();
  const outcome = await pending;
  equal(outcome.error?.code, "ABORTED");
  release.resolve();
  await finished.promise;
  deepEqual(seen, ["early\n"]);
});

Deno.test("execute() resolves with an error when the request has throwing getters", async (t) => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t"));
  const boom = (): never => {
    throw new Error("getter exploded");
  };
  const cases: [string, object][] = [
    ["callId", {
      get callId() {
        return boom();
      },
      name: "t",
      arguments: {},
    }],
    ["name", {
      callId: "c",
      get name() {
        return boom();
      },
      arguments: {},
    }],
    ["signal", {
      callId: "c",
      name: "t",
      arguments: {},
      get signal() {
        return boom();
      },
    }],
    ["onOutput", {
      callId: "c",
      name: "t",
      arguments: {},
      get onOutput() {
        return boom();
      },
    }],
    [
      "agent.sessionId",
      {
        callId: "c",
        name: "t",
        arguments: {},
        agent: {
          get sessionId() {
            return boom();
          },
        },
      },
    ],
  ];
  for (const [field, request] of cases) {
    await t.step(field, async () => {
      const outcome = await h.ctx.tools.execute(request as never);
      equal(outcome.isError, true);
      match(text(outcome), /getter exploded/);
    });
  }
  const hostileArgs = await h.ctx.tools.execute({
    callId: "c",
    name: "t",
    arguments: {
      get x() {
        return boom();
      },
    },
  });
  equal(
    text(hostileArgs),
    'Error: tool execution arguments must be losslessly JSON-serializable: "x" could not be read (its getter threw: getter exploded)',
  );
});

Deno.test("disposing a fiber aborts its running calls with ABORTED", async () => {
  await using h = await harness();
  const started = Promise.withResolvers<void>();
  h.ctx.tools.register(rawTool("wait", async (_args, exec) => {
    started.resolve();
    await untilAborted(exec);
    return [];
  }));
  let childCtx: Context | undefined;
  const child = h.ctx.plugin({
    name: "caller",
    inject: ["tools"],
    apply(ctx) {
      childCtx = ctx;
    },
  }, {});
  await child.ready;
  const tools = childCtx!.get<ToolRegistry>("tools")!;
  const pending = tools.execute({ callId: "c1", name: "wait", arguments: {} });
  await started.promise;
  await child.dispose();
  const outcome = await pending;
  equal(outcome.error?.code, "ABORTED");
  equal(text(outcome), "Error: tool call aborted");
  // A call through the disposed fiber's view is not dispatched at all.
  const late = await tools.execute({ callId: "c2", name: "wait", arguments: {} });
  equal(late.error?.code, "ABORTED_BEFORE_DISPATCH");
});

Deno.test("disposing the root fiber aborts running calls with ABORTED", async () => {
  const h = await harness();
  const started = Promise.withResolvers<void>();
  h.ctx.tools.register(rawTool("wait", async (_args, exec) => {
    started.resolve();
    await untilAborted(exec);
    return [];
  }));
  const pending = h.ctx.tools.execute({ callId: "c1", name: "wait", arguments: {} });
  await started.promise;
  await h.ctx.fiber.dispose();
  equal((await pending).error?.code, "ABORTED");
});
