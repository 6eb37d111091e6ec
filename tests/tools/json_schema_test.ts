import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { toJsonSchema } from "../../tools/json_schema.ts";

Deno.test("toJsonSchema() emits the seed read_file schema", () => {
  const schema = toJsonSchema({
    path: { type: "string", required: true, description: "Absolute path" },
    limit: { type: "number" },
  });
  equal(
    JSON.stringify(schema),
    '{"type":"object","properties":{"path":{"type":"string","description":"Absolute path"},' +
      '"limit":{"type":"number"}},"required":["path"]}',
  );
});

Deno.test("toJsonSchema() emits every construct in a deterministic key order", () => {
  const schema = toJsonSchema({
    mode: {
      examples: ["a"],
      default: "a",
      enum: ["a", "b"],
      description: "Mode",
      title: "Mode",
      type: "string",
      required: true,
    },
    lit: { const: 1, type: "integer" },
    flag: { type: "boolean" },
    none: { type: "null" },
    list: { type: "array", items: { type: "number" } },
    any_list: { type: "array" },
    closed: {
      type: "object",
      properties: { b: { type: "string", required: true }, a: { type: "json" } },
    },
    open: { type: "object", additionalProperties: true },
    either: { description: "One", oneOf: [{ type: "string" }, { type: "null" }] },
    blob: { type: "json", description: "Anything" },
  });
  equal(
    JSON.stringify(schema, null, 1),
    `{
 "type": "object",
 "properties": {
  "mode": {
   "type": "string",
   "title": "Mode",
   "description": "Mode",
   "enum": [
    "a",
    "b"
   ],
   "default": "a",
   "examples": [
    "a"
   ]
  },
  "lit": {
   "type": "integer",
   "const": 1
  },
  "flag": {
   "type": "boolean"
  },
  "none": {
   "type": "null"
  },
  "list": {
   "type": "array",
   "items": {
    "type": "number"
   }
  },
  "any_list": {
   "type": "array"
  },
  "closed": {
   "type": "object",
   "properties": {
    "b": {
     "type": "string"
    },
    "a": {}
   },
   "required": [
    "b"
   ],
   "additionalProperties": false
  },
  "open": {
   "type": "object",
   "additionalProperties": true
  },
  "either": {
   "description": "One",
   "oneOf": [
    {
     "type": "string"
    },
    {
     "type": "null"
    }
   ]
  },
  "blob": {
   "description": "Anything"
  }
 },
 "required": [
  "mode"
 ]
}`,
  );
});

Deno.test("toJsonSchema() emits an empty root with properties and no required list", () => {
  deepEqual(toJsonSchema({}), { type: "object", properties: {} });
});

Deno.test("toJsonSchema() returns a deep-frozen schema", () => {
  const schema = toJsonSchema({
    o: { type: "object", properties: { a: { type: "string", enum: ["x"], required: true } } },
  });
  const o = (schema.properties as Record<string, Record<string, unknown>>).o!;
  ok(Object.isFrozen(schema) && Object.isFrozen(schema.properties) && Object.isFrozen(o));
  ok(Object.isFrozen(o.required) && Object.isFrozen(o.properties));
});

Deno.test("toJsonSchema() keeps a __proto__ parameter as an own property", () => {
  const schema = toJsonSchema(JSON.parse('{"__proto__": {"type": "string", "required": true}}'));
  equal(
    JSON.stringify(schema),
    '{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}',
  );
});

Deno.test("toJsonSchema() throws SchemaSpecError on author mistakes", () => {
  throws(() => toJsonSchema({ a: { type: "string", pattern: "x" } as never }), {
    name: "SchemaSpecError",
    message: "parameters.a.pattern is not supported by the value schema DSL",
  });
});
