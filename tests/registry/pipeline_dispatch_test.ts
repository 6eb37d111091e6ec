/** tools/execute around chain, signals, cancellation codes, deadlines and result normalization. */
import { deepEqual, equal, ok } from "node:assert/strict";
import { HarnessError } from "../../core/errors.ts";
import type { ExecuteReturn, ToolExecution } from "../../tools/definition.ts";
import { defineTool } from "../../tools/define_tool.ts";
import type { AroundExecution } from "../../registry/hooks.ts";
import type { ToolOutcome } from "../../tools/outcome.ts";
import { countingTool, harness, rawTool, text, untilAborted } from "./_harness.ts";

type Next = () => Promise<ToolOutcome>;

Deno.test("tools/execute wrappers nest like an onion and may short-circuit", async () => {
  await using h = await harness();
  const order: number[] = [];
  h.ctx.tools.register(rawTool("t", () => {
    order.push(3);
    return [{ type: "text", text: "body" }];
  }));
  h.ctx.on("tools/execute", async (_exec: AroundExecution, next: Next) => {
    order.push(1);
    const outcome = await next();
    order.push(5);
    return outcome;
  });
  const off = h.ctx.on("tools/execute", async (_exec: AroundExecution, next: Next) => {
    order.push(2);
    const outcome = await next();
    order.push(4);
    return outcome;
  });
  equal(text(await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} })), "body");
  deepEqual(order, [1, 2, 3, 4, 5]);
  off();
  h.ctx.on(
    "tools/execute",
    () => Promise.resolve({ isError: false, content: [{ type: "text", text: "cached" }] }),
  );
  const cached = await h.ctx.tools.execute({ callId: "2", name: "t", arguments: {} });
  deepEqual(cached, { isError: false, content: [{ type: "text", text: "cached" }] });
  ok(Object.isFrozen(cached.content));
});

Deno.test("tools/execute wrappers may change only signal", async (t) => {
  await using h = await harness();
  const counter = { runs: 0 };
  h.ctx.tools.register(countingTool("t", counter));
  const attempts: [string, (exec: AroundExecution) => void, string][] = [
    ["name", (e) => {
      (e as { name: string }).name = "x";
    }, "Cannot assign to read only property 'name' of object '#<ExecutionView>'"],
    ["arguments", (e) => {
      (e as { arguments: unknown }).arguments = {};
    }, "Cannot assign to read only property 'arguments' of object '#<ExecutionView>'"],
    ["token", (e) => {
      (e as { token: symbol }).token = Symbol();
    }, "Cannot assign to read only property 'token' of object '#<ExecutionView>'"],
    ["callId", (e) => {
      (e as { callId: string }).callId = "y";
    }, "Cannot assign to read only property 'callId' of object '#<ExecutionView>'"],
    ["new field", (e) => {
      (e as unknown as Record<string, unknown>).extra = 1;
    }, "Cannot add property extra, object is not extensible"],
    ["delete arguments", (e) => {
      delete (e as { arguments?: unknown }).arguments;
    }, "Cannot delete property 'arguments' of #<ExecutionView>"],
    ["signal of the wrong type", (e) => {
      e.signal = "soon" as unknown as AbortSignal;
    }, 'Cannot set "signal" on a tool execution: expected an AbortSignal, received "soon"'],
    ["defineProperty", (e) => {
      Object.defineProperty(e, "name", { value: "z" });
    }, "Cannot redefine property: name"],
  ];
  let attempt: (exec: AroundExecution) => void = () => {};
  h.ctx.on("tools/execute", (exec: AroundExecution, next: Next) => {
    attempt(exec);
    return next();
  });
  for (const [label, fn, message] of attempts) {
    await t.step(label, async () => {
      attempt = fn;
      const outcome = await h.ctx.tools.execute({ callId: label, name: "t", arguments: {} });
      equal(text(outcome), `Error: ${message}`);
      equal(outcome.error?.name, "TypeError");
    });
  }
  equal(counter.runs, 0);
  attempt = (e) => {
    e.signal = new AbortController().signal;
  };
  equal((await h.ctx.tools.execute({ callId: "ok", name: "t", arguments: {} })).isError, false);
  equal(counter.runs, 1);
});

Deno.test("tools/execute next() called twice rejects", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t"));
  h.ctx.on("tools/execute", async (_exec: AroundExecution, next: Next) => {
    await next();
    return next();
  });
  equal(
    text(await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} })),
    "Error: next() called multiple times",
  );
});

Deno.test("tools/execute: a wrapper's signal reaches the body and the caller's signal is fused back", async () => {
  await using h = await harness();
  const bodySignals: AbortSignal[] = [];
  const started = Promise.withResolvers<void>();
  h.ctx.tools.register(rawTool("t", (_args, exec) => {
    bodySignals.push(exec.signal);
    started.resolve();
    return untilAborted(exec);
  }));
  const wrapperController = new AbortController();
  h.ctx.on("tools/execute", (exec: AroundExecution, next: Next) => {
    exec.signal = wrapperController.signal; // drops the caller's signal from the view
    return next();
  });
  const caller = new AbortController();
  const running = h.ctx.tools.execute({
    callId: "1",
    name: "t",
    arguments: {},
    signal: caller.signal,
  });
  await started.promise;
  caller.abort();
  const outcome = await running;
  deepEqual(outcome.error, { message: "tool call aborted", code: "ABORTED", name: "AbortError" });
  ok(bodySignals[0]!.aborted);
  equal(wrapperController.signal.aborted, false);

  const policy = new HarnessError("RATE_LIMITED", "rate limit reached");
  const second = h.ctx.tools.execute({ callId: "2", name: "t", arguments: {} });
  wrapperController.abort(policy);
  const limited = await second;
  equal(text(limited), "Error: rate limit reached");
  equal(limited.error?.code, "RATE_LIMITED");
});

Deno.test("tools/execute: a body honouring an AbortSignal.timeout() deadline is not reported as ignoring it", async () => {
  // Deno runs microtasks between the abort listeners of a timeout signal, so the body's rejection
  // and the whole outcome chain settled before the registry's own abort listener ran; that
  // listener then armed a grace timer nothing cleared: a false "ignored its aborted signal"
  // warning 2 s later, and a timer keeping the process alive.
  await using h = await harness({ abortGraceMs: 1 });
  h.ctx.tools.register(defineTool({
    name: "t",
    description: "Waits for its signal",
    parameters: {},
    execute: (_args, exec) => untilAborted(exec),
  }));
  h.ctx.on("tools/execute", (exec: AroundExecution, next: Next) => {
    exec.signal = AbortSignal.any([exec.signal, AbortSignal.timeout(5)]);
    return next();
  });
  const outcome = await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} });
  equal(outcome.error?.name, "TimeoutError");
  // A leftover 1 ms grace timer is armed in this same task, so it fires before a 20 ms one.
  await new Promise((resolve) => setTimeout(resolve, 20));
  deepEqual(
    h.logs.filter((record) => record.level !== "debug").map((record) => record.message),
    [],
  );
});

Deno.test("execute() cancellation codes", async (t) => {
  await using h = await harness({ abortGraceMs: 20 });
  let gate = Promise.withResolvers<void>();
  let started = Promise.withResolvers<ToolExecution>();
  let mode: "success" | "malformed" | "throw-reason" | "throw-other" | "ignore" = "success";
  let preCalls = 0;
  h.ctx.on("tools/pre-execute", () => void preCalls++);
  const results: ToolOutcome[] = [];
  h.ctx.on("tools/result", (_e: ToolExecution, o: ToolOutcome) => results.push(o));
  h.ctx.tools.register(rawTool("t", async (_args, exec) => {
    exec.deferContext([{ type: "text", text: "note" }]);
    started.resolve(exec);
    if (mode === "ignore") {
      await gate.promise;
      return [];
    }
    await new Promise((resolve) => exec.signal.addEventListener("abort", resolve, { once: true }));
    if (mode === "throw-reason") throw exec.signal.reason;
    if (mode === "throw-other") throw new Error("cleanup failed");
    if (mode === "malformed") return "not content" as never;
    return [{ type: "text", text: "finished anyway" }];
  }));
  const run = async (): Promise<ToolOutcome> => {
    gate = Promise.withResolvers();
    started = Promise.withResolvers();
    const controller = new AbortController();
    const running = h.ctx.tools.execute({
      callId: mode,
      name: "t",
      arguments: {},
      signal: controller.signal,
    });
    await started.promise;
    controller.abort();
    return await running;
  };

  await t.step("pre-aborted: ABORTED_BEFORE_DISPATCH, no policy, one result", async () => {
    results.length = 0;
    const outcome = await h.ctx.tools.execute({
      callId: "pre",
      name: "t",
      arguments: {},
      signal: AbortSignal.abort(),
    });
    deepEqual(outcome, {
      isError: true,
      content: [{ type: "text", text: "Error: tool call aborted before dispatch" }],
      error: {
        message: "tool call aborted before dispatch",
        code: "ABORTED_BEFORE_DISPATCH",
        name: "AbortError",
      },
    });
    equal(preCalls, 0);
    equal(results.length, 1);
  });
  await t.step("aborted during pre-execute: ABORTED_BEFORE_DISPATCH", async () => {
    const controller = new AbortController();
    const off = h.ctx.on("tools/pre-execute", () => void controller.abort());
    const outcome = await h.ctx.tools.execute({
      callId: "during",
      name: "t",
      arguments: {},
      signal: controller.signal,
    });
    off();
    equal(outcome.error?.code, "ABORTED_BEFORE_DISPATCH");
  });
  await t.step("a success after abort becomes ABORTED and keeps deferred contexts", async () => {
    mode = "success";
    deepEqual(await run(), {
      isError: true,
      content: [{ type: "text", text: "Error: tool call aborted" }],
      error: { message: "tool call aborted", code: "ABORTED", name: "AbortError" },
      additionalContexts: [[{ type: "text", text: "note" }]],
    });
  });
  await t.step("a malformed result after abort stays the tool's failure", async () => {
    mode = "malformed";
    const outcome = await run();
    equal(outcome.error?.code, "TOOL_ERROR");
    equal(
      text(outcome),
      'Error: tool "t" returned a malformed result: expected an array of content blocks or { content, meta }, received "not content"',
    );
  });
  await t.step("throwing the abort reason is ABORTED", async () => {
    mode = "throw-reason";
    equal((await run()).error?.code, "ABORTED");
  });
  await t.step("another failure after abort stays that failure", async () => {
    mode = "throw-other";
    const outcome = await run();
    equal(text(outcome), "Error: cleanup failed");
    equal(outcome.error?.code, undefined);
  });
  await t.step("a body that ignores its signal is reported after the grace period", async () => {
    mode = "ignore";
    const outcome = await run();
    equal(outcome.error?.code, "ABORTED");
    ok(h.logs.some((r) => r.message.includes("ignored its aborted signal for 20 ms")));
    gate.resolve();
    await new Promise((resolve) => setTimeout(resolve, 1));
  });
});

Deno.test("execute() enforces timeoutMs with TOOL_TIMEOUT", async (t) => {
  await using h = await harness({ abortGraceMs: 20 });
  let gate = Promise.withResolvers<void>();
  h.ctx.tools.register(
    rawTool("polite", (_args, exec) => untilAborted(exec), { timeoutMs: 5 }),
  );
  h.ctx.tools.register(rawTool("stubborn", async () => {
    await gate.promise;
    return [];
  }, { timeoutMs: 5 }));
  h.ctx.tools.register(rawTool("fast", () => [{ type: "text", text: "fast" }], { timeoutMs: 5 }));
  await t.step("a body that honours the signal", async () => {
    const outcome = await h.ctx.tools.execute({ callId: "1", name: "polite", arguments: {} });
    deepEqual(outcome, {
      isError: true,
      content: [{ type: "text", text: 'Error: tool "polite" timed out after 5 ms' }],
      error: {
        message: 'tool "polite" timed out after 5 ms',
        code: "TOOL_TIMEOUT",
        name: "HarnessError",
      },
    });
  });
  await t.step("a body that ignores the signal", async () => {
    gate = Promise.withResolvers();
    const outcome = await h.ctx.tools.execute({ callId: "2", name: "stubborn", arguments: {} });
    equal(outcome.error?.code, "TOOL_TIMEOUT");
    gate.resolve();
    await new Promise((resolve) => setTimeout(resolve, 1));
  });
  await t.step("a fast body leaves no timer behind", async () => {
    equal(text(await h.ctx.tools.execute({ callId: "3", name: "fast", arguments: {} })), "fast");
  });
});

Deno.test("execute() applies the registry's defaultTimeoutMs", async () => {
  await using h = await harness({ defaultTimeoutMs: 5 });
  h.ctx.tools.register(
    rawTool("slow", (_args, exec) => untilAborted(exec)),
  );
  equal(
    text(await h.ctx.tools.execute({ callId: "1", name: "slow", arguments: {} })),
    'Error: tool "slow" timed out after 5 ms',
  );
});

Deno.test("execute() normalizes every kind of body result", async (t) => {
  await using h = await harness();
  let body: () => unknown = () => [];
  h.ctx.tools.register(rawTool("t", () => body() as ExecuteReturn));
  const table: [string, () => unknown, Partial<ToolOutcome> & { text?: string }][] = [
    ["content array", () => [{ type: "text", text: "a" }], { isError: false, text: "a" }],
    ["content and meta", () => ({ content: [], meta: { n: 1 } }), {
      isError: false,
      meta: { n: 1 },
    }],
    ["async content", () => Promise.resolve([{ type: "text", text: "b" }]), {
      isError: false,
      text: "b",
    }],
    ["image and resource", () => [{ type: "image", mimeType: "image/png", data: "AA==" }, {
      type: "resource",
      uri: "file:///x",
    }], { isError: false }],
    ["a string", () => "hello", {
      isError: true,
      text:
        'Error: tool "t" returned a malformed result: expected an array of content blocks or { content, meta }, received "hello"',
    }],
    ["undefined", () => undefined, {
      isError: true,
      text:
        'Error: tool "t" returned a malformed result: expected an array of content blocks or { content, meta }, received undefined',
    }],
    ["content not an array", () => ({ content: "x" }), { isError: true }],
    [
      "an isError field",
      () => ({ content: [{ type: "text", text: "no such file" }], isError: true }),
      {
        isError: true,
        text:
          'Error: tool "t" returned a malformed result: { content, meta } has no isError field, received isError: true; throw an Error to fail the call, or report a domain failure in the content text',
      },
    ],
    ["unknown block", () => [{ type: "audio" }], {
      isError: true,
      text:
        'Error: tool "t" returned invalid content: block 0 has an unknown type "audio": expected "text", "image" or "resource"',
    }],
    ["text block without text", () => [{ type: "text" }], {
      isError: true,
      text:
        'Error: tool "t" returned invalid content: block 0 is a text block without a string text',
    }],
    ["non-JSON content", () => [{ type: "text", text: "a", extra: NaN }], {
      isError: true,
      text:
        'Error: tool "t" returned invalid content: Cannot snapshot "[0].extra" as lossless JSON: NaN is not a finite number',
    }],
    ["non-JSON meta", () => ({ content: [], meta: { when: new Date(0) } }), {
      isError: true,
      text:
        'Error: tool "t" returned invalid meta: Cannot snapshot "when" as lossless JSON: a Date is not a plain object or array',
    }],
    ["throws an Error", () => {
      throw new RangeError("bad offset");
    }, {
      isError: true,
      text: "Error: bad offset",
      error: { message: "bad offset", name: "RangeError" },
    }],
    ["throws a HarnessError", () => {
      throw new HarnessError("INVALID_ARGS", 'invalid arguments: missing required property "path"');
    }, {
      isError: true,
      error: {
        message: 'invalid arguments: missing required property "path"',
        code: "INVALID_ARGS",
        name: "HarnessError",
      },
    }],
    ["throws a string", () => {
      throw "plain";
    }, { isError: true, text: "Error: plain", error: { message: "plain" } }],
    ["throws a hostile value", () => {
      throw {
        get message() {
          throw new Error("no");
        },
      };
    }, { isError: true, text: "Error: <unprintable thrown value>" }],
    ["rejects", () => Promise.reject(new Error("async boom")), {
      isError: true,
      text: "Error: async boom",
    }],
    ["a getter that throws", () => ({
      get content() {
        throw new Error("getter boom");
      },
    }), { isError: true, text: "Error: getter boom" }],
  ];
  for (const [label, fn, expected] of table) {
    await t.step(label, async () => {
      body = fn;
      const outcome = await h.ctx.tools.execute({ callId: label, name: "t", arguments: {} });
      ok(Object.isFrozen(outcome));
      equal(outcome.isError, expected.isError);
      if (expected.text !== undefined) equal(text(outcome), expected.text);
      if (expected.meta !== undefined) deepEqual(outcome.meta, expected.meta);
      if (expected.error !== undefined) deepEqual(outcome.error, expected.error);
      if (outcome.isError) {
        equal(outcome.content.length, 1);
        equal(text(outcome), `Error: ${outcome.error?.message}`);
      }
    });
  }
});

Deno.test("exec.deferContext() survives a throw and rejects non-JSON content", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t", (_args, exec) => {
    exec.deferContext([{ type: "text", text: "first" }]);
    exec.deferContext([{ type: "text", text: "second" }]);
    try {
      exec.deferContext([{ type: "text", text: 1 }] as never);
    } catch (error) {
      equal(
        (error as Error).message,
        "exec.deferContext() received invalid content: block 0 is a text block without a string text",
      );
    }
    throw new Error("after deferring");
  }));
  const outcome = await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} });
  deepEqual(outcome.additionalContexts, [[{ type: "text", text: "first" }], [{
    type: "text",
    text: "second",
  }]]);
  equal(text(outcome), "Error: after deferring");
});

Deno.test("the chain follows listeners, guards and layers added or removed between calls", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t", () => [{ type: "text", text: "body" }]));
  const call = (id: string) => h.ctx.tools.execute({ callId: id, name: "t", arguments: {} });
  const seen: string[] = [];
  equal(text(await call("1")), "body");
  const offPre = h.ctx.on("tools/pre-execute", () => void seen.push("pre"));
  const offAround = h.ctx.on("tools/execute", (_e: AroundExecution, next: Next) => {
    seen.push("around");
    return next();
  });
  const offPost = h.ctx.on("tools/post-execute", () => void seen.push("post"));
  const offGuard = h.ctx.tools.guard(() => void seen.push("guard"));
  const offLayer = h.ctx.tools.use("body", (c, next) => (seen.push(`layer ${c.callId}`), next()));
  equal(text(await call("2")), "body");
  deepEqual(seen, ["pre", "guard", "around", "layer 2", "post"]);
  for (const off of [offPre, offAround, offPost, offGuard, offLayer]) off();
  seen.length = 0;
  equal(text(await call("3")), "body");
  deepEqual(seen, []);
  const offDeny = h.ctx.tools.guard(() => "no");
  equal((await call("4")).isError, true);
  offDeny();
  equal(text(await call("5")), "body");
});
