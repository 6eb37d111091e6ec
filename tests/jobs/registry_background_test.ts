import { deepEqual, equal, match, ok } from "node:assert/strict";
import { createHarness } from "../../registry/tools_plugin.ts";
import { jobsPlugin } from "../../jobs/jobs_plugin.ts";
import { JobService } from "../../jobs/job_service.ts";
import { useBackground } from "../../jobs/background_mode.ts";
import { defineTool } from "../../tools/define_tool.ts";
import { HANG_GUARD_MS } from "../_helpers.ts";

function slowCounter() {
  const gate = Promise.withResolvers<void>();
  const tool = defineTool({
    name: "count",
    description: "Counts to three, writing each number as output.",
    parameters: { label: { type: "string", required: true } },
    background: true,
    async execute(args, exec) {
      for (let i = 1; i <= 3; i++) {
        exec.output.write(`${args.label} ${i}\n`);
        if (i === 2) await gate.promise;
      }
      return [{ type: "text", text: "done\n" }];
    },
  });
  return { tool, release: () => gate.resolve() };
}

Deno.test("register() adds run_in_background to a background: true tool when the jobs layer is loaded", async () => {
  const ctx = await createHarness();
  try {
    await ctx.plugin(jobsPlugin, { spill: false }).ready;
    const { tool, release } = slowCounter();
    ctx.tools.register(tool);
    const schema = ctx.tools.schemas().find((s) => s.name === "count");
    ok(schema);
    deepEqual(Object.keys(schema.parameters.properties as object).sort(), [
      "label",
      "run_in_background",
    ]);

    const started = await ctx.tools.execute({
      callId: "c1",
      name: "count",
      arguments: { label: "n", run_in_background: true },
    });
    equal(started.isError, false);
    const jobId = (started.meta as { jobId: string }).jobId;
    match(jobId, /^count-\d+$/);

    const jobs = ctx.get<JobService>("jobs");
    ok(jobs);
    release();
    await jobs.wait(jobId, { timeoutMs: HANG_GUARD_MS });
    const read = await jobs.read(jobId, { cursor: 0 });
    equal(read.text, "n 1\nn 2\nn 3\ndone\n");
    equal(jobs.get(jobId).status, "completed");
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("register() keeps a background: true tool in the foreground when no jobs layer is loaded", async () => {
  const ctx = await createHarness();
  try {
    const { tool, release } = slowCounter();
    ctx.tools.register(tool);
    const schema = ctx.tools.schemas().find((s) => s.name === "count");
    deepEqual(Object.keys(schema?.parameters.properties as object), ["label"]);
    release();
    const outcome = await ctx.tools.execute({
      callId: "c1",
      name: "count",
      arguments: { label: "x" },
    });
    deepEqual(outcome.content, [{ type: "text", text: "done\n" }]);
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("useBackground(): define() and body middleware, both removed by its remover", async () => {
  const ctx = await createHarness({ logSink: () => {} });
  await using jobs = new JobService();
  try {
    const remove = useBackground(ctx.tools, jobs, ctx.logger);
    const first = slowCounter();
    ctx.tools.register(first.tool);
    ok("run_in_background" in (ctx.tools.get("count")!.parameters.properties as object));
    const started = await ctx.tools.execute({
      callId: "c1",
      name: "count",
      arguments: { label: "n", run_in_background: true },
    });
    equal(started.isError, false, JSON.stringify(started));
    first.release();
    await jobs.wait((started.meta as { jobId: string }).jobId, { timeoutMs: HANG_GUARD_MS });
    // The body middleware: a start aborted in the same tick is killed and named in a notice.
    const abortedStart = async (callId: string) => {
      const controller = new AbortController();
      const pending = ctx.tools.execute({
        callId,
        name: "count",
        arguments: { label: callId, run_in_background: true },
        signal: controller.signal,
      });
      controller.abort(new DOMException("user cancelled", "AbortError"));
      const outcome = await pending;
      equal(outcome.error?.code, "ABORTED");
      return JSON.stringify(outcome.additionalContexts ?? []);
    };
    ok((await abortedStart("a1")).includes("was started and then killed"));
    remove();
    ok(!(await abortedStart("a2")).includes("was started and then killed"), "no body middleware");
    // Registered after the remover: no rewrite, the tool runs in the foreground.
    const second = slowCounter();
    ctx.tools.register({ ...second.tool, name: "count2" });
    deepEqual(Object.keys(ctx.tools.get("count2")!.parameters.properties as object), ["label"]);
    second.release();
    const direct = await ctx.tools.execute({
      callId: "c2",
      name: "count2",
      arguments: { label: "m" },
    });
    deepEqual(direct.content, [{ type: "text", text: "done\n" }]);
    // The tool registered while it was installed keeps its rewrite.
    ok("run_in_background" in (ctx.tools.get("count")!.parameters.properties as object));
  } finally {
    await ctx.fiber.dispose();
  }
});
