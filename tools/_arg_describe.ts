/**
 * Private: the parts of an argument error read off a schema node. A node is a checked DSL spec
 * or a JSON Schema object (the keywords overlap: `type`, `enum`, `const`, `properties`, `items`,
 * `oneOf`/`anyOf`; JSON Schema adds ranges and lengths). Built only on failure.
 *
 * @module
 */
import type { JsonValue } from "../core/json.ts";

/** A DSL spec node or a JSON Schema node. */
export type SchemaNode = Readonly<Record<string, unknown>>;

/** Most allowed values listed in full; longer lists show the first ones and the count. */
const MAX_LISTED = 10;
const SHOWN_OF_LONG = 8;
/** Longest string rendered whole in `received`. */
const MAX_STRING = 40;

/** Resolves a local `$ref` (`#/$defs/x`, `#/definitions/x`) against the root schema. */
export function resolveRef(node: SchemaNode | undefined, root: SchemaNode): SchemaNode | undefined {
  for (let i = 0; i < 8 && node !== undefined && typeof node.$ref === "string"; i++) {
    const ref = node.$ref as string;
    if (!ref.startsWith("#")) return undefined;
    let target: unknown = root;
    for (const raw of ref.slice(1).split("/").filter((s) => s !== "")) {
      const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      target = isNode(target) ? target[key] : undefined;
    }
    node = isNode(target) ? target : undefined;
  }
  return node;
}

function isNode(value: unknown): value is SchemaNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The branches of a union node (`oneOf` or `anyOf`), if it is one. */
export function branchesOf(node: SchemaNode): readonly SchemaNode[] | undefined {
  const list = node.oneOf ?? node.anyOf;
  return Array.isArray(list) ? list.filter(isNode) : undefined;
}

/** The child node for one path segment, through unions and local refs. */
export function childNode(
  node: SchemaNode | undefined,
  segment: string | number,
  root: SchemaNode,
): SchemaNode | undefined {
  node = resolveRef(node, root);
  if (node === undefined) return undefined;
  const branches = branchesOf(node);
  if (branches !== undefined) {
    for (const branch of branches) {
      const found = childNode(branch, segment, root);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof segment === "number") {
    const prefix = node.prefixItems;
    if (Array.isArray(prefix) && isNode(prefix[segment])) return prefix[segment] as SchemaNode;
    return isNode(node.items) ? node.items : undefined;
  }
  const properties = node.properties;
  if (isNode(properties) && Object.hasOwn(properties, segment) && isNode(properties[segment])) {
    return properties[segment] as SchemaNode;
  }
  return isNode(node.additionalProperties) ? node.additionalProperties : undefined;
}

/** The node at a path of segments from the root, or `undefined` when the schema has none. */
export function nodeAt(
  root: SchemaNode,
  segments: readonly (string | number)[],
): SchemaNode | undefined {
  let node: SchemaNode | undefined = root;
  for (const segment of segments) {
    node = childNode(node, segment, root);
    if (node === undefined) return undefined;
  }
  return resolveRef(node, root);
}

/** The declared types of a node (`type` as a string or a list). */
export function typesOf(node: SchemaNode): readonly string[] {
  const type = node.type;
  if (typeof type === "string") return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : [];
}

/** Whether `name` is required in object node `node` (DSL `required: true` or a JSON list). */
export function isRequired(node: SchemaNode, name: string): boolean {
  if (Array.isArray(node.required)) return node.required.includes(name);
  const properties = node.properties;
  const property = isNode(properties) && Object.hasOwn(properties, name)
    ? properties[name]
    : undefined;
  return isNode(property) && property.required === true;
}

/** The declared property names of an object node. */
export function declaredKeys(node: SchemaNode): readonly string[] {
  return isNode(node.properties) ? Object.keys(node.properties) : [];
}

/** A JSON rendering of a value in a message, with bidi and line controls escaped. */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.replace(
    /[\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\u0080-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** `"a", "b", "c"`, or the first ones and the count when there are more than ten. */
export function listValues(values: readonly unknown[]): string {
  if (values.length <= MAX_LISTED) return values.map(jsonText).join(", ");
  const shown = values.slice(0, SHOWN_OF_LONG).map(jsonText).join(", ");
  return `${shown}, … (${SHOWN_OF_LONG} of ${values.length} shown)`;
}

/** The range phrase of a numeric node: ` from 1 to 100`, ` >= 0`, ` < 5`, or empty. */
function rangeText(node: SchemaNode): string {
  // zod's int() states the safe-integer range: not worth naming.
  const safe = (b: { value: number; exclusive: boolean } | undefined) =>
    b === undefined || Math.abs(b.value) >= Number.MAX_SAFE_INTEGER ? undefined : b;
  const min = safe(bound(node, "minimum", "exclusiveMinimum"));
  const max = safe(bound(node, "maximum", "exclusiveMaximum"));
  if (min !== undefined && max !== undefined && !min.exclusive && !max.exclusive) {
    return ` from ${min.value} to ${max.value}`;
  }
  const parts: string[] = [];
  if (min !== undefined) parts.push(`${min.exclusive ? ">" : ">="} ${min.value}`);
  if (max !== undefined) parts.push(`${max.exclusive ? "<" : "<="} ${max.value}`);
  return parts.length === 0 ? "" : ` ${parts.join(" and ")}`;
}

/** A numeric bound of a node (JSON Schema draft 6+ or draft 4 exclusive flags). */
export function bound(
  node: SchemaNode,
  key: "minimum" | "maximum",
  exclusiveKey: "exclusiveMinimum" | "exclusiveMaximum",
): { readonly value: number; readonly exclusive: boolean } | undefined {
  const exclusive = node[exclusiveKey];
  if (typeof exclusive === "number") return { value: exclusive, exclusive: true };
  const value = node[key];
  if (typeof value !== "number") return undefined;
  return { value, exclusive: exclusive === true };
}

function lengthText(node: SchemaNode, min: string, max: string, unit: string): string {
  const lo = typeof node[min] === "number" ? node[min] as number : undefined;
  const hi = typeof node[max] === "number" ? node[max] as number : undefined;
  if (lo !== undefined && hi !== undefined) {
    return lo === hi ? ` of exactly ${lo} ${unit}` : ` of ${lo} to ${hi} ${unit}`;
  }
  if (lo !== undefined) return ` of at least ${lo} ${unit}`;
  return hi === undefined ? "" : ` of at most ${hi} ${unit}`;
}

/**
 * What a node accepts, in a short phrase: `integer from 1 to 100`, `one of "a", "b"`,
 * `"lit"`, `array of string`, `object with "method", "address"`, `one of 2 shapes: …`.
 */
export function describeExpected(
  node: SchemaNode | undefined,
  root: SchemaNode,
  depth = 0,
): string {
  node = resolveRef(node, root);
  if (node === undefined) return "a value matching the tool's schema";
  if ("const" in node) return jsonText(node.const);
  if (Array.isArray(node.enum)) return `one of ${listValues(node.enum)}`;
  const branches = branchesOf(node);
  if (branches !== undefined) {
    if (depth > 1) return `one of ${branches.length} shapes`;
    const shown = branches.slice(0, 4).map((b) => describeBranch(b, root, depth + 1));
    const more = branches.length > 4 ? ` | … (${branches.length} in all)` : "";
    return `one of ${branches.length} shapes: ${shown.join(" | ")}${more}`;
  }
  const types = typesOf(node);
  if (types.length === 0 || types.includes("json")) return "any JSON value";
  return types.map((type) => describeType(type, node, root, depth)).join(" or ");
}

function describeType(type: string, node: SchemaNode, root: SchemaNode, depth: number): string {
  switch (type) {
    case "integer":
    case "number":
      return `${type}${rangeText(node)}`;
    case "string":
      return `string${lengthText(node, "minLength", "maxLength", "characters")}`;
    case "array": {
      const items = isNode(node.items) && depth < 2
        ? ` of ${describeExpected(node.items, root, depth + 1)}`
        : "";
      return `array${items}${lengthText(node, "minItems", "maxItems", "items")}`;
    }
    case "object": {
      const required = declaredKeys(node).filter((key) => isRequired(node, key));
      if (required.length === 0) return "object";
      const shown = required.slice(0, 5).map((key) => jsonText(key)).join(", ");
      return `object with ${shown}${required.length > 5 ? ", …" : ""}`;
    }
    default:
      return type;
  }
}

/** One union branch in a few words: its discriminator (`object with "kind": "a"`) or its type. */
function describeBranch(branch: SchemaNode, root: SchemaNode, depth: number): string {
  branch = resolveRef(branch, root) ?? branch;
  const properties = isNode(branch.properties) ? branch.properties : undefined;
  if (properties !== undefined) {
    for (const key of Object.keys(properties)) {
      const property = properties[key];
      if (isNode(property) && "const" in property) {
        return `object with ${jsonText(key)}: ${jsonText(property.const)}`;
      }
    }
  }
  return describeExpected(branch, root, depth);
}

/** What was received: the kind and a short, safe rendering (never a rounded number). */
export function describeReceived(value: unknown, present = true): string {
  if (!present) return "nothing (the key is missing)";
  switch (typeof value) {
    case "string": {
      if (value.length <= MAX_STRING) return `string ${jsonText(value)}`;
      return `string ${
        jsonText(value.slice(0, MAX_STRING - 8)).slice(0, -1)
      }…" (${value.length} characters)`;
    }
    case "number":
      // String() of a double is its shortest exact decimal: never a rounded rendering.
      return `number ${String(value)}`;
    case "boolean":
      return `boolean ${value}`;
    case "undefined":
      return "undefined";
    case "object":
      break;
    default:
      return typeof value;
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return `array of ${value.length} item${value.length === 1 ? "" : "s"}`;
  const keys = Object.keys(value);
  if (keys.length === 0) return "object {}";
  const shown = keys.slice(0, 3).map((key) => jsonText(key.slice(0, 30))).join(", ");
  return `object with ${shown}${keys.length > 3 ? `, … (${keys.length} keys)` : ""}`;
}

/** The JSON kind of a value: `string`, `number`, `integer`, `boolean`, `null`, `array`, `object`. */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Edit distance (Levenshtein), capped for long strings. */
export function editDistance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Math.max(a.length, b.length);
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The candidate closest to `text` (case-insensitive first), when one is close enough. */
export function closest(
  text: string,
  candidates: readonly string[],
  maxDistance = Infinity,
): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const lower = text.toLowerCase();
  for (const candidate of candidates) {
    const distance = candidate.toLowerCase() === lower
      ? 0
      : editDistance(lower, candidate.toLowerCase()) + 0.5;
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= maxDistance + 0.5 ? best : undefined;
}

/** Re-exported for the fix builder. */
export type { JsonValue };
