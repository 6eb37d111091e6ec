import { equal } from "node:assert/strict";
import { createAgent } from "../../agent/agent.ts";
import { MockAdapter, textResponse, toolCallResponse } from "../../agent/mock_adapter.ts";
import { createHarness } from "../../registry/tools_plugin.ts";
import { defineTool } from "../../tools/define_tool.ts";
import { jobsPlugin } from "../../jobs/jobs_plugin.ts";
import type { JobService } from "../../jobs/job_service.ts";
import { tempDir } from "../_helpers.ts";

const NOTICE =
  "background job work-1 (work: nightly build) finished [status: completed]. Read its output with job_output.";

function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

Deno.test("a background job's completion notice reaches the next model request exactly once", async () => {
  await using dir = await tempDir();
  const ctx = await createHarness();
  await ctx.plugin(jobsPlugin, { spill: false }).ready;
  const jobs = ctx.get<JobService>("jobs")!;
  const gate = Promise.withResolvers<void>();
  ctx.tools.register(jobs.wrap(defineTool({
    name: "work",
    description: "Do work.",
    parameters: { description: { type: "string", required: true } },
    background: true,
    async execute(_args, exec) {
      await gate.promise;
      exec.output.write("built\n");
      return [];
    },
  })));
  const adapter = new MockAdapter([
    toolCallResponse("c1", "work", { description: "nightly build", run_in_background: true }),
    textResponse("started it"),
    // Second turn: the job finishes while the model is busy; the notice must wait for the next step.
    async () => {
      gate.resolve();
      await jobs.wait("work-1");
      return toolCallResponse("c2", "job_list", {});
    },
    textResponse("it finished"),
    textResponse("anything else?"),
  ]);
  const agent = await createAgent(ctx, { adapter, model: "mock", cwd: dir.path, logDir: dir.path });
  try {
    equal((await agent.prompt("build it")).stopReason, "end_turn");
    equal(jobs.get("work-1").status, "running");
    equal((await agent.prompt("status?")).stopReason, "end_turn");
    equal((await agent.prompt("thanks")).stopReason, "end_turn");
    const seen = adapter.requests.map((request) =>
      occurrences(JSON.stringify(request.messages), NOTICE)
    );
    // Requests: [turn1 step1, turn1 step2, turn2 step1, turn2 step2, turn3 step1].
    equal(seen.join(), "0,0,0,1,1");
    const log = await Deno.readTextFile(`${dir.path}/${agent.sessionId}.jsonl`);
    equal(occurrences(log, NOTICE), 1);
  } finally {
    await agent.dispose();
    await ctx.fiber.dispose();
  }
});

Deno.test("disposing the agent kills its background jobs", async () => {
  await using dir = await tempDir();
  const ctx = await createHarness();
  await ctx.plugin(jobsPlugin, { spill: false }).ready;
  const jobs = ctx.get<JobService>("jobs")!;
  const killed = Promise.withResolvers<string>();
  ctx.tools.register(jobs.wrap(defineTool({
    name: "work",
    description: "Do work.",
    parameters: {},
    background: true,
    execute(_args, exec) {
      return new Promise((resolve) =>
        exec.signal.addEventListener("abort", () => {
          killed.resolve(String((exec.signal.reason as Error).message));
          resolve([]);
        })
      );
    },
  })));
  const adapter = new MockAdapter([
    toolCallResponse("c1", "work", { run_in_background: true }),
    textResponse("started"),
  ]);
  const agent = await createAgent(ctx, { adapter, model: "mock", cwd: dir.path, logDir: dir.path });
  try {
    await agent.prompt("go");
    equal(jobs.get("work-1").status, "running");
    await agent.dispose();
    equal(await killed.promise, "job work-1 was killed: owner session disposed");
  } finally {
    await ctx.fiber.dispose();
  }
});
