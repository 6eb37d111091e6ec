import { deepEqual, equal, ok } from "node:assert/strict";
import { Ajv } from "ajv";
import { compileValidator } from "../../tools/validate.ts";
import type { ParametersSpec } from "../../tools/schema.ts";

function violations(parameters: ParametersSpec, args: unknown): readonly string[] {
  return compileValidator(parameters)(args);
}

Deno.test("compileValidator() accepts valid arguments with a frozen empty list", () => {
  const validate = compileValidator({
    path: { type: "string", required: true },
    limit: { type: "number" },
  });
  const result = validate({ path: "/a", limit: 3 });
  deepEqual(result, []);
  ok(Object.isFrozen(result));
  deepEqual(validate({ path: "/a" }), []);
});

Deno.test("compileValidator() rejects each construct with its message", async (t) => {
  const cases: [string, ParametersSpec, unknown, string[]][] = [
    ["missing required", { a: { type: "string", required: true } }, {}, [
      '"a": expected string (required), received nothing (the key is missing); fix: send a string such as "text"',
    ]],
    ["string", { a: { type: "string" } }, { a: 1 }, [
      '"a": expected string, received number 1; fix: send "1"',
    ]],
    ["number", { a: { type: "number" } }, { a: "1" }, [
      '"a": expected number, received string "1"; fix: send 1',
    ]],
    ["number NaN", { a: { type: "number" } }, { a: NaN }, [
      '"a" is not a finite JSON number (NaN)',
    ]],
    ["number Infinity", { a: { type: "number" } }, { a: -Infinity }, [
      '"a" is not a finite JSON number (-Infinity)',
    ]],
    ["number -0", { a: { type: "number" } }, { a: -0 }, [
      '"a" is not a JSON number (-0; send 0)',
    ]],
    ["integer", { a: { type: "integer" } }, { a: 1.5 }, [
      '"a": expected integer, received number 1.5; fix: send 2',
    ]],
    ["integer NaN", { a: { type: "integer" } }, { a: NaN }, [
      '"a" is not a finite JSON number (NaN)',
    ]],
    ["boolean", { a: { type: "boolean" } }, { a: "true" }, [
      '"a": expected boolean, received string "true"; fix: send true',
    ]],
    ["null", { a: { type: "null" } }, { a: 0 }, [
      '"a": expected null, received number 0; fix: send null',
    ]],
    ["enum", { a: { type: "string", enum: ["x", "y"] } }, { a: "z" }, [
      '"a": expected one of "x", "y", received string "z"; fix: send "x"',
    ]],
    ["const", { a: { type: "string", const: "lit" } }, { a: "other" }, [
      '"a": expected "lit", received string "other"; fix: send "lit"',
    ]],
    ["const number", { a: { type: "integer", const: 3 } }, { a: 4 }, [
      '"a": expected 3, received number 4; fix: send 3',
    ]],
    ["const beside enum", { a: { type: "string", enum: ["x", "y"], const: "x" } }, { a: "y" }, [
      '"a": expected "x", received string "y"; fix: send "x"',
    ]],
    ["array", { a: { type: "array" } }, { a: {} }, [
      '"a": expected array, received object {}; fix: send [{}]',
    ]],
    ["array items", { a: { type: "array", items: { type: "string" } } }, { a: ["x", 2, 3] }, [
      '"a[1]": expected string, received number 2; fix: send "2"',
      '"a[2]": expected string, received number 3; fix: send "3"',
    ]],
    ["array without items", { a: { type: "array" } }, { a: [1, undefined] }, [
      '"a[1]" is not JSON (undefined)',
    ]],
    // deno-lint-ignore no-sparse-arrays
    ["sparse array", { a: { type: "array" } }, { a: [1, , 3] }, [
      '"a" is not a dense JSON array (it has holes)',
    ]],
    ["object", { a: { type: "object" } }, { a: [] }, [
      '"a": expected object, received array of 0 items; fix: send an object such as {}',
    ]],
    ["object class instance", { a: { type: "object", additionalProperties: true } }, {
      a: new Date(0),
    }, ['"a" is not a plain JSON object or array (a Date)']],
    ["closed object", { a: { type: "object", properties: { b: { type: "string" } } } }, {
      a: { b: "x", c: 1 },
    }, ['"a.c": expected no key "c" (declared: "b"), received number 1; fix: omit the key']],
    ["closed object without properties", { a: { type: "object" } }, { a: { z: 1 } }, [
      '"a.z": expected no keys here, received number 1; fix: omit the key',
    ]],
    ["open object extra", { a: { type: "object", additionalProperties: true } }, {
      a: { z: NaN },
    }, ['"a.z" is not a finite JSON number (NaN)']],
    [
      "nested required",
      {
        a: { type: "object", properties: { b: { type: "string", required: true } } },
      },
      { a: {} },
      ['"a.b": expected string (required), received nothing (the key is missing); fix: send a string such as "text"'],
    ],
    ["oneOf none", { a: { oneOf: [{ type: "string" }, { type: "number" }] } }, { a: true }, [
      '"a": expected one of 2 shapes: string | number, received boolean true (branch 1: expected string, received boolean true, branch 2: expected number, received boolean true); fix: send "true"',
    ]],
    ["oneOf two", { a: { oneOf: [{ type: "number" }, { type: "integer" }] } }, { a: 2 }, [
      '"a": expected exactly one of 2 shapes, received number 2, which matches 2 (branch 1: matches, branch 2: matches); fix: send 2',
    ]],
    ["json", { a: { type: "json" } }, { a: { b: [1, () => 1] } }, [
      '"a.b[1]" is not JSON (a function)',
    ]],
    ["root not an object", { a: { type: "string" } }, "x", [
      'arguments: expected object, received string "x"; fix: send an object such as {}',
    ]],
    ["root array", { a: { type: "string" } }, [], [
      "arguments: expected object, received array of 0 items; fix: send an object such as {}",
    ]],
    ["root null", {}, null, [
      "arguments: expected object, received null; fix: send an object such as {}",
    ]],
    ["root extra non-JSON", {}, { x: 1n }, ['"x" is not JSON (a BigInt)']],
  ];
  for (const [name, parameters, args, expected] of cases) {
    await t.step(name, () => deepEqual(violations(parameters, args), expected));
  }
});

Deno.test("compileValidator() accepts each construct's valid values", () => {
  const validate = compileValidator({
    s: { type: "string", enum: ["a", "b"] },
    i: { type: "integer", const: 2 },
    n: { type: "null" },
    b: { type: "boolean" },
    arr: { type: "array", items: { type: "array", items: { type: "number" } } },
    o: { type: "object", properties: { x: { type: "string" } } },
    open: { type: "object", additionalProperties: true, properties: { x: { type: "string" } } },
    empty: { type: "object" },
    u: { oneOf: [{ type: "string" }, { type: "object", additionalProperties: true }] },
    j: { type: "json" },
  });
  deepEqual(
    validate({
      s: "a",
      i: 2,
      n: null,
      b: false,
      arr: [[1, 2.5], []],
      o: { x: "y" },
      open: { x: "y", z: [1, { w: null }] },
      empty: {},
      u: { k: 1 },
      j: { deep: [1, "x", null, true] },
      extra: "root is open",
    }),
    [],
  );
  deepEqual(validate(Object.assign(Object.create(null), { s: "b" })), []);
});

Deno.test("compileValidator() reports violations sorted by path", () => {
  const validate = compileValidator({
    first: { type: "string", required: true },
    second: {
      type: "object",
      required: true,
      properties: {
        inner: { type: "array", items: { type: "integer" } },
        needed: { type: "boolean", required: true },
      },
    },
    third: { type: "number" },
  });
  deepEqual(
    validate({ zz: 1, third: "3", second: { extra: 1, inner: [1, "2"] } }),
    [
      '"first": expected string (required), received nothing (the key is missing); fix: send a string such as "text"',
      '"second.extra": expected no key "extra" (declared: "inner", "needed"), received number 1; fix: omit the key',
      '"second.inner[1]": expected integer, received string "2"; fix: send 2',
      '"second.needed": expected boolean (required), received nothing (the key is missing); fix: send a boolean such as false',
      '"third": expected number, received string "3"; fix: send 3',
    ],
  );
});

Deno.test("compileValidator() caps the list at 32 violations", () => {
  const validate = compileValidator({ a: { type: "array", items: { type: "string" } } });
  const result = validate({ a: Array.from({ length: 1000 }, (_, i) => i) });
  equal(result.length, 33);
  equal(result[0], '"a[0]": expected string, received number 0; fix: send "0"');
  equal(result[32], "more violations not shown");
});

Deno.test("compileValidator() survives 10k-deep nesting without a stack overflow", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 10_000; i++) deep = { a: [deep] };
  const validate = compileValidator({
    j: { type: "json" },
    o: { type: "object", additionalProperties: true },
    s: { type: "string" },
  });
  deepEqual(validate({ j: deep, o: { x: deep }, extra: deep }), []);
  deepEqual(validate({ s: deep }), [
    '"s": expected string, received object with "a"; fix: send a string such as "text"',
  ]);
  let bad: unknown = NaN;
  for (let i = 0; i < 10_000; i++) bad = [bad];
  const [message] = validate({ j: bad });
  ok(message?.startsWith('"j[0][0][0]'), message);
  ok(message?.endsWith(']" is not a finite JSON number (NaN)'), message);
  ok(message!.length < 300);
});

Deno.test("a bare ajv validator handles 10k-deep data since our schemas are finite", () => {
  // The iterative lossless pass runs first anyway; this pins that ajv itself does not recurse
  // into data deeper than the schema.
  let deep: unknown = 1;
  for (let i = 0; i < 10_000; i++) deep = { a: deep };
  const validate = new Ajv().compile({ type: "object", properties: { j: {} } });
  equal(validate({ j: deep }), true);
});

Deno.test("compileValidator() reports cycles instead of looping", () => {
  const validate = compileValidator({
    j: { type: "json" },
    o: { type: "object", properties: { self: { type: "json" } } },
  });
  const root: Record<string, unknown> = {};
  root.j = root;
  deepEqual(validate(root), ['"j" must not contain a cycle (it refers to an enclosing value)']);
  const list: unknown[] = [];
  list.push(list);
  deepEqual(validate({ j: list }), [
    '"j[0]" must not contain a cycle (it refers to an enclosing value)',
  ]);
  const o: Record<string, unknown> = {};
  o.self = { back: o };
  deepEqual(validate({ o }), [
    '"o.self.back" must not contain a cycle (it refers to an enclosing value)',
  ]);
  const shared = { x: 1 };
  deepEqual(validate({ j: [shared, shared] }), []);
});

Deno.test("compileValidator() treats __proto__ and constructor keys as plain data", () => {
  // Keys named like Object.prototype members lose contextual typing, hence `as const`.
  const validate = compileValidator(
    {
      constructor: { type: "string", required: true },
      toString: { type: "string" },
    } as const,
  );
  deepEqual(validate({}), [
    '"constructor": expected string (required), received nothing (the key is missing); fix: send a string such as "text"',
  ]);
  const hostile = JSON.parse('{"constructor": "x", "__proto__": {"polluted": true}}');
  deepEqual(validate(hostile), []);
  equal(({} as Record<string, unknown>).polluted, undefined);
  const closed = compileValidator({
    o: { type: "object", properties: { a: { type: "string" } } },
  });
  deepEqual(closed(JSON.parse('{"o": {"__proto__": {"a": 1}}}')), [
    '"o.__proto__": expected no key "__proto__" (declared: "a"), received object with "a"; fix: omit the key',
  ]);
  deepEqual(closed(JSON.parse('{"o": {"__proto__": []}, "__proto__": [1]}')), [
    '"o.__proto__": expected no key "__proto__" (declared: "a"), received array of 0 items; fix: omit the key',
  ]);
});

Deno.test("compileValidator() handles 50 MB strings without copying them into messages", () => {
  const big = "x".repeat(50 * 1024 * 1024);
  const validate = compileValidator({ s: { type: "string" }, n: { type: "number" } });
  deepEqual(validate({ s: big }), []);
  deepEqual(validate({ n: big }), [
    '"n": expected number, received string "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…" (52428800 characters); fix: send a number such as 1',
  ]);
  const closed = compileValidator({ o: { type: "object" } });
  const [message] = closed({ o: { [big.slice(0, 1_000_000)]: 1 } });
  ok(message !== undefined && message.length < 300, message?.slice(0, 300));
});

Deno.test("compileValidator() turns throwing getters and odd values into violations", () => {
  const validate = compileValidator({ a: { type: "string" }, j: { type: "json" } });
  const hostile = {
    get a(): string {
      throw new Error("boom");
    },
  };
  deepEqual(validate(hostile), ['"a" could not be read (its getter threw: boom)']);
  deepEqual(validate({ j: Symbol("s") }), ['"j" is not JSON (a symbol)']);
  deepEqual(validate({ j: new Map() }), ['"j" is not a plain JSON object or array (a Map)']);
  // Symbol keys are invisible to JSON and left to the registry's snapshot.
  deepEqual(validate({ j: { [Symbol("k")]: 1 } }), []);
  class Sub extends Array {}
  deepEqual(validate({ j: Sub.from([1]) }), ['"j" is not a plain JSON array (an array subclass)']);
  deepEqual(validate({ a: undefined }), [
    '"a": expected string, received undefined; fix: send a string such as "text"',
  ]);
  deepEqual(validate(undefined), [
    "arguments: expected object, received undefined; fix: send an object such as {}",
  ]);
});

Deno.test("compileValidator() prints long keys and paths cut", () => {
  const key = "k".repeat(500);
  const validate = compileValidator({ o: { type: "object" } });
  deepEqual(validate({ o: { [key]: 1 } }), [
    `"o.${"k".repeat(64)}…": expected no keys here, received number 1; fix: omit the key`,
  ]);
});
