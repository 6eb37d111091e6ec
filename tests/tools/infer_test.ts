// Type-level tests: `deno check` (run by `deno test`) is the assertion.
import { equal } from "node:assert/strict";
import type { JsonValue } from "../../core/json.ts";
import type { InferArgs, InferValue } from "../../tools/infer.ts";
import { defineTool } from "../../tools/define_tool.ts";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;
function assertType<T extends true>(_ok?: T): void {}

Deno.test("InferArgs splits required and optional keys", () => {
  const parameters = {
    path: { type: "string", required: true, description: "Absolute path" },
    limit: { type: "number" },
  } as const;
  assertType<Equal<InferArgs<typeof parameters>, { path: string; limit?: number }>>();
});

Deno.test("InferValue infers scalars, literals and unions", () => {
  assertType<Equal<InferValue<{ type: "string" }>, string>>();
  assertType<Equal<InferValue<{ type: "integer" }>, number>>();
  assertType<Equal<InferValue<{ type: "number" }>, number>>();
  assertType<Equal<InferValue<{ type: "boolean" }>, boolean>>();
  assertType<Equal<InferValue<{ type: "null" }>, null>>();
  assertType<Equal<InferValue<{ type: "json" }>, JsonValue>>();
  assertType<Equal<InferValue<{ type: "string"; enum: readonly ["a", "b"] }>, "a" | "b">>();
  assertType<Equal<InferValue<{ type: "integer"; enum: readonly [1, 2] }>, 1 | 2>>();
  assertType<Equal<InferValue<{ type: "string"; const: "x" }>, "x">>();
  assertType<
    Equal<InferValue<{ type: "string"; enum: readonly ["a", "b"]; const: "a" }>, "a">
  >();
  assertType<
    Equal<InferValue<{ oneOf: readonly [{ type: "string" }, { type: "null" }] }>, string | null>
  >();
});

Deno.test("InferValue infers arrays and open, closed and empty objects", () => {
  assertType<Equal<InferValue<{ type: "array"; items: { type: "string" } }>, string[]>>();
  assertType<Equal<InferValue<{ type: "array" }>, JsonValue[]>>();
  assertType<Equal<InferValue<{ type: "object" }>, Record<string, never>>>();
  assertType<
    Equal<InferValue<{ type: "object"; additionalProperties: true }>, Record<string, JsonValue>>
  >();
  assertType<
    Equal<
      InferValue<{
        type: "object";
        properties: { a: { type: "string"; required: true }; b: { type: "number" } };
      }>,
      { a: string; b?: number }
    >
  >();
  assertType<
    Equal<
      InferValue<{
        type: "object";
        additionalProperties: true;
        properties: { a: { type: "string"; required: true } };
      }>,
      { [key: string]: JsonValue; a: string }
    >
  >();
});

Deno.test("InferValue caps nesting at 16 container levels with JsonValue", () => {
  type Nest<S, N extends unknown[] = []> = N["length"] extends 17 ? S
    : Nest<{ type: "array"; items: S }, [...N, 0]>;
  type Deep = InferValue<Nest<{ type: "string" }>>;
  // 16 arrays are inferred; the 17th level falls back to JsonValue.
  type Peel<T, N extends unknown[] = []> = N["length"] extends 16 ? T
    : T extends (infer I)[] ? Peel<I, [...N, 0]>
    : never;
  assertType<Equal<Peel<Deep>, JsonValue>>();
  type Shallow = InferValue<{ type: "array"; items: { type: "array"; items: { type: "string" } } }>;
  assertType<Equal<Shallow, string[][]>>();
});

Deno.test("defineTool() infers args with literal types through const type parameters", () => {
  const tool = defineTool({
    name: "t",
    description: "Test.",
    parameters: {
      mode: { type: "string", enum: ["fast", "slow"], required: true },
      level: { type: "integer", const: 3 },
      tags: { type: "array", items: { type: "string" } },
      opts: {
        type: "object",
        properties: { dry: { type: "boolean", required: true }, note: { type: "json" } },
      },
      either: { oneOf: [{ type: "string" }, { type: "array", items: { type: "number" } }] },
    },
    execute(args) {
      assertType<
        Equal<typeof args, {
          mode: "fast" | "slow";
          level?: 3;
          tags?: string[];
          opts?: { dry: boolean; note?: JsonValue };
          either?: string | number[];
        }>
      >();
      return [{ type: "text", text: args.mode }];
    },
    presentCall(args) {
      assertType<Equal<typeof args.mode, "fast" | "slow">>();
      return undefined;
    },
  });
  type Args = Parameters<typeof tool.execute>[0];
  assertType<Equal<Args["mode"], "fast" | "slow">>();
  equal(tool.name, "t");
});

Deno.test("defineTool() rejects wrong uses at compile time", () => {
  const define = () => {
    defineTool({
      name: "t",
      description: "Test.",
      parameters: { path: { type: "string", required: true }, limit: { type: "number" } },
      execute(args) {
        // @ts-expect-error limit is optional, so possibly undefined
        const n: number = args.limit;
        // @ts-expect-error path is a string
        const b: boolean = args.path;
        // @ts-expect-error undeclared key
        args.other;
        return [{ type: "text", text: `${n}${b}` }];
      },
    });
    defineTool({
      name: "t",
      description: "Test.",
      // @ts-expect-error unknown type
      parameters: { a: { type: "float" } },
      execute: () => [],
    });
    defineTool({
      name: "t",
      description: "Test.",
      // @ts-expect-error enum members must match the type
      parameters: { a: { type: "string", enum: [1, 2] } },
      execute: () => [],
    });
    defineTool({
      name: "t",
      description: "Test.",
      // @ts-expect-error required must be true
      parameters: { a: { type: "string", required: false } },
      execute: () => [],
    });
    defineTool({
      name: "t",
      description: "Test.",
      // @ts-expect-error type cannot sit beside oneOf
      parameters: { a: { type: "string", oneOf: [{ type: "string" }, { type: "null" }] } },
      execute: () => [],
    });
    defineTool({
      name: "t",
      description: "Test.",
      parameters: { a: { type: "string" } },
      // @ts-expect-error execute must return content blocks
      execute: () => "text",
    });
    const tool = defineTool({
      name: "t",
      description: "Test.",
      parameters: { a: { type: "string", required: true } },
      execute: () => [],
    });
    // @ts-expect-error the definition is readonly
    tool.name = "u";
    // @ts-expect-error a is a string
    tool.execute({ a: 1 }, {} as never);
  };
  equal(typeof define, "function");
});
