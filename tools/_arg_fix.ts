/**
 * Private: the `fix` part of an argument error: a corrected value when one follows from the
 * received value (`"5"` for an integer: `send 5`; an enum typo: the closest member; out of range:
 * the nearest bound), else the expected shape with a valid example.
 *
 * @module
 */
import {
  bound,
  branchesOf,
  closest,
  declaredKeys,
  describeExpected,
  isRequired,
  jsonText,
  type JsonValue,
  listValues,
  resolveRef,
  type SchemaNode,
  typesOf,
} from "./_arg_describe.ts";

/** Longest example value spelled out in a fix. */
const MAX_EXAMPLE = 150;
const NUMERIC_REGEXP = /^\s*-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?\s*$/;
/** A number with a unit (`640px`, `5s`): the number is the likely intent. */
const WITH_UNIT_REGEXP = /^\s*(-?\d+(?:\.\d+)?)\s*[a-zA-Z%]{1,5}\s*$/;

/** The phrase for a string that holds the JSON the schema wants. */
export const SEND_PARSED = "send the JSON value the string holds, not a string";

/** A valid example value of a node (default, const, first enum member, or a typed template). */
export function exampleValue(node: SchemaNode | undefined, root: SchemaNode, depth = 0): JsonValue {
  node = resolveRef(node, root);
  if (node === undefined || depth > 8) return null;
  if ("const" in node) return node.const as JsonValue;
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0] as JsonValue;
  if ("default" in node && node.default !== undefined) return node.default as JsonValue;
  if (Array.isArray(node.examples) && node.examples.length > 0) {
    return node.examples[0] as JsonValue;
  }
  const branches = branchesOf(node);
  if (branches !== undefined) return exampleValue(branches[0], root, depth + 1);
  const types = typesOf(node);
  const type = types.find((t) => t !== "null") ?? types[0];
  switch (type) {
    case "string": {
      const min = typeof node.minLength === "number" ? node.minLength : 0;
      return min > 4 ? "x".repeat(min) : "text";
    }
    case "integer":
    case "number":
      return clamp(1, node, type === "integer");
    case "boolean":
      return false;
    case "null":
      return null;
    case "array": {
      const min = typeof node.minItems === "number" ? Math.min(node.minItems, 3) : 0;
      return Array.from(
        { length: min },
        () => exampleValue(node.items as SchemaNode, root, depth + 1),
      );
    }
    case "object": {
      const out: Record<string, JsonValue> = {};
      for (const key of declaredKeys(node)) {
        if (isRequired(node, key)) {
          out[key] = exampleValue(
            (node.properties as Record<string, SchemaNode>)[key],
            root,
            depth + 1,
          );
        }
      }
      return out;
    }
    default:
      return null;
  }
}

/** `value` moved into the node's numeric range (and rounded for an integer). */
export function clamp(value: number, node: SchemaNode, integer: boolean): number {
  let out = integer ? Math.round(value) : value;
  const min = bound(node, "minimum", "exclusiveMinimum");
  const max = bound(node, "maximum", "exclusiveMaximum");
  if (min !== undefined && (out < min.value || (min.exclusive && out === min.value))) {
    out = min.exclusive ? (integer ? Math.floor(min.value) + 1 : min.value + 1) : min.value;
    if (integer) out = Math.ceil(out);
  }
  if (max !== undefined && (out > max.value || (max.exclusive && out === max.value))) {
    out = max.exclusive ? (integer ? Math.ceil(max.value) - 1 : max.value - 1) : max.value;
    if (integer) out = Math.floor(out);
  }
  return out;
}

/** The received value corrected for the node, when the correction is clear. */
export function coerce(value: unknown, node: SchemaNode | undefined, root: SchemaNode): unknown {
  node = resolveRef(node, root);
  if (node === undefined) return undefined;
  if ("const" in node) return node.const;
  if (Array.isArray(node.enum)) return closestMember(value, node.enum);
  const branches = branchesOf(node);
  if (branches !== undefined) {
    for (const branch of branches) {
      const fixed = coerce(value, branch, root);
      if (fixed !== undefined) return fixed;
    }
    return undefined;
  }
  for (const type of typesOf(node)) {
    const fixed = coerceType(value, type, node, root);
    if (fixed !== undefined) return fixed;
  }
  return undefined;
}

function closestMember(value: unknown, members: readonly unknown[]): unknown {
  if (typeof value === "string") {
    const strings = members.filter((m): m is string => typeof m === "string");
    const match = closest(value, strings);
    if (match !== undefined) return match;
    if (NUMERIC_REGEXP.test(value) && members.includes(Number(value))) return Number(value);
  }
  if (typeof value === "number" && members.includes(String(value))) return String(value);
  return members[0];
}

function coerceType(value: unknown, type: string, node: SchemaNode, root: SchemaNode): unknown {
  switch (type) {
    case "integer":
    case "number": {
      const unit = typeof value === "string" ? WITH_UNIT_REGEXP.exec(value) : null;
      const number = typeof value === "string" && NUMERIC_REGEXP.test(value)
        ? Number(value)
        : unit !== null
        ? Number(unit[1])
        : typeof value === "number"
        ? value
        : undefined;
      if (number === undefined || !Number.isFinite(number)) return undefined;
      if (type === "integer" && Math.abs(number) > Number.MAX_SAFE_INTEGER) return undefined;
      return clamp(number, node, type === "integer");
    }
    case "string":
      if (typeof value === "number" || typeof value === "boolean") return String(value);
      if (typeof value === "string") return fitLength(value, node);
      return undefined;
    case "boolean":
      if (value === 1 || value === 0) return value === 1;
      if (typeof value === "string" && /^(true|false)$/i.test(value.trim())) {
        return value.trim().toLowerCase() === "true";
      }
      return undefined;
    case "null":
      return null;
    case "array":
      if (typeof value === "string") return parsedJson(value, true);
      if (Array.isArray(value) && typeof node.maxItems === "number") {
        return value.slice(0, node.maxItems);
      }
      if (!Array.isArray(value) && value !== null && value !== undefined) {
        const item = node.items === undefined
          ? value
          : coerce(value, node.items as SchemaNode, root);
        return item === undefined ? undefined : [item];
      }
      return undefined;
    case "object":
      return typeof value === "string" ? parsedJson(value, false) : undefined;
    default:
      return undefined;
  }
}

function fitLength(value: string, node: SchemaNode): string | undefined {
  const max = typeof node.maxLength === "number" ? node.maxLength : undefined;
  if (max !== undefined && value.length > max && max <= 100) return value.slice(0, max);
  return undefined;
}

/** A marker for "the string holds the JSON wanted": the fix names it instead of echoing it. */
export const PARSED: unique symbol = Symbol("parsed");

function parsedJson(text: string, array: boolean): typeof PARSED | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith(array ? "[" : "{")) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return typeof parsed === "object" && parsed !== null && Array.isArray(parsed) === array
      ? PARSED
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The fix for a value at a node: `send <JSON>` when a correction follows from the value, else
 * `send <expected> such as <example>`.
 */
export function fixFor(
  node: SchemaNode | undefined,
  value: unknown,
  present: boolean,
  root: SchemaNode,
): string {
  const fixed = present ? coerce(value, node, root) : undefined;
  if (fixed === PARSED) return SEND_PARSED;
  if (fixed !== undefined) {
    const text = jsonText(fixed);
    if (text.length <= MAX_EXAMPLE) return `send ${text}`;
  }
  const resolved = resolveRef(node, root);
  const example = jsonText(exampleValue(resolved, root));
  if (resolved !== undefined && ("const" in resolved || Array.isArray(resolved.enum))) {
    return `send ${example}`;
  }
  const expected = describeExpected(resolved, root);
  if (example.length > MAX_EXAMPLE) return `send ${expected}`;
  return `send ${article(expected)} such as ${example}`;
}

function article(expected: string): string {
  if (/^one of \d+ shapes/.test(expected)) return "one of the shapes,";
  if (expected.startsWith("one of") || expected.startsWith("any ")) return "a value";
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/** The fix for `null` sent for an optional key. */
export const OMIT_NULL = "omit the key (leave it out rather than send null)";
/** The fix for arguments sent as a JSON string holding an object. */
export const SEND_OBJECT = "send the object itself, not a JSON string";
/** The detail naming double-encoded arguments. */
export const DOUBLE_ENCODED = "arguments arrived as a JSON string holding an object";

/** Whether a string is the JSON text of an object (double-encoded arguments). */
export function holdsJsonObject(text: string): boolean {
  return parsedJson(text, false) === PARSED;
}

/** For each undeclared key, the absent declared key it most likely misspells. */
export function undeclaredRenames(
  properties: Readonly<Record<string, unknown>>,
  record: Readonly<Record<string, unknown>>,
): Map<string, string> {
  const renames = new Map<string, string>();
  const absent = Object.keys(properties).filter((name) => !Object.hasOwn(record, name));
  if (absent.length === 0) return renames;
  for (const key of Object.keys(record)) {
    if (Object.hasOwn(properties, key)) continue;
    const normalized = key.replace(/[-_\s]/g, "").toLowerCase();
    const target = absent.find((n) => n.replace(/[-_\s]/g, "").toLowerCase() === normalized) ??
      closest(key, absent, Math.min(3, Math.max(1, Math.floor(key.length / 3))));
    if (target !== undefined && ![...renames.values()].includes(target)) renames.set(key, target);
  }
  return renames;
}

/** The violation text parts of an undeclared key: what is declared, and rename-or-omit. */
export function undeclaredParts(
  key: string,
  properties: Readonly<Record<string, unknown>>,
  target: string | undefined,
): { readonly expected: string; readonly fix: string } {
  const names = Object.keys(properties);
  const expected = names.length === 0
    ? "no keys here"
    : `no key ${jsonText(key.slice(0, 40))} (declared: ${listValues(names)})`;
  return { expected, fix: target === undefined ? "omit the key" : renameFix(key, target) };
}

/** The fix that moves a misspelled key's value to the declared key. */
export function renameFix(from: string, to: string): string {
  return `rename ${jsonText(from)} to ${jsonText(to)}`;
}
