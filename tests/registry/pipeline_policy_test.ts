/** tools/pre-execute, approval, guards, tools/post-execute, tools/result and the phase order. */
import { deepEqual, equal, ok } from "node:assert/strict";
import type { ContentBlock } from "../../tools/content.ts";
import type { ToolExecution } from "../../tools/definition.ts";
import type {
  ApprovalOutcome,
  ApprovalService,
  AroundExecution,
  PostExecuteDecision,
  PreExecuteDecision,
} from "../../registry/hooks.ts";
import type { ToolOutcome } from "../../tools/outcome.ts";
import { countingTool, fakeAgent, harness, rawTool, text } from "./_harness.ts";

Deno.test("execute() runs the phases in order (recording listeners)", async () => {
  await using h = await harness();
  const order: string[] = [];
  h.ctx.tools.register(rawTool("t", () => {
    order.push("body");
    return [{ type: "text", text: "ok" }];
  }));
  h.ctx.on("tools/pre-execute", () => void order.push("pre-execute"));
  h.ctx.tools.guard(() => void order.push("guard"));
  h.ctx.on("tools/execute", async (_exec: AroundExecution, next: () => Promise<ToolOutcome>) => {
    order.push("around:in");
    const outcome = await next();
    order.push("around:out");
    return outcome;
  });
  h.ctx.on("tools/post-execute", () => void order.push("post-execute"));
  h.ctx.on("tools/result", () => void order.push("result"));
  const outcome = await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} });
  equal(text(outcome), "ok");
  deepEqual(order, [
    "pre-execute",
    "guard",
    "around:in",
    "body",
    "around:out",
    "post-execute",
    "result",
  ]);
});

Deno.test("tools/pre-execute decisions: allow runs, deny skips the body but reaches post-execute", async () => {
  await using h = await harness();
  const counter = { runs: 0 };
  h.ctx.tools.register(countingTool("t", counter, [{ type: "text", text: "ran" }]));
  let decision: PreExecuteDecision = { kind: "allow" };
  h.ctx.on("tools/pre-execute", () => decision);
  const posts: ToolOutcome[] = [];
  h.ctx.on("tools/post-execute", (_d: unknown, _e: ToolExecution, outcome: ToolOutcome) => {
    posts.push(outcome);
  });
  equal(text(await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} })), "ran");
  decision = { kind: "deny", reason: "no writes on Fridays" };
  const denied = await h.ctx.tools.execute({ callId: "2", name: "t", arguments: {} });
  deepEqual(denied, {
    isError: true,
    content: [{ type: "text", text: "Error: no writes on Fridays" }],
    error: { message: "no writes on Fridays", code: "DENIED" },
  });
  equal(counter.runs, 1);
  equal(posts.length, 2);
  equal(posts[1], denied);
});

Deno.test("tools/pre-execute waterfall: later listeners see and may replace the decision", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t"));
  const seen: PreExecuteDecision[] = [];
  h.ctx.on("tools/pre-execute", () => ({ kind: "deny", reason: "first" }));
  h.ctx.on("tools/pre-execute", (d: PreExecuteDecision) => {
    seen.push(d);
    return { kind: "allow" };
  });
  equal(text(await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} })), "t ok");
  deepEqual(seen, [{ kind: "deny", reason: "first" }]);
});

Deno.test("tools/pre-execute ask without an approval service denies with the reason", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t"));
  let reason: string | undefined = "writes need a human";
  h.ctx.on(
    "tools/pre-execute",
    () => (reason === undefined ? { kind: "ask" } : { kind: "ask", reason }),
  );
  equal(
    text(await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} })),
    "Error: writes need a human",
  );
  reason = undefined;
  equal(
    text(await h.ctx.tools.execute({ callId: "2", name: "t", arguments: {} })),
    'Error: tool "t" requires approval (not yet supported)',
  );
});

Deno.test("tools/pre-execute ask routes to ctx.approval and maps every answer", async (t) => {
  await using h = await harness();
  const counter = { runs: 0 };
  h.ctx.tools.register(countingTool("t", counter, [{ type: "text", text: "ran" }]));
  h.ctx.on("tools/pre-execute", () => ({ kind: "ask", reason: "please" }));
  let answer: ApprovalOutcome = "allowed-once";
  const asked: { name: string; reason: string | undefined }[] = [];
  const approval: ApprovalService = {
    request(exec, options) {
      asked.push({ name: exec.name, reason: options.reason });
      return Promise.resolve(answer);
    },
  };
  h.ctx.provide("approval", approval);
  const cases: [ApprovalOutcome, string][] = [
    ["allowed-once", "ran"],
    ["allowed-always", "ran"],
    ["rejected", 'Error: the user rejected tool "t"'],
    ["cancelled", 'Error: approval for tool "t" was cancelled'],
    ["unavailable", 'Error: tool "t" requires approval, but no approval channel is available'],
    [
      "maybe" as ApprovalOutcome,
      'Error: the approval service answered "maybe": expected "allowed-once", "allowed-always", "rejected", "cancelled" or "unavailable"',
    ],
  ];
  const agent = fakeAgent();
  for (const [given, expected] of cases) {
    await t.step(given, async () => {
      answer = given;
      const outcome = await h.ctx.tools.execute({ callId: given, name: "t", arguments: {}, agent });
      equal(text(outcome), expected);
    });
  }
  await t.step("no agent on the call: denied without asking", async () => {
    const before = asked.length;
    const outcome = await h.ctx.tools.execute({ callId: "no-agent", name: "t", arguments: {} });
    deepEqual(outcome.error, {
      message: 'tool "t" requires approval, but the call has no agent to route it through',
      code: "DENIED",
    });
    equal(asked.length, before);
  });
  equal(counter.runs, 2);
  deepEqual(asked[0], { name: "t", reason: "please" });
  await t.step("cancelled while the caller aborted is ABORTED_BEFORE_DISPATCH", async () => {
    const controller = new AbortController();
    answer = "cancelled";
    const approvalAborting: ApprovalService = {
      request() {
        controller.abort();
        return Promise.resolve("cancelled");
      },
    };
    h.ctx.provide("approval", approvalAborting);
    const outcome = await h.ctx.tools.execute({
      callId: "x",
      name: "t",
      arguments: {},
      signal: controller.signal,
      agent,
    });
    equal(text(outcome), "Error: tool call aborted before dispatch");
    deepEqual(outcome.error, {
      message: "tool call aborted before dispatch",
      code: "ABORTED_BEFORE_DISPATCH",
      name: "AbortError",
    });
  });
});

Deno.test("guard() denies monotonically: the first string wins and guards run only after allow", async () => {
  await using h = await harness();
  const counter = { runs: 0 };
  h.ctx.tools.register(countingTool("t", counter));
  const calls: string[] = [];
  h.ctx.tools.guard((exec) => {
    calls.push("g1");
    return exec.name === "t" ? "t is locked" : undefined;
  });
  h.ctx.tools.guard(() => {
    calls.push("g2");
    return "second reason";
  });
  // A later pre-execute listener cannot undo a guard: guards run after the waterfall.
  h.ctx.on("tools/pre-execute", () => ({ kind: "allow" }));
  const outcome = await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} });
  equal(text(outcome), "Error: t is locked");
  equal(outcome.error?.code, "DENIED");
  deepEqual(calls, ["g1"]);
  equal(counter.runs, 0);
  h.ctx.on("tools/pre-execute", () => ({ kind: "deny", reason: "policy" }));
  equal(
    text(await h.ctx.tools.execute({ callId: "2", name: "t", arguments: {} })),
    "Error: policy",
  );
  deepEqual(calls, ["g1"]);
});

Deno.test("guard() returning a non-string is a pipeline error", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t"));
  h.ctx.tools.guard(() => true as unknown as string);
  equal(
    text(await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} })),
    "Error: a tools guard returned true: expected a string (deny) or undefined (pass)",
  );
});

Deno.test("a throwing pipeline stage becomes `Error: <message>` and skips later stages", async () => {
  await using h = await harness();
  const counter = { runs: 0 };
  h.ctx.tools.register(countingTool("t", counter));
  const off = h.ctx.on("tools/pre-execute", () => {
    throw new Error("policy store offline");
  });
  const posts: string[] = [];
  h.ctx.on("tools/post-execute", () => void posts.push("post"));
  const outcome = await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} });
  deepEqual(outcome, {
    isError: true,
    content: [{ type: "text", text: "Error: policy store offline" }],
    error: { message: "policy store offline", name: "Error" },
  });
  equal(counter.runs, 0);
  deepEqual(posts, []);
  off();
  h.ctx.on("tools/pre-execute", () => ({ kind: "maybe" }));
  equal(
    text(await h.ctx.tools.execute({ callId: "2", name: "t", arguments: {} })),
    'Error: tools/pre-execute produced an invalid decision {"kind":"maybe"}: expected {kind: "allow"}, {kind: "deny", reason} or {kind: "ask", reason?}',
  );
});

Deno.test("tools/post-execute accept replaces content and appends contexts after deferred ones", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t", (_args, exec) => {
    exec.deferContext([{ type: "text", text: "deferred" }]);
    return { content: [{ type: "text", text: "original" }], meta: { kept: true } };
  }));
  h.ctx.on(
    "tools/post-execute",
    (_d: PostExecuteDecision, _e: ToolExecution, outcome: ToolOutcome) => {
      ok(Object.isFrozen(outcome));
      return {
        kind: "accept",
        content: [{ type: "text", text: "replaced" }],
        additionalContexts: [[{ type: "text", text: "from policy" }]],
      };
    },
  );
  const outcome = await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} });
  deepEqual(outcome, {
    isError: false,
    content: [{ type: "text", text: "replaced" }],
    meta: { kept: true },
    additionalContexts: [[{ type: "text", text: "deferred" }], [{
      type: "text",
      text: "from policy",
    }]],
  });
  ok(Object.isFrozen(outcome.content[0]));
});

Deno.test("tools/post-execute block fails the call with the feedback and drops deferred contexts", async (t) => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t", (_args, exec) => {
    exec.deferContext([{ type: "text", text: "deferred" }]);
    return [{ type: "text", text: "secret" }];
  }));
  let feedback: ContentBlock[] = [];
  h.ctx.on("tools/post-execute", () => ({ kind: "block", feedback }));
  await t.step("with feedback", async () => {
    feedback = [{ type: "text", text: "output redacted" }, {
      type: "image",
      mimeType: "image/png",
      data: "",
    }];
    const outcome = await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} });
    deepEqual(outcome, {
      isError: true,
      content: [{ type: "text", text: "Error: output redacted\n[image content]" }],
      error: { message: "output redacted\n[image content]", code: "DENIED" },
    });
  });
  await t.step("empty feedback", async () => {
    feedback = [];
    const outcome = await h.ctx.tools.execute({ callId: "2", name: "t", arguments: {} });
    equal(text(outcome), "Error: tool result blocked by post-execute policy");
  });
});

Deno.test("tools/post-execute with invalid replacement content is an error result", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t"));
  h.ctx.on("tools/post-execute", () => ({ kind: "accept", content: [{ type: "video" }] }));
  equal(
    text(await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} })),
    'Error: tools/post-execute returned invalid content: block 0 has an unknown type "video": expected "text", "image" or "resource"',
  );
});

Deno.test("a throwing tools/result observer harms nothing and is logged", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t"));
  const seen: [ToolExecution, ToolOutcome][] = [];
  h.ctx.on("tools/result", () => {
    throw new Error("observer broke");
  });
  h.ctx.on("tools/result", () => Promise.reject(new Error("async observer broke")));
  h.ctx.on(
    "tools/result",
    (exec: ToolExecution, outcome: ToolOutcome) => seen.push([exec, outcome]),
  );
  const outcome = await h.ctx.tools.execute({ callId: "1", name: "t", arguments: { a: 1 } });
  equal(text(outcome), "t ok");
  equal(seen.length, 1);
  equal(seen[0]![1], outcome);
  ok(Object.isFrozen(seen[0]![0]));
  await Promise.resolve();
  deepEqual(
    h.logs.filter((r) => r.level === "error").map((r) => r.message),
    [
      'listener for "tools/result" threw: observer broke',
      'listener for "tools/result" threw: async observer broke',
    ],
  );
});

Deno.test("guard() still denies a call the user approved", async () => {
  await using h = await harness();
  const counter = { runs: 0 };
  h.ctx.tools.register(countingTool("t", counter));
  h.ctx.on("tools/pre-execute", () => ({ kind: "ask" }));
  h.ctx.provide("approval", { request: () => Promise.resolve("allowed-once") });
  h.ctx.tools.guard(() => "sandbox is read-only");
  const outcome = await h.ctx.tools.execute({
    callId: "1",
    name: "t",
    arguments: {},
    agent: fakeAgent(),
  });
  deepEqual(outcome.error, { message: "sandbox is read-only", code: "DENIED" });
  equal(text(outcome), "Error: sandbox is read-only");
  equal(counter.runs, 0);
});

Deno.test("tools/pre-execute listeners see frozen arguments and cannot rewrite them", async () => {
  await using h = await harness();
  const seen: unknown[] = [];
  h.ctx.tools.register(rawTool("t", (args) => {
    seen.push(args);
    return [];
  }));
  h.ctx.on("tools/pre-execute", (_d: PreExecuteDecision, exec: ToolExecution) => {
    (exec.arguments as Record<string, unknown>).path = "/etc/shadow";
  });
  const outcome = await h.ctx.tools.execute({
    callId: "1",
    name: "t",
    arguments: { path: "/tmp/a" },
  });
  equal(outcome.isError, true);
  equal(outcome.error?.name, "TypeError");
  deepEqual(seen, []);
});
