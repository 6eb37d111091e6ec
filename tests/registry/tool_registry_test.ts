import { deepEqual, equal, notEqual, ok, rejects, throws } from "node:assert/strict";
import { Context } from "../../core/context.ts";
import { HarnessError } from "../../core/errors.ts";
import { codeModeRoute } from "../../codemode/plugin.ts";
import { createHarness } from "../../mod.ts";
import { createToolRegistry, toolsPlugin } from "../../registry/mod.ts";
import type { ToolExecution } from "../../tools/definition.ts";
import type { ToolRegistry } from "../../registry/types.ts";
import type { ToolOutcome } from "../../tools/outcome.ts";
import { harness, rawTool, text } from "./_harness.ts";

/** The exact outcome of a call whose arguments are not lossless JSON (docs/contracts.md §2 step 1). */
function invalidArgsOutcome(problem: string): ToolOutcome {
  const message = `tool execution arguments must be losslessly JSON-serializable: ${problem}`;
  return {
    isError: true,
    content: [{ type: "text", text: `Error: ${message}` }],
    error: { message, code: "INVALID_ARGS" },
  };
}

Deno.test("register() exposes tools through get(), list() and schemas() sorted by name", async () => {
  await using h = await harness();
  const tools = h.ctx.tools;
  tools.register(rawTool("zeta"));
  tools.register(rawTool("alpha"));
  tools.register(rawTool("run_code"), { reserved: true });
  equal(tools.get("alpha")?.name, "alpha");
  equal(tools.get("missing"), undefined);
  deepEqual(tools.list().map((d) => d.name), ["alpha", "run_code", "zeta"]);
  // Without a listing hook every visible tool is listed, whatever the (opaque) mode.
  deepEqual(tools.schemas(), [
    { name: "alpha", description: "The alpha tool", parameters: { type: "object" } },
    { name: "run_code", description: "The run_code tool", parameters: { type: "object" } },
    { name: "zeta", description: "The zeta tool", parameters: { type: "object" } },
  ]);
  deepEqual(tools.schemas({ mode: "anything" }), tools.schemas());
  ok(Object.isFrozen(tools.schemas()[0]!.parameters));
  throws(() => tools.schemas({ mode: "" }), {
    name: "TypeError",
    message: 'Cannot list tool schemas: mode is "", expected a non-empty string',
  });
  throws(() => tools.schemas({ mode: 1 as never }), {
    message: "Cannot list tool schemas: mode is 1, expected a non-empty string",
  });
});

Deno.test("register() throws on duplicate names", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("echo"));
  throws(() => h.ctx.tools.register(rawTool("echo")), (error: unknown) => {
    ok(error instanceof HarnessError);
    equal(error.code, "DUPLICATE_TOOL");
    equal(error.message, 'tool "echo" is already registered in this scope');
    return true;
  });
});

Deno.test("register() reserves run_code for a reserved registration, even without Code Mode", async () => {
  const ctx = await createHarness({ logSink: () => {} });
  try {
    const reservedError = {
      name: "HarnessError",
      code: "RESERVED_TOOL",
      message:
        'tool "run_code" is reserved: only register(definition, { reserved: true }) may take it (Code Mode\'s codeModePlugin registers run_code)',
    };
    throws(() => ctx.tools.register(rawTool("run_code")), reservedError);
    throws(() => ctx.tools.register(rawTool("run_code"), { scope: "s1" }), reservedError);
    throws(() => ctx.tools.register(rawTool("other"), { reserved: true }), {
      name: "TypeError",
      message:
        'Cannot register tool "other" as reserved: it is not a reserved name (reservedNames: "run_code")',
    });
    throws(() => ctx.tools.register(rawTool("run_code"), { reserved: true, scope: "s1" }), {
      name: "TypeError",
      message:
        'Cannot register tool "run_code" as reserved: a reserved tool is global, not of scope "s1"',
    });
    throws(() => ctx.tools.register(rawTool("run_code"), { reserved: "yes" as never }), {
      message: 'Cannot register a tool: reserved is "yes", expected a boolean',
    });
    const remove = ctx.tools.register(rawTool("run_code"), { reserved: true });
    throws(() => ctx.tools.register(rawTool("run_code"), { reserved: true }), {
      name: "HarnessError",
      code: "DUPLICATE_TOOL",
      message: 'tool "run_code" is already registered in this scope',
    });
    throws(() => ctx.tools.register(rawTool("run_code")), reservedError);
    remove();
    ctx.tools.register(rawTool("run_code"), { reserved: true });
    equal(ctx.tools.get("run_code")?.name, "run_code");
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("reservedNames sets which names need a reserved registration", async () => {
  const ctx = await createHarness({ logSink: () => {}, reservedNames: ["shell_ui"] });
  try {
    // run_code is an ordinary name here; shell_ui is the reserved one, and masks never hide it.
    ctx.tools.register(rawTool("run_code"));
    throws(() => ctx.tools.register(rawTool("shell_ui")), { code: "RESERVED_TOOL" });
    ctx.tools.register(rawTool("shell_ui"), { reserved: true });
    ctx.tools.restrict({ allow: [] });
    deepEqual(ctx.tools.list().map((d) => d.name), ["shell_ui"]);
  } finally {
    await ctx.fiber.dispose();
  }
  const none = await createHarness({ logSink: () => {}, reservedNames: [] });
  try {
    throws(() => none.tools.register(rawTool("run_code"), { reserved: true }), {
      message:
        'Cannot register tool "run_code" as reserved: it is not a reserved name (reservedNames: none)',
    });
  } finally {
    await none.fiber.dispose();
  }
  await rejects(() => createHarness({ reservedNames: ["ok", "bad name"] }), {
    name: "TypeError",
    message:
      'Invalid reservedNames: expected an array of tool names matching /^[a-zA-Z0-9_-]{1,64}$/, received "bad name"',
  });
  await rejects(() => createHarness({ reservedNames: "run_code" as never }), {
    message:
      'Invalid reservedNames: expected an array of tool names matching /^[a-zA-Z0-9_-]{1,64}$/, received "run_code"',
  });
});

Deno.test("register() validates the definition before any side effect", async () => {
  await using h = await harness();
  throws(() => h.ctx.tools.register(rawTool("bad name")), {
    name: "TypeError",
    message:
      'Cannot register a tool: name is "bad name", expected a string matching /^[a-zA-Z0-9_-]{1,64}$/',
  });
  throws(() => h.ctx.tools.register(rawTool("t", undefined, { parameters: { a: NaN } })), {
    name: "TypeError",
    message:
      'Cannot register tool "t": parameters must be lossless JSON: Cannot snapshot "a" as lossless JSON: NaN is not a finite number',
  });
  throws(() => h.ctx.tools.register(rawTool("t", undefined, { timeoutMs: 0 })), RangeError);
  throws(() => h.ctx.tools.register({ ...rawTool("t"), execute: undefined as never }), TypeError);
  deepEqual(h.ctx.tools.list(), []);
});

Deno.test("register() returns a disposer and disposing the plugin fiber unregisters", async () => {
  await using h = await harness();
  const off = h.ctx.tools.register(rawTool("direct"));
  off();
  equal(h.ctx.tools.get("direct"), undefined);
  const fiber = h.ctx.plugin({
    name: "owner",
    inject: ["tools"],
    apply(ctx) {
      ctx.get<ToolRegistry>("tools")!.register(rawTool("owned"));
      ctx.get<ToolRegistry>("tools")!.guard(() => "guarded");
    },
  });
  notEqual(h.ctx.tools.get("owned"), undefined);
  equal(
    text(await h.ctx.tools.execute({ callId: "1", name: "owned", arguments: {} })),
    "Error: guarded",
  );
  await fiber.dispose();
  equal(h.ctx.tools.get("owned"), undefined);
  h.ctx.tools.register(rawTool("owned"));
  equal(text(await h.ctx.tools.execute({ callId: "2", name: "owned", arguments: {} })), "owned ok");
});

Deno.test("register() emits tools/changed", async () => {
  await using h = await harness();
  let changes = 0;
  h.ctx.on("tools/changed", () => changes++);
  const off = h.ctx.tools.register(rawTool("a"));
  off();
  equal(changes, 2);
});

Deno.test("execute() finishes a running call on the definition it started with", async () => {
  await using h = await harness();
  const gate = Promise.withResolvers<void>();
  const started = Promise.withResolvers<void>();
  const fiber = h.ctx.plugin({
    name: "v1",
    inject: ["tools"],
    apply(ctx) {
      ctx.get<ToolRegistry>("tools")!.register(rawTool("t", async () => {
        started.resolve();
        await gate.promise;
        return [{ type: "text", text: "v1" }];
      }));
    },
  });
  const running = h.ctx.tools.execute({ callId: "old", name: "t", arguments: {} });
  await started.promise;
  await fiber.dispose();
  h.ctx.tools.register(rawTool("t", () => [{ type: "text", text: "v2" }]));
  gate.resolve();
  equal(text(await running), "v1");
  equal(text(await h.ctx.tools.execute({ callId: "new", name: "t", arguments: {} })), "v2");
});

Deno.test("execute() freezes the identity and detaches the arguments", async () => {
  await using h = await harness();
  const seen: ToolExecution[] = [];
  h.ctx.tools.register(rawTool("t", (args, exec) => {
    seen.push(exec);
    throws(() => {
      (args as { list: number[] }).list.push(3);
    }, TypeError);
    throws(() => {
      (exec as { name: string }).name = "other";
    }, TypeError);
    return [{ type: "text", text: "ok" }];
  }));
  const source = { list: [1, 2] };
  const parent = Symbol("outer");
  await h.ctx.tools.execute({ callId: "a", name: "t", arguments: source, parent });
  await h.ctx.tools.execute({ callId: "b", name: "t", arguments: source });
  const [first, second] = seen as [ToolExecution, ToolExecution];
  ok(Object.isFrozen(first));
  ok(Object.isFrozen(first.arguments));
  notEqual(first.arguments, source);
  deepEqual(first.arguments, { list: [1, 2] });
  equal(typeof first.token, "symbol");
  notEqual(first.token, second.token);
  equal(first.parent, parent);
  equal("parent" in second, false);
  equal(first.callId, "a");
});

Deno.test("execute() never throws and rejects non-JSON arguments with INVALID_ARGS", async () => {
  await using h = await harness();
  let ran = false;
  h.ctx.tools.register(rawTool("t", () => {
    ran = true;
    return [];
  }));
  const results: ToolOutcome[] = [];
  h.ctx.on("tools/result", (_exec: ToolExecution, outcome: ToolOutcome) => results.push(outcome));
  const outcome = await h.ctx.tools.execute({ callId: "1", name: "t", arguments: { n: NaN } });
  deepEqual(outcome, invalidArgsOutcome('"n" is not a finite JSON number (NaN)'));
  equal(ran, false);
  equal(results.length, 1);
});

Deno.test("execute() reports unknown tools and the code-mode route", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("read"));
  h.ctx.tools.register(rawTool("run_code"), { reserved: true });
  // The route is Code Mode's middleware (the codemode plugin adds it).
  h.ctx.tools.use("route", codeModeRoute);
  const posts: string[] = [];
  h.ctx.on("tools/post-execute", (_d: unknown, exec: ToolExecution) => {
    posts.push(exec.name);
  });
  const unknown = await h.ctx.tools.execute({ callId: "1", name: "nope", arguments: {} });
  deepEqual(unknown.error, {
    message: 'unknown tool "nope"',
    code: "UNKNOWN_TOOL",
    name: "ToolNotFoundError",
  });
  equal(text(unknown), 'Error: unknown tool "nope"');
  const direct = await h.ctx.tools.execute({
    callId: "2",
    name: "read",
    arguments: {},
    mode: "code",
  });
  equal(
    text(direct),
    'Error: unknown tool "read": only `run_code` is callable directly — call `read` from inside a `run_code` program instead',
  );
  equal(direct.error?.code, "UNKNOWN_TOOL");
  const runner = await h.ctx.tools.execute({
    callId: "3",
    name: "run_code",
    arguments: {},
    mode: "code",
  });
  equal(text(runner), "run_code ok");
  deepEqual(posts, ["nope", "run_code"]);
});

Deno.test("execute() forwards exec.output writes to onOutput", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t", (_args, exec) => {
    exec.output.write("a");
    exec.output.write(new TextEncoder().encode("é").subarray(0, 1));
    exec.output.write(new TextEncoder().encode("é").subarray(1));
    return [];
  }));
  const chunks: string[] = [];
  await h.ctx.tools.execute({
    callId: "1",
    name: "t",
    arguments: {},
    onOutput: (chunk) => chunks.push(chunk),
  });
  equal(chunks.join(""), "aé");
});

Deno.test("isConcurrencySafe() is true only when the definition says exactly true", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("safe", undefined, { isConcurrencySafe: () => true }));
  h.ctx.tools.register(rawTool("truthy", undefined, { isConcurrencySafe: () => 1 as never }));
  h.ctx.tools.register(rawTool("throws", undefined, {
    isConcurrencySafe: () => {
      throw new Error("x");
    },
  }));
  h.ctx.tools.register(rawTool("plain"));
  equal(h.ctx.tools.isConcurrencySafe("safe", {}), true);
  equal(h.ctx.tools.isConcurrencySafe("truthy", {}), false);
  equal(h.ctx.tools.isConcurrencySafe("throws", {}), false);
  equal(h.ctx.tools.isConcurrencySafe("plain", {}), false);
  equal(h.ctx.tools.isConcurrencySafe("missing", {}), false);
});

Deno.test("createHarness() and toolsPlugin provide ctx.tools; withdrawing it stops dependents", async () => {
  const root = new Context({ logSink: () => {} });
  const applied: string[] = [];
  const dependent = root.plugin({
    name: "dependent",
    inject: ["tools"],
    apply() {
      applied.push("apply");
    },
  });
  equal(dependent.state, "pending");
  const provider = root.plugin(toolsPlugin);
  equal(dependent.state, "active");
  await provider.dispose();
  equal(dependent.state, "pending");
  deepEqual(applied, ["apply"]);
  await root.fiber.dispose();
  await rejects(createHarness({ abortGraceMs: -1 }), RangeError);
  throws(() => createToolRegistry(new Context(), { defaultTimeoutMs: Infinity }), {
    name: "RangeError",
    message:
      "Cannot use defaultTimeoutMs: current value is Infinity, expected a positive finite number",
  });
});

Deno.test("execute() answers malformed requests with an error instead of throwing", async () => {
  await using h = await harness();
  const outcome = await h.ctx.tools.execute({ callId: 1, name: "t", arguments: {} } as never);
  equal(text(outcome), "Error: tool execution request callId must be a string, received 1");
  equal(
    text(await h.ctx.tools.execute(null as never)),
    "Error: tool execution request must be an object, received null",
  );
});

Deno.test("exec.deferContext() after the body settled is dropped and logged", async () => {
  await using h = await harness();
  let late: ToolExecution | undefined;
  h.ctx.tools.register(rawTool("t", (_args, exec) => {
    late = exec;
    return [];
  }));
  const outcome = await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} });
  late!.deferContext([{ type: "text", text: "too late" }]);
  equal(outcome.additionalContexts, undefined);
  ok(h.logs.some((r) => r.message === 'deferContext() after call "1" settled was dropped'));
});

Deno.test("execute() applies the lossless JSON table to arguments before any policy", async (t) => {
  await using h = await harness();
  const bodies: unknown[] = [];
  h.ctx.tools.register(rawTool("t", (args) => {
    bodies.push(args);
    return [{ type: "text", text: "ran" }];
  }));
  const phases: string[] = [];
  h.ctx.on("tools/pre-execute", () => void phases.push("pre"));
  h.ctx.on("tools/result", () => void phases.push("result"));
  class Point {
    x = 1;
  }
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const sparse = [1, 2, 3];
  delete sparse[1];
  // Each error names the offending path and the value's kind.
  const rejected: [string, unknown, string][] = [
    ["undefined", { a: undefined }, '"a" is not JSON (undefined)'],
    ["function", { f: () => 1 }, '"f" is not JSON (a function)'],
    ["symbol", { s: Symbol("s") }, '"s" is not JSON (a symbol)'],
    ["BigInt", { n: 1n }, '"n" is not JSON (a BigInt)'],
    ["NaN", { limit: NaN }, '"limit" is not a finite JSON number (NaN)'],
    ["Infinity", { n: [1, Infinity] }, '"n[1]" is not a finite JSON number (Infinity)'],
    ["-0", { n: -0 }, '"n" is not a JSON number (-0; send 0)'],
    ["sparse array", { list: sparse }, '"list" is not a dense JSON array (it has holes)'],
    [
      "array with extra props",
      { list: Object.assign([1], { extra: true }) },
      '"list" is not a plain JSON array (it has extra own properties)',
    ],
    [
      "symbol key",
      { [Symbol("k")]: 1 },
      "arguments is not a plain JSON object (a symbol key Symbol(k))",
    ],
    [
      "non-enumerable key",
      Object.defineProperty({}, "hidden", { value: 1 }),
      'arguments is not a plain JSON object (a non-enumerable key "hidden")',
    ],
    [
      "class instance",
      { p: new Point() },
      '"p" is not a plain JSON object or array (an instance of class Point)',
    ],
    ["Map", { m: new Map() }, '"m" is not a plain JSON object or array (a Map)'],
    ["Date", { d: new Date(0) }, '"d" is not a plain JSON object or array (a Date)'],
    ["cycle", cyclic, '"self" is not JSON (a circular reference to an enclosing value)'],
  ];
  for (const [label, args, problem] of rejected) {
    await t.step(`rejects ${label}`, async () => {
      phases.length = 0;
      const outcome = await h.ctx.tools.execute({ callId: label, name: "t", arguments: args });
      deepEqual(outcome, invalidArgsOutcome(problem));
      deepEqual(phases, ["result"]);
    });
  }
  equal(bodies.length, 0);
  await t.step("accepts shared references, null prototypes and reads getters once", async () => {
    const shared = { x: 1 };
    let reads = 0;
    const args = {
      a: shared,
      b: [shared, shared],
      n: Object.assign(Object.create(null), { k: "v" }),
      get once() {
        reads++;
        return reads === 1 ? 1 : NaN;
      },
      toJSON: undefined,
    };
    delete (args as { toJSON?: unknown }).toJSON;
    const outcome = await h.ctx.tools.execute({ callId: "ok", name: "t", arguments: args });
    equal(text(outcome), "ran");
    equal(reads, 1);
    deepEqual(bodies[0], { a: { x: 1 }, b: [{ x: 1 }, { x: 1 }], n: { k: "v" }, once: 1 });
    ok(Object.isFrozen((bodies[0] as { b: unknown[] }).b[1]));
  });
});
