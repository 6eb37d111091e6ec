import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { checkParameters, SchemaSpecError } from "../../tools/schema.ts";
import { HarnessError } from "../../core/errors.ts";

function authorError(parameters: unknown): SchemaSpecError {
  try {
    checkParameters(parameters as never);
  } catch (error) {
    ok(error instanceof SchemaSpecError);
    return error;
  }
  throw new Error("expected a SchemaSpecError");
}

Deno.test("checkParameters() returns a detached deep-frozen copy", () => {
  const examples = [{ a: 1 }];
  const input = {
    o: {
      type: "object",
      properties: { e: { type: "string", enum: ["a"], examples } },
    },
  } as const;
  const copy = checkParameters(input);
  deepEqual(copy, input);
  ok(copy !== input && copy.o !== input.o);
  ok(Object.isFrozen(copy) && Object.isFrozen(copy.o.properties.e.enum));
  ok(Object.isFrozen(copy.o.properties.e.examples[0]));
  ok(copy.o.properties.e.examples !== examples);
  ok(!Object.isFrozen(examples));
});

Deno.test("checkParameters() throws SchemaSpecError with path-qualified messages", async (t) => {
  const circular: Record<string, unknown> = { type: "array" };
  circular.items = circular;
  const loopProps: Record<string, unknown> = {};
  loopProps.self = { type: "object", properties: loopProps };
  let deep: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < 70; i++) deep = { type: "array", items: deep };
  const cases: [string, unknown, string, string][] = [
    [
      "unsupported keyword",
      { a: { type: "string", minLength: 1 } },
      "parameters.a.minLength",
      "parameters.a.minLength is not supported by the value schema DSL",
    ],
    [
      "nested unsupported keyword",
      {
        a: {
          type: "object",
          properties: { b: { type: "array", items: { type: "number", minimum: 0 } } },
        },
      },
      "parameters.a.properties.b.items.minimum",
      "parameters.a.properties.b.items.minimum is not supported by the value schema DSL",
    ],
    [
      "unsupported type",
      { a: { type: "float" } },
      "parameters.a.type",
      'parameters.a.type must be one of ["string","number","integer","boolean","null","array","object","json"]: received "float"',
    ],
    [
      "missing type",
      { a: { description: "x" } },
      "parameters.a",
      'parameters.a must have a "type" or a "oneOf": received {"description":"x"}',
    ],
    [
      "items on a string",
      { a: { type: "string", items: { type: "string" } } },
      "parameters.a.items",
      "parameters.a.items is not supported by the value schema DSL",
    ],
    [
      "wrong-typed enum",
      { a: { type: "string", enum: ["x", 1] } },
      "parameters.a.enum[1]",
      "parameters.a.enum[1] must be a string: received 1",
    ],
    [
      "integer enum",
      { a: { type: "integer", enum: [1.5] } },
      "parameters.a.enum[0]",
      "parameters.a.enum[0] must be an integer: received 1.5",
    ],
    [
      "number enum NaN",
      { a: { type: "number", enum: [NaN] } },
      "parameters.a.enum[0]",
      "parameters.a.enum[0] must be a finite number: received NaN",
    ],
    [
      "empty enum",
      { a: { type: "string", enum: [] } },
      "parameters.a.enum",
      "parameters.a.enum must be a non-empty array: received []",
    ],
    [
      "wrong-typed const",
      { a: { type: "boolean", const: "true" } },
      "parameters.a.const",
      'parameters.a.const must be a boolean: received "true"',
    ],
    [
      "null const",
      { a: { type: "null", const: 0 } },
      "parameters.a.const",
      "parameters.a.const must be null: received 0",
    ],
    [
      "const not in enum",
      { a: { type: "string", enum: ["x", "y"], const: "z" } },
      "parameters.a.const",
      'parameters.a.const must be a member of enum ["x","y"]: received "z"',
    ],
    [
      "type beside oneOf",
      { a: { type: "string", oneOf: [{ type: "string" }, { type: "null" }] } },
      "parameters.a.type",
      "parameters.a.type cannot sit beside oneOf: move it into the branches",
    ],
    [
      "one oneOf branch",
      { a: { oneOf: [{ type: "string" }] } },
      "parameters.a.oneOf",
      'parameters.a.oneOf must be an array of at least 2 specs: received [{"type":"string"}]',
    ],
    [
      "keyword beside oneOf",
      { a: { oneOf: [{ type: "string" }, { type: "null" }], enum: ["x"] } },
      "parameters.a.enum",
      "parameters.a.enum is not supported by the value schema DSL",
    ],
    [
      "bad branch",
      { a: { oneOf: [{ type: "string" }, { type: "date" }] } },
      "parameters.a.oneOf[1].type",
      'parameters.a.oneOf[1].type must be one of ["string","number","integer","boolean","null","array","object","json"]: received "date"',
    ],
    [
      "required false",
      { a: { type: "string", required: false } },
      "parameters.a.required",
      "parameters.a.required must be true: received false",
    ],
    [
      "required on items",
      { a: { type: "array", items: { type: "string", required: true } } },
      "parameters.a.items.required",
      "parameters.a.items.required is only allowed on a parameter or an object property",
    ],
    [
      "additionalProperties not boolean",
      { a: { type: "object", additionalProperties: {} } },
      "parameters.a.additionalProperties",
      "parameters.a.additionalProperties must be a boolean: received {}",
    ],
    [
      "non-JSON default",
      { a: { type: "number", default: NaN } },
      "parameters.a.default",
      "parameters.a.default must be lossless JSON: NaN is not a finite number",
    ],
    [
      "nested non-JSON example",
      { a: { type: "json", examples: [{ x: [1, undefined] }] } },
      "parameters.a.examples",
      'parameters.a.examples must be lossless JSON: at "[0].x[1]": undefined is not JSON',
    ],
    [
      "examples not an array",
      { a: { type: "number", examples: 1 } },
      "parameters.a.examples",
      "parameters.a.examples must be an array of JSON values: received 1",
    ],
    [
      "description not a string",
      { a: { type: "number", description: 1 } },
      "parameters.a.description",
      "parameters.a.description must be a string: received 1",
    ],
    [
      "spec not an object",
      { a: "string" },
      "parameters.a",
      'parameters.a must be a spec object such as { type: "string" }: received "string"',
    ],
    [
      "parameters not a record",
      [],
      "parameters",
      "parameters must be a plain object mapping names to specs: received []",
    ],
    [
      "properties not a record",
      { a: { type: "object", properties: null } },
      "parameters.a.properties",
      "parameters.a.properties must be a plain object mapping names to specs: received null",
    ],
    [
      "circular items",
      { a: circular },
      "parameters.a.items",
      "parameters.a.items is circular: it refers to an enclosing spec",
    ],
    [
      "circular properties",
      loopProps,
      "parameters.self.properties.self",
      "parameters.self.properties.self is circular: it refers to an enclosing spec",
    ],
    [
      "too deep",
      { a: deep },
      "parameters.a" + ".items".repeat(64),
      `parameters.a${
        ".items".repeat(64)
      } nests deeper than 64 levels: use { type: "json" } for deep values`,
    ],
  ];
  for (const [name, parameters, path, message] of cases) {
    await t.step(name, () => {
      const error = authorError(parameters);
      equal(error.message, message);
      equal(error.path, path);
      equal(error.code, "UNSUPPORTED_SCHEMA");
      equal(error.name, "SchemaSpecError");
      ok(error instanceof HarnessError);
    });
  }
});

Deno.test("checkParameters() allows shared non-circular specs and __proto__ names", () => {
  const shared = { type: "string" } as const;
  const copy = checkParameters({ a: shared, b: { type: "array", items: shared } });
  deepEqual(copy.b, { type: "array", items: { type: "string" } });
  const odd = checkParameters(JSON.parse('{"__proto__": {"type": "string"}}'));
  deepEqual(Object.keys(odd), ["__proto__"]);
  equal(Object.getPrototypeOf(odd), Object.prototype);
});

Deno.test("checkParameters() rejects records that are not plain objects", () => {
  throws(() => checkParameters(new Map() as never), {
    name: "SchemaSpecError",
    message: "parameters must be a plain object mapping names to specs: received {}",
  });
});
