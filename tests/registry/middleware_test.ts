/**
 * `ctx.tools.use(phase, middleware)`: one extension point, ordered by phase then installation,
 * with each phase's rules (policy may only deny or pass, guard is final, `tools/execute` only
 * touches the signal, post-execute never turns a failure into a success, result only observes).
 */
import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { defineTool } from "../../tools/define_tool.ts";
import { errorOutcome, type ToolOutcome } from "../../tools/outcome.ts";
import { type ApprovalOutcome, TOOL_PHASES, type ToolPhase } from "../../registry/hooks.ts";
import type { ToolExecution } from "../../tools/definition.ts";
import type { ToolCall, ToolMiddleware } from "../../registry/types.ts";
import { countingTool, fakeAgent, harness, rawTool, text, untilAborted } from "./_harness.ts";

const deny = (reason: string): ToolOutcome => errorOutcome(reason, { code: "DENIED" });

Deno.test("middleware runs by phase, then by installation, whatever order it was installed in", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t", () => {
    order.push("tool body");
    return [{ type: "text", text: "ok" }];
  }));
  const order: string[] = [];
  const tracing = (label: string): ToolMiddleware => async (_call, next) => {
    order.push(`${label} in`);
    const outcome = await next();
    order.push(`${label} out`);
    return outcome;
  };
  // Installed innermost first, and two per phase to show installation order inside a phase.
  for (const phase of [...TOOL_PHASES].reverse()) {
    if (phase === "tools/result") continue;
    h.ctx.tools.use(phase, tracing(`${phase} 1`));
    h.ctx.tools.use(phase, tracing(`${phase} 2`));
  }
  h.ctx.tools.use("tools/result", (call, next) => {
    order.push(`result sees ${call.outcome?.isError === false ? "the published outcome" : "?"}`);
    return next();
  });
  equal(text(await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} })), "ok");
  const inward = [
    "route",
    "tools/post-execute",
    "tools/pre-execute",
    "guard",
    "tools/execute",
    "body",
  ]
    .flatMap((phase) => [`${phase} 1 in`, `${phase} 2 in`]);
  const outward = inward.slice().reverse().map((entry) => entry.replace(" in", " out"));
  deepEqual(order, [...inward, "tool body", ...outward, "result sees the published outcome"]);
});

Deno.test("use(middleware) without a phase is tools/execute; the ctx.on sugar runs first in its phase", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t"));
  const order: string[] = [];
  h.ctx.tools.use(async (_call, next) => {
    order.push("use");
    return await next();
  });
  h.ctx.on("tools/execute", async (_exec: unknown, next: () => Promise<ToolOutcome>) => {
    order.push("ctx.on");
    return await next();
  });
  h.ctx.tools.use("guard", (_call, next) => {
    order.push("guard");
    return next();
  });
  await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} });
  deepEqual(order, ["guard", "ctx.on", "use"]);
});

Deno.test("a pre-execute middleware denies without next(); the body is skipped and post-execute sees the denial", async () => {
  await using h = await harness();
  const counter = { runs: 0 };
  h.ctx.tools.register(countingTool("rm", counter));
  h.ctx.tools.register(countingTool("ls", counter));
  const seen: ToolOutcome[] = [];
  h.ctx.tools.use("tools/post-execute", async (_call, next) => {
    const outcome = await next();
    seen.push(outcome);
    return outcome;
  });
  h.ctx.tools.use("tools/pre-execute", (call, next) => call.name === "rm" ? deny("no rm") : next());
  const denied = await h.ctx.tools.execute({ callId: "1", name: "rm", arguments: {} });
  equal(text(denied), "Error: no rm");
  equal(denied.error?.code, "DENIED");
  equal(counter.runs, 0);
  equal((await h.ctx.tools.execute({ callId: "2", name: "ls", arguments: {} })).isError, false);
  equal(counter.runs, 1);
  deepEqual(seen.map((o) => o.isError), [true, false]);
});

Deno.test("policy phases may only deny or pass: a guard's denial is final", async (t) => {
  for (const phase of ["tools/pre-execute", "guard"] as const) {
    await t.step(`${phase}: replacing next()'s outcome is an error`, async () => {
      await using h = await harness();
      h.ctx.tools.register(rawTool("t"));
      h.ctx.tools.guard(() => "the guard says no");
      h.ctx.tools.use(phase, async (_call, next) => {
        await next();
        return { isError: false, content: [{ type: "text", text: "allowed anyway" }] };
      });
      const outcome = await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} });
      equal(outcome.isError, true);
      // In pre-execute, the guard runs inside and denies: that outcome may not be replaced. In the
      // guard phase, the earlier guard denies first and the replacing middleware never runs.
      equal(
        text(outcome),
        phase === "guard"
          ? "Error: the guard says no"
          : `Error: a ${phase} middleware cannot replace the outcome of next()`,
      );
    });
    await t.step(`${phase}: a success without next() is refused`, async () => {
      await using h = await harness();
      const counter = { runs: 0 };
      h.ctx.tools.register(countingTool("t", counter));
      h.ctx.tools.use(phase, () => ({ isError: false, content: [] }));
      const outcome = await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} });
      equal(
        text(outcome),
        `Error: a ${phase} middleware may only deny (an error outcome) or call next()`,
      );
      equal(outcome.error?.name, "TypeError");
      equal(counter.runs, 0);
    });
  }
});

Deno.test("tools/execute middleware passes a signal to next(); the caller's is joined in", async () => {
  await using h = await harness();
  const bodySignals: AbortSignal[] = [];
  const started = Promise.withResolvers<void>();
  h.ctx.tools.register(rawTool("t", (_args, exec) => {
    bodySignals.push(exec.signal);
    started.resolve();
    return untilAborted(exec);
  }));
  const mine = new AbortController();
  h.ctx.tools.use("tools/execute", (_call, next) => next(mine.signal));
  const caller = new AbortController();
  const running = h.ctx.tools.execute({
    callId: "1",
    name: "t",
    arguments: {},
    signal: caller.signal,
  });
  await started.promise;
  mine.abort(new Error("the middleware's deadline"));
  const outcome = await running;
  equal(text(outcome), "Error: the middleware's deadline");
  ok(bodySignals[0]!.aborted);
  equal(caller.signal.aborted, false);
});

Deno.test("tools/execute middleware: a non-signal passed to next() is an error, the body never runs", async () => {
  await using h = await harness();
  const counter = { runs: 0 };
  h.ctx.tools.register(countingTool("t", counter));
  h.ctx.tools.use((_call, next) => next("soon" as unknown as AbortSignal));
  const outcome = await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} });
  equal(
    text(outcome),
    'Error: a tools/execute middleware passed "soon" to next(): expected an AbortSignal',
  );
  equal(counter.runs, 0);
});

Deno.test("post-execute middleware replaces an outcome but never turns a failure into a success", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("ok"));
  h.ctx.tools.register(rawTool("boom", () => {
    throw new Error("boom");
  }));
  h.ctx.tools.use("tools/post-execute", async (_call, next) => {
    const outcome = await next();
    return { ...outcome, isError: false, content: [{ type: "text", text: "rewritten" }] };
  });
  const replaced = await h.ctx.tools.execute({ callId: "1", name: "ok", arguments: {} });
  equal(text(replaced), "rewritten");
  ok(Object.isFrozen(replaced.content));
  const failed = await h.ctx.tools.execute({ callId: "2", name: "boom", arguments: {} });
  equal(
    text(failed),
    "Error: a tools/post-execute middleware cannot turn a failure into a success",
  );
});

Deno.test("post-execute middleware must call next()", async () => {
  await using h = await harness();
  const counter = { runs: 0 };
  h.ctx.tools.register(countingTool("t", counter));
  h.ctx.tools.use("tools/post-execute", () => deny("skipped"));
  const outcome = await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} });
  equal(text(outcome), "Error: a tools/post-execute middleware must call next()");
  equal(counter.runs, 0);
});

Deno.test("tools/result middleware observes: its return is ignored and its throw is logged", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t"));
  const seen: ToolCall[] = [];
  h.ctx.tools.use("tools/result", (call) => {
    seen.push(call);
    return deny("ignored");
  });
  h.ctx.tools.use("tools/result", () => {
    throw new Error("observer bug");
  });
  h.ctx.tools.use("tools/result", () => Promise.reject(new Error("async observer bug")));
  const outcome = await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} });
  equal(text(outcome), "t ok");
  equal(seen[0]?.outcome, outcome);
  ok(Object.isFrozen(outcome));
  await new Promise((resolve) => setTimeout(resolve, 0));
  const errors = h.logs.filter((r) => r.level === "error").map((r) => r.message);
  deepEqual(errors, [
    "a tools/result middleware threw: observer bug",
    "a tools/result middleware threw: async observer bug",
  ]);
});

Deno.test("middleware is an effect of the installing fiber: disposing it removes the middleware", async () => {
  await using h = await harness();
  const counter = { runs: 0 };
  h.ctx.tools.register(countingTool("t", counter));
  const fiber = h.ctx.plugin({
    name: "policy",
    apply(ctx) {
      (ctx as typeof h.ctx).tools.use("tools/pre-execute", () => deny("policy plugin"));
    },
  });
  await fiber.ready;
  equal(
    text(await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} })),
    "Error: policy plugin",
  );
  await fiber.dispose();
  equal((await h.ctx.tools.execute({ callId: "2", name: "t", arguments: {} })).isError, false);
  const off = h.ctx.tools.use("guard", () => deny("direct"));
  equal(
    text(await h.ctx.tools.execute({ callId: "3", name: "t", arguments: {} })),
    "Error: direct",
  );
  off();
  equal((await h.ctx.tools.execute({ callId: "4", name: "t", arguments: {} })).isError, false);
});

Deno.test("use() refuses an unknown phase and a middleware that is not a function", async () => {
  await using h = await harness();
  throws(
    () => h.ctx.tools.use("tools/before" as ToolPhase, (_call, next) => next()),
    {
      name: "TypeError",
      message:
        'Cannot add tool middleware: expected (phase, middleware) or (middleware), received an unknown phase "tools/before"',
    },
  );
  // The layer object of earlier versions is gone: route/body are phases, define() rewrites.
  throws(() => h.ctx.tools.use({ position: "body" } as never), {
    name: "TypeError",
    message:
      'Cannot add tool middleware: expected (phase, middleware) or (middleware), received {"position":"body"}',
  });
  throws(
    () => h.ctx.tools.use("guard", 42 as unknown as ToolMiddleware),
    { name: "TypeError", message: /received 42$/ },
  );
});

Deno.test("middleware reads the call's validated, frozen args", async () => {
  await using h = await harness();
  h.ctx.tools.register(defineTool({
    name: "greet",
    description: "Greets.",
    parameters: { who: { type: "string", required: true } },
    execute: (args) => [{ type: "text", text: `hi ${args.who}` }],
  }));
  const args: unknown[] = [];
  h.ctx.tools.use("tools/pre-execute", (call, next) => {
    args.push(call.args);
    return call.validation.ok ? next() : deny(`not valid: ${call.validation.violations}`);
  });
  equal(
    text(await h.ctx.tools.execute({ callId: "1", name: "greet", arguments: { who: "ada" } })),
    "hi ada",
  );
  equal(
    text(await h.ctx.tools.execute({ callId: "2", name: "greet", arguments: { who: 1 } })),
    `Error: not valid: "who": expected string, received number 1; fix: send "1"`,
  );
  deepEqual(args, [{ who: "ada" }, undefined]);
  ok(Object.isFrozen(args[0]));
});

Deno.test("ctx.tools.ask() routes a pre-execute middleware's ask to ctx.approval", async () => {
  await using h = await harness();
  const counter = { runs: 0 };
  h.ctx.tools.register(countingTool("deploy", counter));
  const answers: ApprovalOutcome[] = ["rejected", "allowed-once"];
  const asked: { name: string; reason?: string | undefined }[] = [];
  h.ctx.provide("approval", {
    request(exec: ToolExecution, options: { readonly reason?: string }) {
      asked.push({ name: exec.name, reason: options.reason });
      return Promise.resolve(answers.shift()!);
    },
  });
  h.ctx.tools.use(
    "tools/pre-execute",
    async (call, next) => await h.ctx.tools.ask(call, { reason: "deploys are risky" }) ?? next(),
  );
  const agent = fakeAgent();
  const first = await h.ctx.tools.execute({ callId: "1", name: "deploy", arguments: {}, agent });
  equal(text(first), 'Error: the user rejected tool "deploy"');
  equal(counter.runs, 0);
  const second = await h.ctx.tools.execute({ callId: "2", name: "deploy", arguments: {}, agent });
  equal(second.isError, false);
  equal(counter.runs, 1);
  deepEqual(asked, [
    { name: "deploy", reason: "deploys are risky" },
    { name: "deploy", reason: "deploys are risky" },
  ]);
});

Deno.test("pre-execute decisions: a later deny cancels an earlier ask before anyone is asked", async () => {
  await using h = await harness();
  const counter = { runs: 0 };
  h.ctx.tools.register(countingTool("deploy", counter));
  h.ctx.tools.register(countingTool("build", counter));
  const asked: (string | undefined)[] = [];
  h.ctx.provide("approval", {
    request(_exec: ToolExecution, options: { readonly reason?: string }) {
      asked.push(options.reason);
      return Promise.resolve("allowed-once" satisfies ApprovalOutcome);
    },
  });
  const order: string[] = [];
  h.ctx.tools.use("tools/pre-execute", (call) => {
    order.push(`ask ${call.name}`);
    return { kind: "ask", reason: "first" };
  });
  h.ctx.tools.use("tools/pre-execute", (call, next) => {
    order.push(`second ${call.name}`);
    return call.name === "deploy" ? { kind: "deny", reason: "no deploys" } : next();
  });
  h.ctx.tools.use("tools/pre-execute", (call) => {
    order.push(`narrow ${call.name}`);
    return { kind: "ask", reason: "narrower" };
  });
  const agent = fakeAgent();
  const denied = await h.ctx.tools.execute({ callId: "1", name: "deploy", arguments: {}, agent });
  equal(text(denied), "Error: no deploys");
  deepEqual(asked, [], "the deny came before any prompt");
  deepEqual(order, ["ask deploy", "second deploy"]);
  const built = await h.ctx.tools.execute({ callId: "2", name: "build", arguments: {}, agent });
  equal(built.isError, false);
  deepEqual(asked, ["narrower"], "one prompt, with the last ask, after the whole phase");
  equal(counter.runs, 1);
  h.ctx.tools.use("tools/pre-execute", () => ({ kind: "maybe" }) as never);
  const bad = await h.ctx.tools.execute({ callId: "3", name: "build", arguments: {}, agent });
  ok(text(bad).includes("tools/pre-execute produced an invalid decision"), text(bad));
  equal(counter.runs, 1);
});
