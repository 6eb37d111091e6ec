/**
 * JSON Schema emission: the model-facing projection of a parameters map.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../core/json.ts";
import type { JsonSchema } from "./definition.ts";
import { checkParameters, type ParametersSpec } from "./schema.ts";

/**
 * Emits the model-facing JSON Schema of a parameters map, deep-frozen.
 *
 * Shape: the root is `{ type: "object", properties, required? }` and stays open (no
 * `additionalProperties`), so harness-added keys such as `run_in_background` pass. An explicit
 * object is closed (`additionalProperties: false`) unless the spec says
 * `additionalProperties: true`. `json` becomes an annotation-only schema, `required: true`
 * moves into the parent's `required` list, and `default` is emitted but never applied.
 *
 * Key order is deterministic: properties in declaration order; within a node `type`, `title`,
 * `description`, `enum`, `const`, `items`, `properties`, `required`, `additionalProperties`,
 * `oneOf`, `default`, `examples`.
 *
 * @param parameters The parameters map.
 * @returns The JSON Schema of the arguments object.
 * @throws {SchemaSpecError} When the map has an author mistake.
 *
 * @example Usage
 * ```ts
 * import { toJsonSchema } from "./json_schema.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(toJsonSchema({ path: { type: "string", required: true }, limit: { type: "number" } }), {
 *   type: "object",
 *   properties: { path: { type: "string" }, limit: { type: "number" } },
 *   required: ["path"],
 * });
 * ```
 */
export function toJsonSchema(parameters: ParametersSpec): JsonSchema {
  const checked = checkParameters(parameters);
  const root: Record<string, JsonValue> = { type: "object" };
  emitProperties(checked, root);
  return Object.freeze(root);
}

type Node = Readonly<Record<string, unknown>>;

function emitProperties(properties: Node, target: Record<string, JsonValue>): void {
  const emitted: Record<string, JsonValue> = {};
  const required: string[] = [];
  for (const name of Object.keys(properties)) {
    const spec = properties[name] as Node;
    Object.defineProperty(emitted, name, {
      value: emitNode(spec),
      enumerable: true,
      writable: false,
      configurable: false,
    });
    if (spec.required === true) required.push(name);
  }
  target.properties = Object.freeze(emitted);
  if (required.length > 0) target.required = Object.freeze(required);
}

function emitNode(spec: Node): JsonObject {
  const out: Record<string, JsonValue> = {};
  if (spec.type !== undefined && spec.type !== "json") out.type = spec.type as string;
  copy(spec, out, "title");
  copy(spec, out, "description");
  copy(spec, out, "enum");
  copy(spec, out, "const");
  if (spec.items !== undefined) out.items = emitNode(spec.items as Node);
  if (spec.type === "object") {
    if (spec.properties !== undefined) emitProperties(spec.properties as Node, out);
    out.additionalProperties = spec.additionalProperties === true;
  }
  if (spec.oneOf !== undefined) {
    out.oneOf = Object.freeze((spec.oneOf as readonly Node[]).map(emitNode));
  }
  copy(spec, out, "default");
  copy(spec, out, "examples");
  return Object.freeze(out);
}

function copy(spec: Node, out: Record<string, JsonValue>, key: string): void {
  // Values in a checked spec are already detached and deep-frozen.
  if (key in spec) out[key] = spec[key] as JsonValue;
}
