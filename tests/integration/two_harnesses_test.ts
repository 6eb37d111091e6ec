/**
 * Two harnesses in one process share nothing (issue 24, item 3): what one gets (tools,
 * middleware, masks, the jobs plugin, its background layer and its jobs) never shows in the
 * other, and disposing one leaves the other working. Only the public doors are used.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { createHarness, defineTool, type ToolsContext } from "../../mod.ts";
import { type JobService, jobsPlugin } from "../../jobs/mod.ts";
import { HANG_GUARD_MS } from "../_helpers.ts";

const text = (outcome: { readonly content: readonly { type: string; text?: string }[] }) =>
  outcome.content.map((block) => block.text ?? "").join("");

/** A tool that may run in the background: writes its label, waits for `gate`, ends. */
function labelTool(label: string, gate: Promise<void>, name = "label") {
  return defineTool({
    name,
    description: "Writes a label, waits, then ends.",
    parameters: { text: { type: "string", required: true } },
    background: true,
    async execute(args, exec) {
      exec.output.write(`${label}:${args.text}\n`);
      await gate;
      return [{ type: "text", text: "end\n" }];
    },
  });
}

const echoTool = (name = "echo") =>
  defineTool({
    name,
    description: "Echo the text back.",
    parameters: { text: { type: "string", required: true } },
    execute: (args) => [{ type: "text", text: args.text }],
  });

const names = (ctx: ToolsContext) => ctx.tools.list().map((tool) => tool.name);
const params = (ctx: ToolsContext, name: string) =>
  Object.keys(ctx.tools.schemas().find((s) => s.name === name)?.parameters.properties ?? {})
    .sort();

Deno.test("two harnesses in one process share no tools, middleware, masks or jobs", async () => {
  const a = await createHarness({ name: "a" });
  const b = await createHarness({ name: "b" });
  const gate = Promise.withResolvers<void>();
  try {
    // A gets the jobs plugin, its tools, middleware in two phases and a mask.
    await a.plugin(jobsPlugin, { spill: false }).ready;
    a.tools.register(labelTool("a", gate.promise));
    a.tools.register(echoTool());
    a.tools.register(echoTool("secret"));
    const seenByA: string[] = [];
    a.tools.use(
      "tools/pre-execute",
      (call, next) =>
        call.name === "echo" && (call.arguments as { text?: string }).text === "forbidden"
          ? { kind: "deny", reason: "A says no" }
          : next(),
    );
    a.tools.use(async (call, next) => {
      seenByA.push(call.name);
      return await next();
    });
    a.tools.restrict({ deny: ["secret"] });

    // B registers the same names: no clash, and none of A's additions.
    b.tools.register(labelTool("b", gate.promise));
    b.tools.register(echoTool());
    b.tools.register(echoTool("secret"));
    deepEqual(names(a), ["echo", "job_kill", "job_list", "job_output", "label"]);
    deepEqual(names(b), ["echo", "label", "secret"]);
    equal(b.get<JobService>("jobs"), undefined, "B has no job service");
    deepEqual(params(a, "label"), ["run_in_background", "text"], "A's background layer");
    deepEqual(params(b, "label"), ["text"], "A's background layer does not rewrite B's tools");

    // A's middleware runs for A's calls only.
    const denied = await a.tools.execute({
      callId: "a1",
      name: "echo",
      arguments: { text: "forbidden" },
    });
    equal(denied.isError, true);
    match(text(denied), /A says no/);
    const passed = await b.tools.execute({
      callId: "b1",
      name: "echo",
      arguments: { text: "forbidden" },
    });
    equal(passed.isError, false, text(passed));
    equal(text(passed), "forbidden");
    const secret = await b.tools.execute({
      callId: "b2",
      name: "secret",
      arguments: { text: "s" },
    });
    equal(text(secret), "s", "A's mask hides nothing in B");
    deepEqual(seenByA, [], "A's execute middleware saw neither the denied call nor B's");
    equal(
      text(await a.tools.execute({ callId: "a2", name: "echo", arguments: { text: "x" } })),
      "x",
    );
    deepEqual(seenByA, ["echo"]);

    // A's job is A's: B's own jobs plugin starts empty and numbers its own jobs.
    const started = await a.tools.execute({
      callId: "a3",
      name: "label",
      arguments: { text: "one", run_in_background: true },
    });
    equal(started.isError, false, text(started));
    const aJob = (started.meta as { jobId: string }).jobId;
    await b.plugin(jobsPlugin, { spill: false }).ready;
    const jobsA = a.get<JobService>("jobs")!;
    const jobsB = b.get<JobService>("jobs")!;
    ok(jobsA !== jobsB);
    deepEqual(jobsB.list(), []);
    equal(
      text(await b.tools.execute({ callId: "b3", name: "job_list", arguments: {} })),
      "(no background jobs)",
    );
    const other = await b.tools.execute({
      callId: "b4",
      name: "job_output",
      arguments: { job_id: aJob },
    });
    equal(other.isError, true, "B cannot read A's job");
    // Tools registered before B's jobs plugin stay foreground; one registered after gets the layer.
    b.tools.register(labelTool("b", gate.promise, "label2"));
    deepEqual(params(b, "label2"), ["run_in_background", "text"]);
    const bStarted = await b.tools.execute({
      callId: "b5",
      name: "label2",
      arguments: { text: "two", run_in_background: true },
    });
    const bJob = (bStarted.meta as { jobId: string }).jobId;
    deepEqual(jobsA.list().map((job) => job.id), [aJob]);
    deepEqual(jobsB.list().map((job) => job.id), [bJob]);

    gate.resolve();
    await jobsA.wait(aJob, { timeoutMs: HANG_GUARD_MS });
    await jobsB.wait(bJob, { timeoutMs: HANG_GUARD_MS });
    equal((await jobsA.read(aJob)).text, "a:one\nend\n");
    equal((await jobsB.read(bJob)).text, "b:two\nend\n");

    // Disposing A leaves B whole.
    await a.fiber.dispose();
    deepEqual(names(b), [
      "echo",
      "job_kill",
      "job_list",
      "job_output",
      "label",
      "label2",
      "secret",
    ]);
    equal(
      text(await b.tools.execute({ callId: "b6", name: "echo", arguments: { text: "still" } })),
      "still",
    );
    equal(jobsB.get(bJob).status, "completed");
  } finally {
    gate.resolve();
    await a.fiber.dispose();
    await b.fiber.dispose();
  }
});
