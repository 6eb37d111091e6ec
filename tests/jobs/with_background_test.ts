import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { createHarness } from "../../registry/tools_plugin.ts";
import { defineTool } from "../../tools/define_tool.ts";
import type { AgentHandle } from "../../tools/definition.ts";
import type { ToolOutcome } from "../../tools/outcome.ts";
import { jobsPlugin } from "../../jobs/jobs_plugin.ts";
import type { JobService } from "../../jobs/job_service.ts";
import { jobOf, withBackground } from "../../jobs/with_background.ts";

function fakeAgent(sessionId: string): AgentHandle & { injected: string[] } {
  const injected: string[] = [];
  return {
    id: `agent-${sessionId}`,
    sessionId,
    cwd: "/",
    disposed: false,
    injected,
    inject(content) {
      injected.push(typeof content === "string" ? content : JSON.stringify(content));
    },
    appendEvent() {},
  };
}

function text(outcome: ToolOutcome): string {
  return outcome.content.map((block) => block.type === "text" ? block.text : "").join("");
}

async function setup() {
  const ctx = await createHarness();
  await ctx.plugin(jobsPlugin, { spill: false }).ready;
  const jobs = ctx.get<JobService>("jobs")!;
  const gate = Promise.withResolvers<void>();
  const seen: { background: boolean; signal?: AbortSignal } = { background: false };
  const crawl = defineTool({
    name: "crawl",
    description: "Crawl a site.",
    parameters: { url: { type: "string", required: true } },
    background: true,
    presentCall: (args) => ({ card: "terminal", title: `crawl ${args.url}`, description: "Crawl" }),
    async execute(args, exec) {
      seen.background = jobOf(exec) !== undefined;
      seen.signal = exec.signal;
      exec.output.write(`fetched ${args.url}\n`);
      await gate.promise;
      exec.output.write("fetched page 2\n");
      return [{ type: "text", text: "crawled 2 pages" }];
    },
  });
  ctx.plugin({
    name: "crawler",
    inject: ["tools", "jobs"],
    apply(pluginCtx) {
      pluginCtx.get<typeof ctx.tools>("tools")!.register(jobs.wrap(crawl));
    },
  });
  return { ctx, jobs, gate, seen, agent: fakeAgent("s1") };
}

Deno.test("withBackground() runs a non-process tool as a job that an outer cancel does not kill", async () => {
  const { ctx, jobs, gate, seen, agent } = await setup();
  try {
    const schema = ctx.tools.schemas().find((s) => s.name === "crawl")!;
    deepEqual(Object.keys(schema.parameters.properties as object), ["url", "run_in_background"]);
    const outer = new AbortController();
    const started = await ctx.tools.execute({
      callId: "c1",
      name: "crawl",
      arguments: { url: "https://example.com", run_in_background: true },
      agent,
      signal: outer.signal,
    });
    equal(started.isError, false);
    deepEqual(started.meta, { kind: "background", jobId: "crawl-1" });
    ok(text(started).startsWith("started background job crawl-1 (crawl: https://example.com)."));
    outer.abort();
    equal(seen.background, true);
    equal(seen.signal!.aborted, false);
    const first = await ctx.tools.execute({
      callId: "c2",
      name: "job_output",
      arguments: { job_id: "crawl-1" },
      agent,
    });
    equal(text(first), "fetched https://example.com\n[status: running]");
    const none = await ctx.tools.execute({
      callId: "c3",
      name: "job_output",
      arguments: { job_id: "crawl-1" },
      agent,
    });
    equal(text(none), "(no new output)\n[status: running]");
    const waiting = ctx.tools.execute({
      callId: "c4",
      name: "job_output",
      arguments: { job_id: "crawl-1", wait_ms: 600_000 },
      agent,
    });
    gate.resolve();
    let rest = text(await waiting);
    while (!rest.includes("[status: completed]")) {
      rest += text(
        await ctx.tools.execute({
          callId: "c5",
          name: "job_output",
          arguments: { job_id: "crawl-1", wait_ms: 600_000 },
          agent,
        }),
      );
    }
    equal(
      rest.replace(/\(no new output\)\n|\[status: running\]\n?/g, ""),
      "fetched page 2\ncrawled 2 pages\n[status: completed]",
    );
    equal(jobs.get("crawl-1").status, "completed");
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("withBackground() runs the body inline without run_in_background", async () => {
  const { ctx, gate, seen } = await setup();
  try {
    gate.resolve();
    const chunks: string[] = [];
    const outcome = await ctx.tools.execute({
      callId: "c1",
      name: "crawl",
      arguments: { url: "a" },
      onOutput: (chunk) => chunks.push(chunk),
    });
    deepEqual([text(outcome), seen.background, chunks], ["crawled 2 pages", false, [
      "fetched a\n",
      "fetched page 2\n",
    ]]);
    const bad = await ctx.tools.execute({ callId: "c2", name: "crawl", arguments: { url: 1 } });
    equal(
      text(bad),
      'Error: invalid arguments: "url": expected string, received number 1; fix: send "1"',
    );
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("withBackground() turns a terminal card into a generic one in the background", async () => {
  const { ctx, gate } = await setup();
  try {
    gate.resolve();
    const crawl = ctx.tools.get("crawl")!;
    deepEqual(crawl.presentCall!({ url: "x", run_in_background: true }), {
      card: "generic",
      title: "crawl x",
      kind: "execute",
      rawInput: "crawl x",
      content: [{ type: "text", text: "Crawl" }],
    });
    deepEqual(crawl.presentCall!({ url: "x" }), {
      card: "terminal",
      title: "crawl x",
      description: "Crawl",
    });
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("withBackground() rejects a schema that already has run_in_background and wraps once", async () => {
  const { ctx, gate, jobs } = await setup();
  try {
    gate.resolve();
    const wrapped = ctx.tools.get("crawl")!;
    equal(jobs.wrap(wrapped), wrapped);
    throws(
      () =>
        withBackground({
          name: "t",
          description: "d",
          parameters: { type: "object", properties: { run_in_background: { type: "boolean" } } },
          execute: () => [],
        }, jobs),
      {
        name: "TypeError",
        message: 'Cannot add run_in_background to tool "t": the schema already declares it',
      },
    );
  } finally {
    await ctx.fiber.dispose();
  }
});
