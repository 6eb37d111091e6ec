import { deepEqual, equal, rejects, throws } from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../tools/define_tool.ts";
import { type StandardSchemaV1, standardViolations } from "../../tools/standard_schema.ts";
import { ToolArgsError } from "../../tools/tool_args_error.ts";
import type { ToolExecution } from "../../tools/definition.ts";
import { createHarness } from "../../mod.ts";
import { generateSdk } from "../../codemode/mod.ts";

function fakeExec(): ToolExecution {
  return {
    callId: "c1",
    name: "grep",
    arguments: {},
    token: Symbol("t"),
    signal: new AbortController().signal,
    output: { write() {} },
    deferContext() {},
  };
}

const grepParameters = z.object({
  pattern: z.string().describe("What to look for"),
  paths: z.array(z.string()).optional(),
  mode: z.enum(["fast", "slow"]).default("fast"),
  options: z.object({ maxCount: z.number().int() }).optional(),
});

const grep = defineTool({
  name: "grep",
  description: "Search files.",
  parameters: grepParameters,
  presentCall: (args) => ({ card: "generic", title: `grep ${args.pattern} (${args.mode})` }),
  isConcurrencySafe: (args) => args.mode === "fast",
  execute(args) {
    // Typed from the zod schema's output: mode is "fast" | "slow", paths string[] | undefined.
    const mode: "fast" | "slow" = args.mode;
    const paths: string[] = args.paths ?? [];
    return [{ type: "text", text: `${args.pattern} ${mode} ${paths.length}` }];
  },
});

Deno.test("defineTool() takes a zod schema: JSON Schema from Standard JSON Schema, no $schema", () => {
  equal(grep.spec, undefined);
  deepEqual(grep.parameters, {
    type: "object",
    properties: {
      pattern: { type: "string", description: "What to look for" },
      paths: { type: "array", items: { type: "string" } },
      mode: { default: "fast", type: "string", enum: ["fast", "slow"] },
      options: {
        type: "object",
        properties: {
          maxCount: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 },
        },
        required: ["maxCount"],
      },
    },
    required: ["pattern"],
  });
  equal(Object.isFrozen(grep.parameters), true);
});

Deno.test("defineTool() with a zod schema passes the parsed output to execute", async () => {
  deepEqual(await grep.execute({ pattern: "todo" } as never, fakeExec()), [
    { type: "text", text: "todo fast 0" },
  ]);
});

Deno.test("defineTool() with a zod schema reports issues in the DSL's message style", () => {
  throws(
    () =>
      grep.execute(
        { paths: ["a", 1], mode: "medium", options: { maxCount: 1.5 } } as never,
        fakeExec(),
      ),
    (error: unknown) => {
      equal(error instanceof ToolArgsError, true);
      const { violations, message, code } = error as ToolArgsError;
      equal(code, "INVALID_ARGS");
      deepEqual(violations, [
        '"mode": expected one of "fast", "slow", received string "medium" (zod: Invalid option: expected one of "fast"|"slow"); fix: send "fast"',
        '"options.maxCount": expected integer, received number 1.5 (zod: Invalid input: expected int, received number); fix: send 2',
        '"paths[1]": expected string, received number 1 (zod: Invalid input: expected string, received number); fix: send "1"',
        '"pattern": expected string (required), received nothing (the key is missing) (zod: Invalid input: expected string, received undefined); fix: send a string such as "text"',
      ]);
      equal(message, `invalid arguments (4 problems):\n- ${violations.join("\n- ")}`);
      return true;
    },
  );
  throws(() => grep.execute("nope" as never, fakeExec()), {
    message:
      'invalid arguments: arguments: expected object with "pattern", received string "nope" (zod: Invalid input: expected object, received string); fix: send an object with "pattern" such as {"pattern":"text"}',
  });
});

Deno.test("defineTool() with a zod schema soft-validates presenters and isConcurrencySafe", () => {
  deepEqual(grep.presentCall?.({ pattern: "x" } as never), {
    card: "generic",
    title: "grep x (fast)",
  });
  equal(grep.presentCall?.({ pattern: 1 } as never), undefined);
  equal(grep.isConcurrencySafe?.({ pattern: "x" } as never), true);
  equal(grep.isConcurrencySafe?.({ pattern: "x", mode: "slow" } as never), false);
  equal(grep.isConcurrencySafe?.({} as never), false);
});

Deno.test("defineTool() with an async Standard Schema validates in execute and falls back in presenters", async () => {
  const schema = z.object({ n: z.number() }).refine(
    (v) => Promise.resolve(v.n > 0),
    "n must be positive",
  );
  const tool = defineTool({
    name: "positive",
    description: "Needs a positive n.",
    parameters: schema,
    presentCall: (args) => ({ card: "generic", title: String(args.n) }),
    execute: (args) => [{ type: "text", text: String(args.n) }],
  });
  deepEqual(await tool.execute({ n: 2 }, fakeExec()), [{ type: "text", text: "2" }]);
  await rejects(async () => await tool.execute({ n: -1 }, fakeExec()), {
    name: "ToolArgsError",
    message:
      'invalid arguments: arguments: expected n must be positive, received object with "n" (zod: n must be positive); fix: send a value that passes: n must be positive',
  });
  equal(tool.presentCall?.({ n: 2 }), undefined);
});

Deno.test("defineTool() asks for a JSON Schema when the library has no Standard JSON Schema converter", () => {
  const bare: StandardSchemaV1<{ a: string }> = {
    "~standard": {
      version: 1,
      vendor: "bare",
      validate: (value) => ({ value: value as { a: string } }),
    },
  };
  throws(
    () => defineTool({ name: "bare", description: "d", parameters: bare, execute: () => [] }),
    {
      name: "TypeError",
      message:
        'Cannot define tool "bare": the "bare" schema has no Standard JSON Schema converter ("~standard.jsonSchema"), so dsh cannot tell the model its parameters: upgrade the library to one that implements Standard JSON Schema (zod 4.2 or later), pass the JSON Schema as "jsonSchema", or use the schema DSL',
    },
  );
  const tool = defineTool({
    name: "bare",
    description: "d",
    parameters: bare,
    jsonSchema: { type: "object", properties: { a: { type: "string" } } },
    execute: (args) => [{ type: "text", text: args.a }],
  });
  deepEqual(tool.parameters, { type: "object", properties: { a: { type: "string" } } });
  throws(
    () =>
      defineTool({
        name: "bare",
        description: "d",
        parameters: bare,
        jsonSchema: { type: "string" },
        execute: () => [],
      }),
    {
      message:
        'Cannot define tool "bare": the parameters JSON Schema must describe an object ({ "type": "object", ... }): current value is {"type":"string"}',
    },
  );
  throws(
    () =>
      defineTool({
        name: "dsl",
        description: "d",
        parameters: {},
        jsonSchema: { type: "object" },
        execute: () => [],
      }),
    {
      message:
        'Cannot define tool "dsl": jsonSchema is only allowed with a Standard Schema: the schema DSL emits its own',
    },
  );
});

Deno.test("defineTool() rejects a Standard Schema whose JSON Schema is not an object", () => {
  throws(
    () => defineTool({ name: "s", description: "d", parameters: z.string(), execute: () => [] }),
    { message: /^Cannot define tool "s": the parameters JSON Schema must describe an object/ },
  );
  throws(
    () =>
      defineTool({
        name: "s",
        description: "d",
        parameters: z.object({ when: z.date() }),
        execute: () => [],
      }),
    {
      message:
        /^Cannot define tool "s": the "zod" schema cannot be converted to JSON Schema \(draft-2020-12: /,
    },
  );
});

Deno.test("standardViolations() caps the list and handles symbol and nested paths", () => {
  const many = Array.from({ length: 40 }, (_, i) => ({ message: "Bad", path: [i] }));
  const out = standardViolations(many, []);
  equal(out.length, 33);
  equal(out.at(-1), "more violations not shown");
  deepEqual(standardViolations([{ message: "Bad" }], 1), [
    "arguments: expected Bad, received number 1 (schema: Bad); fix: send a value that passes: Bad",
  ]);
  deepEqual(standardViolations([], {}), [
    "arguments: expected valid arguments, received a value the schema rejected; fix: check the tool's schema",
  ]);
});

Deno.test("a zod tool runs through the registry pipeline, Code Mode SDK and cards like a DSL tool", async () => {
  const ctx = await createHarness({ logLevel: "error" });
  try {
    ctx.tools.register(grep);
    const ok = await ctx.tools.execute({ callId: "1", name: "grep", arguments: { pattern: "a" } });
    deepEqual(ok, { isError: false, content: [{ type: "text", text: "a fast 0" }] });
    const bad = await ctx.tools.execute({ callId: "2", name: "grep", arguments: { mode: "x" } });
    equal(bad.isError, true);
    equal(bad.error?.code, "INVALID_ARGS");
    deepEqual(bad.content, [{
      type: "text",
      text:
        'Error: invalid arguments (2 problems):\n- "mode": expected one of "fast", "slow", received string "x" (zod: Invalid option: expected one of "fast"|"slow"); fix: send "fast"\n- "pattern": expected string (required), received nothing (the key is missing) (zod: Invalid input: expected string, received undefined); fix: send a string such as "text"',
    }]);
    const sdk = generateSdk(ctx.tools.list());
    equal(sdk.includes("grep(args: {"), true, sdk);
    equal(sdk.includes('mode?: "fast" | "slow"'), true, sdk);
    equal(sdk.includes("/** What to look for */"), true, sdk);
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("defineTool() takes an arktype schema (Standard JSON Schema built in)", async () => {
  const { type } = await import("arktype");
  const tool = defineTool({
    name: "ark",
    description: "d",
    parameters: type({ path: "string", "limit?": "number" }),
    execute: (args) => [{ type: "text", text: `${args.path} ${args.limit ?? "-"}` }],
  });
  deepEqual(tool.parameters, {
    type: "object",
    properties: { path: { type: "string" }, limit: { type: "number" } },
    required: ["path"],
  });
  deepEqual(await tool.execute({ path: "a" }, fakeExec()), [{ type: "text", text: "a -" }]);
  throws(() => tool.execute({ path: 1 } as never, fakeExec()), {
    message:
      'invalid arguments: "path": expected string, received number 1 (arktype: must be a string (was a number)); fix: send "1"',
  });
});

Deno.test("defineTool() asks a valibot schema for its JSON Schema (no Standard JSON Schema yet)", async () => {
  const v = await import("valibot");
  const parameters = v.object({ path: v.string() });
  throws(
    () => defineTool({ name: "vb", description: "d", parameters, execute: () => [] }),
    {
      message:
        /^Cannot define tool "vb": the "valibot" schema has no Standard JSON Schema converter/,
    },
  );
  const tool = defineTool({
    name: "vb",
    description: "d",
    parameters,
    jsonSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    execute: (args) => [{ type: "text", text: args.path }],
  });
  deepEqual(await tool.execute({ path: "x" }, fakeExec()), [{ type: "text", text: "x" }]);
  throws(() => tool.execute({} as never, fakeExec()), {
    message:
      'invalid arguments: "path": expected string (required), received nothing (the key is missing) (valibot: Invalid key: Expected "path" but received undefined); fix: send a string such as "text"',
  });
});
