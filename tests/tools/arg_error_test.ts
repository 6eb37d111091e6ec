import { equal, ok, throws } from "node:assert/strict";
import { z } from "zod";
import {
  argError,
  bigIntegerViolation,
  checkLength,
  checkRange,
  formatArgError,
  MAX_VIOLATION_CHARS,
} from "../../tools/arg_error.ts";
import { compileValidator } from "../../tools/validate.ts";
import { defineTool } from "../../tools/define_tool.ts";
import { ToolArgsError } from "../../tools/tool_args_error.ts";

function zodViolations(schema: z.ZodType, args: unknown): readonly string[] {
  const tool = defineTool({ name: "t", description: "t", parameters: schema, execute: () => [] });
  const result = tool.validate!(args);
  return result.ok ? [] : result.violations;
}

Deno.test("formatArgError() renders path, expected, received and fix in one line", () => {
  equal(
    formatArgError("items[2].qty", { expected: "integer", received: "3", fix: "send 3" }),
    '"items[2].qty": expected integer, received string "3"; fix: send 3',
  );
  equal(
    formatArgError("", { expected: "object", missing: true, fix: "send {}" }),
    "arguments: expected object, received nothing (the key is missing); fix: send {}",
  );
});

Deno.test("received values are short, safe and never rounded", () => {
  const long = formatArgError("a", { expected: "x", received: "y".repeat(5000), fix: "omit it" });
  ok(long.includes("(5000 characters)"), long);
  ok(long.length < 200, long);
  const bidi = formatArgError("a", { expected: "x", received: "\u202eevil\u001b[2J", fix: "f" });
  ok(bidi.includes("\\u202e") && bidi.includes("\\u001b"), bidi);
  ok(!bidi.includes("\u202e") && !bidi.includes("\u001b"), bidi);
  const number = formatArgError("a", { expected: "x", received: 0.1 + 0.2, fix: "f" });
  ok(number.includes("number 0.30000000000000004"), number);
  const object = formatArgError("a", {
    expected: "x",
    received: { a: 1, b: 2, c: 3, d: 4, secret: "s" },
    fix: "f",
  });
  ok(object.includes('object with "a", "b", "c", … (5 keys)'), object);
  ok(!object.includes("secret"), object);
});

Deno.test("a single violation stays within 400 characters whatever its parts", () => {
  const text = formatArgError("p".repeat(500), {
    expected: "e".repeat(900),
    received: "r".repeat(900),
    fix: "f".repeat(900),
    detail: "d".repeat(900),
  });
  ok(text.length <= MAX_VIOLATION_CHARS, String(text.length));
  ok(text.includes("; fix: "), text);
});

Deno.test("allowed values are listed up to ten, else the first ones and a count", () => {
  const few = compileValidator({ c: { type: "string", enum: ["a", "b", "c"] } })({ c: "x" });
  ok(few[0]!.includes('expected one of "a", "b", "c",'), few[0]);
  const names = Array.from({ length: 12 }, (_, i) => `n${i}`);
  const many = compileValidator({ c: { type: "string", enum: names } })({ c: "x" });
  ok(many[0]!.includes('"n7", … (8 of 12 shown)'), many[0]);
  ok(!many[0]!.includes('"n8"'), many[0]);
});

Deno.test("null for an optional key says to omit it; for a required one, what to send", () => {
  const v = compileValidator({
    since: { type: "string" },
    mode: { type: "string", enum: ["a", "b"], required: true },
  });
  const out = v({ since: null, mode: null });
  equal(out[0], '"mode": expected one of "a", "b", received null; fix: send "a"');
  ok(out[1]!.endsWith("received null; fix: omit the key (leave it out rather than send null)"));
  const zod = zodViolations(z.object({ since: z.string().optional() }), { since: null });
  ok(zod[0]!.includes("fix: omit the key"), zod[0]);
});

Deno.test("arguments sent as a JSON string holding an object are named as such (and refused)", () => {
  const dsl = compileValidator({ a: { type: "string" } })('{"a":"x"}');
  const zod = zodViolations(z.object({ a: z.string() }), '{"a":"x"}');
  for (const out of [dsl, zod]) {
    equal(
      out[0],
      "arguments: expected object, received string (arguments arrived as a JSON string holding an object); fix: send the object itself, not a JSON string",
    );
  }
});

Deno.test("a misspelled key is renamed, at the open root and in a closed object", () => {
  const v = compileValidator({
    file_path: { type: "string", required: true },
    opts: { type: "object", properties: { max_count: { type: "integer", required: true } } },
  });
  const out = v({ filepath: "/a", opts: { maxCount: 3 } });
  equal(out.length, 2);
  ok(out[0]!.startsWith('"file_path": expected string (required)'), out[0]);
  ok(out[0]!.endsWith('fix: rename "filepath" to "file_path"'), out[0]);
  ok(out[1]!.startsWith('"opts.maxCount": expected no key "maxCount" (declared: "max_count")'));
  ok(out[1]!.endsWith('fix: rename "maxCount" to "max_count"'), out[1]);
});

Deno.test("unions: a discriminated branch reports its own violation; otherwise each branch says why", () => {
  const spec = {
    job: {
      oneOf: [
        {
          type: "object",
          properties: { kind: { type: "string", const: "a" }, x: { type: "number" } },
        },
        {
          type: "object",
          properties: { kind: { type: "string", const: "b" }, y: { type: "string" } },
        },
      ],
    },
  } as const;
  const v = compileValidator(spec);
  equal(
    v({ job: { kind: "b", y: 1 } })[0],
    '"job.y": expected string, received number 1; fix: send "1"',
  );
  const none = v({ job: { kind: "c" } })[0]!;
  ok(none.includes('expected one of 2 shapes: object with "kind": "a" | object with "kind": "b"'));
  ok(none.includes('branch 1: "kind": expected "a"'), none);
  ok(none.includes('branch 2: "kind": expected "b"'), none);
  const zod = zodViolations(
    z.object({
      job: z.union([
        z.object({ kind: z.literal("a"), x: z.number() }),
        z.object({ kind: z.literal("b"), y: z.string() }),
      ]),
    }),
    { job: { kind: "b", y: 1 } },
  );
  ok(
    zod[0]!.startsWith(
      '"job.y": expected string, received number 1 (zod: Invalid input: expected string, received number)',
    ),
    zod[0],
  );
});

Deno.test("several violations come in one message, sorted by path with indices in order", () => {
  const v = compileValidator({
    z: { type: "string" },
    items: { type: "array", items: { type: "integer" } },
  });
  const list = [...Array(11).keys()].map((i) => (i === 2 || i === 10 ? "x" : i));
  const out = v({ z: 1, items: list });
  ok(out[0]!.startsWith('"items[2]"'), out[0]);
  ok(out[1]!.startsWith('"items[10]"'), out[1]);
  ok(out[2]!.startsWith('"z"'), out[2]);
  const message = new ToolArgsError(out).message;
  ok(message.startsWith("invalid arguments (3 problems):\n- "), message);
});

Deno.test("checkRange() and checkLength() give a tool's own checks the same shape", () => {
  checkRange({ limit: 5 }, "limit", { min: 1, max: 100, integer: true });
  checkRange({}, "limit", { min: 1 });
  throws(() => checkRange({ page: { size: 0.5 } }, "page.size", { min: 1, integer: true }), {
    name: "ToolArgsError",
    message:
      'invalid arguments: "page.size": expected integer >= 1, received number 0.5; fix: send 1',
  });
  throws(() => checkRange({ items: [{ qty: 500 }] }, "items[0].qty", { max: 99 }), {
    message:
      'invalid arguments: "items[0].qty": expected number <= 99, received number 500; fix: send 99',
  });
  throws(() => checkLength({ text: "" }, "text", { min: 1, max: 80 }), {
    message:
      'invalid arguments: "text": expected string of 1 to 80 characters, received string ""; fix: send at least 1 character (0 were sent)',
  });
  throws(
    () => checkLength({ tags: ["a", "b", "c"] }, "tags", { max: 2 }),
    /expected array of at most 2 items, received array of 3 items/,
  );
  const error = argError("pattern", {
    expected: "a valid regular expression",
    received: "a(",
    fix: "escape it",
  });
  equal(error.code, "INVALID_ARGS");
});

Deno.test("bigIntegerViolation() advises a string only where the schema accepts one", () => {
  const schema = {
    type: "object",
    properties: {
      id: { anyOf: [{ type: "string" }, { type: "integer" }] },
      n: { type: "integer", maximum: 10 },
    },
  };
  ok(
    bigIntegerViolation(schema, ["id"], "9007199254740993").endsWith(
      'fix: send "9007199254740993"',
    ),
  );
  const n = bigIntegerViolation(schema, ["n"], "9007199254740993");
  ok(n.includes("expected integer from -9007199254740991 to 10"), n);
  ok(!n.includes('"9007199254740993"'), n);
  ok(n.endsWith("such as 10"), n);
});

Deno.test("a zod union no branch matches names each branch and why it failed", () => {
  const out = zodViolations(
    z.object({
      job: z.union([
        z.object({ kind: z.literal("cron"), expr: z.string() }),
        z.object({ kind: z.literal("interval"), every_s: z.number() }),
      ]),
    }),
    { job: { kind: "daily" } },
  );
  equal(out.length, 1);
  ok(
    out[0]!.startsWith(
      '"job": expected one of 2 shapes: object with "kind": "cron" | object with "kind": "interval"',
    ),
    out[0],
  );
  ok(out[0]!.includes('zod: branch 1: kind: Invalid input: expected "cron"'), out[0]);
  ok(out[0]!.includes('branch 2: kind: Invalid input: expected "interval"'), out[0]);
  ok(out[0]!.length <= MAX_VIOLATION_CHARS, out[0]);
});
