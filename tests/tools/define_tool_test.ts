import { deepEqual, equal, ok, rejects, throws } from "node:assert/strict";
import { defineTool } from "../../tools/define_tool.ts";
import { ToolArgsError } from "../../tools/tool_args_error.ts";
import type { AnyToolDefinition, ToolExecution } from "../../tools/definition.ts";
import { tempDir } from "../_helpers.ts";
// The seed page's example, shared with the registry's seed plugin test.
import { apply } from "../registry/_seed_plugin.ts";

function fakeExec(): ToolExecution {
  return {
    callId: "c1",
    name: "read_file",
    arguments: {},
    token: Symbol("t"),
    signal: new AbortController().signal,
    output: { write() {} },
    deferContext() {},
  };
}

function registered(): AnyToolDefinition {
  const tools: AnyToolDefinition[] = [];
  const register = (definition: AnyToolDefinition) => (tools.push(definition), () => {});
  apply({ tools: { register } } as unknown as Parameters<typeof apply>[0]);
  return tools[0]!;
}

Deno.test("defineTool() runs the seed read_file example", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/a.txt`;
  await Deno.writeTextFile(file, "hello");
  const tool = registered();
  deepEqual(await tool.execute({ path: file }, fakeExec()), [{ type: "text", text: "hello" }]);
  deepEqual(tool.parameters, {
    type: "object",
    properties: {
      path: { type: "string", description: "Absolute path" },
      limit: { type: "number" },
    },
    required: ["path"],
  });
});

Deno.test("defineTool() execute throws ToolArgsError before the body runs", async () => {
  let ran = false;
  const tool = defineTool({
    name: "read_file",
    description: "Read a file from disk.",
    parameters: { path: { type: "string", required: true }, limit: { type: "number" } },
    execute() {
      ran = true;
      return [];
    },
  });
  await rejects(async () => await tool.execute({ limit: "10" } as never, fakeExec()), (error) => {
    ok(error instanceof ToolArgsError);
    equal(error.code, "INVALID_ARGS");
    equal(
      error.message,
      'invalid arguments (2 problems):\n- "limit": expected number, received string "10"; fix: send 10\n- "path": expected string (required), received nothing (the key is missing); fix: send a string such as "text"',
    );
    deepEqual(error.violations, [
      '"limit": expected number, received string "10"; fix: send 10',
      '"path": expected string (required), received nothing (the key is missing); fix: send a string such as "text"',
    ]);
    return true;
  });
  equal(ran, false);
});

Deno.test("defineTool() passes the same args object and exec to the body", async () => {
  const exec = fakeExec();
  const args = Object.freeze({ path: "/x", extra: true });
  const tool = defineTool({
    name: "t",
    description: "Test.",
    parameters: { path: { type: "string", required: true } },
    execute(received, receivedExec) {
      ok(received === args && receivedExec === exec);
      return { content: [{ type: "text", text: "ok" }], meta: { n: 1 } };
    },
  });
  deepEqual(await tool.execute(args, exec), {
    content: [{ type: "text", text: "ok" }],
    meta: { n: 1 },
  });
});

Deno.test("defineTool() returns a frozen definition with spec and options", () => {
  const tool = defineTool({
    name: "t",
    description: "Test.",
    parameters: { a: { type: "string", enum: ["x"] } },
    execute: () => [],
    timeoutMs: 5000,
    background: true,
  });
  ok(Object.isFrozen(tool) && Object.isFrozen(tool.parameters) && Object.isFrozen(tool.spec));
  deepEqual(tool.spec, { a: { type: "string", enum: ["x"] } });
  equal(tool.timeoutMs, 5000);
  equal(tool.background, true);
  deepEqual(Object.keys(tool), [
    "name",
    "description",
    "parameters",
    "spec",
    "validate",
    "execute",
    "timeoutMs",
    "background",
  ]);
  throws(() => {
    (tool as { name: string }).name = "u";
  }, TypeError);
});

Deno.test("defineTool() presenters validate softly and never throw", () => {
  const tool = defineTool({
    name: "t",
    description: "Test.",
    parameters: { path: { type: "string", required: true } },
    execute: () => [],
    presentCall(args) {
      if (args.path === "/boom") throw new Error("boom");
      return { card: "generic", title: `read ${args.path}`, locations: [{ path: args.path }] };
    },
    presentResult(args, result) {
      if (args.path === "/boom") throw new Error("boom");
      return { card: "generic", title: `${args.path}: ${result.isError}` };
    },
    isConcurrencySafe(args) {
      if (args.path === "/boom") throw new Error("boom");
      return args.path.startsWith("/safe");
    },
  });
  const result = { content: [], isError: false };
  deepEqual(tool.presentCall!({ path: "/a" }), {
    card: "generic",
    title: "read /a",
    locations: [{ path: "/a" }],
  });
  deepEqual(tool.presentResult!({ path: "/a" }, result), { card: "generic", title: "/a: false" });
  equal(tool.isConcurrencySafe!({ path: "/safe/x" }), true);
  equal(tool.isConcurrencySafe!({ path: "/a" }), false);
  for (const bad of [{ file: "/a" }, { path: 1 }, null, "x", undefined]) {
    equal(tool.presentCall!(bad as never), undefined);
    equal(tool.presentResult!(bad as never, result), undefined);
    equal(tool.isConcurrencySafe!(bad as never), false);
  }
  equal(tool.presentCall!({ path: "/boom" }), undefined);
  equal(tool.presentResult!({ path: "/boom" }, result), undefined);
  equal(tool.isConcurrencySafe!({ path: "/boom" }), false);
});

Deno.test("defineTool() isConcurrencySafe counts only exactly true", () => {
  const tool = defineTool({
    name: "t",
    description: "Test.",
    parameters: {},
    execute: () => [],
    isConcurrencySafe: () => "yes" as unknown as boolean,
  });
  equal(tool.isConcurrencySafe!({}), false);
});

Deno.test("defineTool() checks options at definition time", async (t) => {
  const base = { name: "t", description: "Test.", parameters: {}, execute: () => [] };
  const cases: [string, Record<string, unknown>, ErrorConstructor, string][] = [
    [
      "bad name",
      { name: "read file" },
      TypeError,
      'Cannot define tool: name must match /^[a-zA-Z0-9_-]{1,64}$/: current value is "read file"',
    ],
    [
      "long name",
      { name: "x".repeat(65) },
      TypeError,
      `Cannot define tool: name must match /^[a-zA-Z0-9_-]{1,64}$/: current value is "${
        "x".repeat(65)
      }"`,
    ],
    [
      "empty description",
      { description: " " },
      TypeError,
      'Cannot define tool "t": description must be a non-empty string: current value is " "',
    ],
    [
      "execute missing",
      { execute: undefined },
      TypeError,
      'Cannot define tool "t": execute must be a function: current value is undefined',
    ],
    [
      "presenter not a function",
      { presentCall: 1 },
      TypeError,
      'Cannot define tool "t": presentCall must be a function: current value is 1',
    ],
    [
      "zero timeout",
      { timeoutMs: 0 },
      RangeError,
      'Cannot define tool "t": timeoutMs must be a positive finite number: current value is 0',
    ],
    [
      "infinite timeout",
      { timeoutMs: Infinity },
      RangeError,
      'Cannot define tool "t": timeoutMs must be a positive finite number: current value is Infinity',
    ],
    [
      "background not boolean",
      { background: "yes" },
      TypeError,
      'Cannot define tool "t": background must be a boolean: current value is "yes"',
    ],
    [
      "schema mistake",
      { parameters: { a: { type: "string", format: "uri" } } },
      Error,
      "parameters.a.format is not supported by the value schema DSL",
    ],
  ];
  for (const [label, patch, errorClass, message] of cases) {
    await t.step(label, () => {
      throws(() => defineTool({ ...base, ...patch } as never), (error) => {
        ok(error instanceof errorClass);
        equal((error as Error).message, message);
        return true;
      });
    });
  }
});

Deno.test("defineTool() keeps the spec detached from later mutation", () => {
  const parameters = { a: { type: "string" as const, enum: ["x", "y"] } };
  const tool = defineTool({ name: "t", description: "Test.", parameters, execute: () => [] });
  parameters.a.enum.push("z");
  deepEqual(tool.spec.a.enum, ["x", "y"]);
  deepEqual((tool.parameters.properties as Record<string, Record<string, unknown>>).a!.enum, [
    "x",
    "y",
  ]);
  throws(() => tool.execute({ a: "z" } as never, fakeExec()), {
    message: 'invalid arguments: "a": expected one of "x", "y", received string "z"; fix: send "x"',
  });
});

Deno.test("a raw ToolDefinition stays possible with args: unknown", () => {
  const raw: AnyToolDefinition = {
    name: "mcp_echo",
    description: "Echo.",
    parameters: { type: "object", properties: { text: { type: "string", format: "uri" } } },
    execute: (args: unknown) => [{ type: "text", text: JSON.stringify(args) }],
  };
  deepEqual(raw.execute({ anything: 1 }, fakeExec()), [{ type: "text", text: '{"anything":1}' }]);
});
