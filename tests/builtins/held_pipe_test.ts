/**
 * A descendant that keeps the output pipe open (`env -i setsid -f …` with stdout inherited)
 * must not hold a bash call, a job kill or a disposal past its deadline. With the PID namespace
 * the descendant dies with the call; without it (tracked mode) reading stops and the result says
 * why. Real processes; the bounds are failure guards.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { bashPlugin } from "../../builtins/bash.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import { jobsPlugin } from "../../jobs/jobs_plugin.ts";
import type { JobService } from "../../jobs/job_service.ts";
import { createHarness, type ToolsContext } from "../../mod.ts";
import {
  markedSleep,
  processesWithArg,
  TERM_GRACE_MS,
  uniqueToken,
  waitGone,
  waitMarked,
  within,
} from "../_helpers.ts";
import { fakeAgent, text } from "./_fixtures.ts";

async function harness(pidNamespace: boolean): Promise<ToolsContext> {
  const ctx = await createHarness();
  await ctx.plugin(jobsPlugin, { spill: false }).ready;
  await ctx.plugin(bashPlugin, {
    executor: new LocalExecutor({ pidNamespace }),
    // SIGTERM ends these trees; a long grace keeps a starved one from reading SIGKILL.
    killGraceMs: TERM_GRACE_MS,
  }).ready;
  return ctx;
}

function cleanup(token: string): void {
  for (const pid of processesWithArg(token)) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }
}

Deno.test("bash with timeout_ms returns by its timeout when an escaped descendant holds stdout (tracked mode)", async () => {
  const token = uniqueToken();
  const ctx = await harness(false);
  try {
    const outcome = await within(
      ctx.tools.execute({
        callId: "c1",
        name: "bash",
        arguments: {
          command: `echo captured; env -i setsid -f ${markedSleep(token, 60)}; sleep 300`,
          timeout_ms: 500,
        },
        agent: fakeAgent(Deno.cwd()),
      }),
      "the bash call",
    );
    equal(
      text(outcome),
      "captured\n[output incomplete: a background process kept the output open after the command ended; stopped reading]\n[timed out after 500 ms]\n[killed by signal: SIGTERM]",
    );
    deepEqual(outcome.meta, {
      outputChars: 8,
      outputNewline: true,
      exitCode: null,
      signal: "SIGTERM",
      timedOut: true,
      pipeHeldOpen: true,
    });
  } finally {
    cleanup(token);
    await ctx.fiber.dispose();
  }
});

Deno.test("bash with timeout_ms in a PID namespace kills the descendant holding stdout and keeps all output", async () => {
  const token = uniqueToken();
  const ctx = await harness(true);
  try {
    const outcome = await within(
      ctx.tools.execute({
        callId: "c1",
        name: "bash",
        arguments: {
          command: `echo captured; env -i setsid -f ${markedSleep(token, 60)}; sleep 300`,
          timeout_ms: 500,
        },
        agent: fakeAgent(Deno.cwd()),
      }),
      "the bash call",
    );
    ok(text(outcome).startsWith("captured\n[timed out after 500 ms]"), text(outcome));
    deepEqual(await waitGone(token), []);
  } finally {
    cleanup(token);
    await ctx.fiber.dispose();
  }
});

for (const pidNamespace of [false, true]) {
  const mode = pidNamespace ? "PID namespace" : "tracked mode";
  Deno.test(`job_kill and dispose of a background bash whose descendant holds stdout end by their deadline (${mode})`, async () => {
    const token = uniqueToken();
    const ctx = await harness(pidNamespace);
    const agent = fakeAgent(Deno.cwd());
    try {
      const started = await ctx.tools.execute({
        callId: "b1",
        name: "bash",
        arguments: {
          command: `env -i setsid -f ${markedSleep(token, 60)}; ${markedSleep(token)}`,
          run_in_background: true,
        },
        agent,
      });
      const jobId = (started.meta as { jobId: string }).jobId;
      await waitMarked(token, 2);
      const jobs = ctx.get<JobService>("jobs")!;
      const killed = await within(
        jobs.kill(jobId, { caller: agent.sessionId }),
        "job_kill",
      );
      deepEqual([killed.outcome, killed.job.status], ["killed", "killed"]);
      // A second job, left running, goes with the disposal.
      await ctx.tools.execute({
        callId: "b2",
        name: "bash",
        arguments: { command: markedSleep(token), run_in_background: true },
        agent,
      });
      await waitMarked(token, 1);
      await within(ctx.fiber.dispose(), "dispose");
      for (const job of jobs.list()) ok(job.status !== "stopping", JSON.stringify(job));
      if (pidNamespace) deepEqual(await waitGone(token), []);
    } finally {
      cleanup(token);
      await ctx.fiber.dispose();
    }
  });
}
