/**
 * JSON Schema → TypeScript type text for the Code Mode SDK. Private to `codemode/`.
 *
 * Supported: `type` (a name or a list), `properties`, `required`, `additionalProperties`, `items`
 * (one schema), `enum`/`const` of primitives, `oneOf`/`anyOf` (only annotations beside them),
 * boolean schemas, plus annotations and narrowing keywords that do not change the shape. Anything
 * else (`$ref`, `allOf`, `patternProperties`, tuple `items`, malformed values, cycles, very deep or
 * very large schemas) renders as `unknown`. Never throws.
 *
 * @module
 */

const IDENTIFIER_REGEXP = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_DEPTH = 16;
const MAX_NODES = 4000;

/** Keys that may sit on any node without changing its rendered shape. */
const ANNOTATIONS = new Set([
  "description",
  "title",
  "default",
  "examples",
  "$schema",
  "$id",
  "$comment",
  "$defs",
  "definitions",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentMediaType",
  "contentEncoding",
]);
const SHAPE_KEYS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "oneOf",
  "anyOf",
]);
/** Narrowing keywords shown in JSDoc, in this order. */
const DOC_TAGS = [
  "default",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
];

/** Rendered type text; `compound` when it needs parentheses inside `T[]`. */
export interface TypeText {
  readonly text: string;
  readonly compound: boolean;
}

const UNKNOWN: TypeText = { text: "unknown", compound: false };

/** Rendering state of one tool: a node budget and the ancestors (cycle guard). */
export interface RenderState {
  nodes: number;
  readonly ancestors: Set<object>;
}

/** Creates a fresh rendering state. */
export function renderState(): RenderState {
  return { nodes: 0, ancestors: new Set() };
}

/** A property key as it may appear in a type literal: bare when an identifier, else quoted. */
export function propertyKey(name: string): string {
  return IDENTIFIER_REGEXP.test(name) ? name : JSON.stringify(name);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function literal(value: unknown): string | undefined {
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number" && Number.isFinite(value)) {
    return Object.is(value, -0) ? "0" : String(value);
  }
  return undefined;
}

function union(parts: readonly string[]): TypeText {
  const unique = [...new Set(parts)];
  return { text: unique.join(" | "), compound: unique.length > 1 };
}

/** JSDoc lines of a schema node: description, then narrowing keywords as tags. */
export function docLines(schema: unknown): string[] {
  if (!isPlainObject(schema)) return [];
  const lines: string[] = [];
  if (typeof schema.description === "string" && schema.description.trim() !== "") {
    lines.push(...schema.description.replace(/\r\n?/g, "\n").trim().split("\n"));
  }
  for (const branchKey of ["oneOf", "anyOf"]) {
    const branches = schema[branchKey];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (!isPlainObject(branch) || typeof branch.description !== "string") continue;
      const lit = literal(branch.const);
      if (lit !== undefined) {
        lines.push(`- ${lit}: ${branch.description.replace(/\s+/g, " ").trim()}`);
      }
    }
  }
  for (const tag of DOC_TAGS) {
    if (!(tag in schema)) continue;
    let text: string | undefined;
    try {
      text = JSON.stringify(schema[tag]);
    } catch { /* not JSON: leave the tag out */ }
    if (text === undefined) continue;
    if (tag === "format" || tag === "pattern") text = String(schema[tag]);
    lines.push(`@${tag} ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`);
  }
  return lines;
}

/** Renders JSDoc lines as a comment block at `indent` (empty string when there are none). */
export function jsdoc(lines: readonly string[], indent: string): string {
  if (lines.length === 0) return "";
  const safe = lines.map((line) => line.replaceAll("*/", "*\\/").trimEnd());
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  return `${indent}/**\n${
    safe.map((l) => l === "" ? `${indent} *` : `${indent} * ${l}`).join("\n")
  }\n${indent} */\n`;
}

/**
 * Renders one schema node as TypeScript type text at the given indentation.
 * Degrades to `unknown` on anything unsupported; never throws.
 */
export function renderSchema(
  schema: unknown,
  indent: string,
  state: RenderState,
  depth = 0,
): TypeText {
  try {
    return renderNode(schema, indent, state, depth);
  } catch {
    return UNKNOWN;
  }
}

function renderNode(schema: unknown, indent: string, state: RenderState, depth: number): TypeText {
  if (schema === true) return { text: "JsonValue", compound: false };
  if (schema === false) return { text: "never", compound: false };
  if (!isPlainObject(schema) || depth > MAX_DEPTH || ++state.nodes > MAX_NODES) return UNKNOWN;
  if (state.ancestors.has(schema)) return UNKNOWN;
  const keys = Object.keys(schema);
  if (keys.some((key) => !ANNOTATIONS.has(key) && !SHAPE_KEYS.has(key))) return UNKNOWN;
  state.ancestors.add(schema);
  try {
    return renderShape(schema, keys, indent, state, depth);
  } finally {
    state.ancestors.delete(schema);
  }
}

function renderShape(
  schema: Record<string, unknown>,
  keys: readonly string[],
  indent: string,
  state: RenderState,
  depth: number,
): TypeText {
  if ("const" in schema) {
    const lit = literal(schema.const);
    return lit === undefined ? UNKNOWN : { text: lit, compound: false };
  }
  if ("enum" in schema) {
    const members = schema.enum;
    if (!Array.isArray(members) || members.length === 0) return UNKNOWN;
    const parts = members.map(literal);
    if (parts.some((part) => part === undefined)) return UNKNOWN;
    return union(parts as string[]);
  }
  const branchKeys = keys.filter((key) => key === "oneOf" || key === "anyOf");
  if (branchKeys.length > 0) {
    if (branchKeys.length > 1 || keys.some((key) => SHAPE_KEYS.has(key) && key !== branchKeys[0])) {
      return UNKNOWN;
    }
    const branches = schema[branchKeys[0]!];
    if (!Array.isArray(branches) || branches.length === 0) return UNKNOWN;
    const parts = branches.map((branch) => renderNode(branch, indent, state, depth + 1));
    if (parts.some((part) => part.text === "unknown")) return UNKNOWN;
    return union(
      parts.map((part) => part.compound && part.text.includes("&") ? `(${part.text})` : part.text),
    );
  }
  const type = schema.type;
  if (type === undefined) {
    if ("properties" in schema || "additionalProperties" in schema || "required" in schema) {
      return renderObject(schema, indent, state, depth);
    }
    if ("items" in schema) return renderArray(schema, indent, state, depth);
    return { text: "JsonValue", compound: false };
  }
  if (typeof type === "string") return renderType(type, schema, indent, state, depth);
  if (Array.isArray(type) && type.length > 0 && type.every((t) => typeof t === "string")) {
    const parts = type.map((t: string) => renderType(t, schema, indent, state, depth));
    if (parts.some((part) => part.text === "unknown")) return UNKNOWN;
    return union(parts.map((part) => part.compound ? `(${part.text})` : part.text));
  }
  return UNKNOWN;
}

function renderType(
  type: string,
  schema: Record<string, unknown>,
  indent: string,
  state: RenderState,
  depth: number,
): TypeText {
  switch (type) {
    case "string":
    case "boolean":
    case "null":
      return { text: type, compound: false };
    case "number":
    case "integer":
      return { text: "number", compound: false };
    case "array":
      return renderArray(schema, indent, state, depth);
    case "object":
      return renderObject(schema, indent, state, depth);
    default:
      return UNKNOWN;
  }
}

function renderArray(
  schema: Record<string, unknown>,
  indent: string,
  state: RenderState,
  depth: number,
): TypeText {
  if (!("items" in schema)) return { text: "JsonValue[]", compound: false };
  if (Array.isArray(schema.items)) return UNKNOWN;
  const item = renderNode(schema.items, indent, state, depth + 1);
  if (item.text === "unknown") return { text: "unknown[]", compound: false };
  return { text: item.compound ? `(${item.text})[]` : `${item.text}[]`, compound: false };
}

function renderObject(
  schema: Record<string, unknown>,
  indent: string,
  state: RenderState,
  depth: number,
): TypeText {
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  const additional = schema.additionalProperties ?? true;
  if (!isPlainObject(properties)) return UNKNOWN;
  if (!Array.isArray(required) || required.some((name) => typeof name !== "string")) return UNKNOWN;
  if (typeof additional !== "boolean" && !isPlainObject(additional)) return UNKNOWN;
  const names = Object.keys(properties);
  let rest: string | undefined;
  if (additional === true) rest = "JsonValue";
  else if (additional !== false) {
    const value = renderNode(additional, indent, state, depth + 1);
    rest = names.length === 0 ? value.text : "JsonValue";
  }
  if (names.length === 0) return { text: `Record<string, ${rest ?? "never"}>`, compound: false };
  const inner = indent + "  ";
  const requiredSet = new Set(required as string[]);
  let body = "{\n";
  for (const name of names) {
    const property = properties[name];
    body += jsdoc(docLines(property), inner);
    const optional = requiredSet.has(name) ? "" : "?";
    body += `${inner}${propertyKey(name)}${optional}: ${
      renderNode(property, inner, state, depth + 1).text
    };\n`;
  }
  body += `${indent}}`;
  if (rest === undefined) return { text: body, compound: false };
  return { text: `${body} & Record<string, ${rest}>`, compound: true };
}

/** Whether an arguments schema has no required property (so `args` may be omitted). */
export function argsOptional(schema: unknown): boolean {
  try {
    if (!isPlainObject(schema)) return false;
    const required = schema.required;
    return required === undefined || (Array.isArray(required) && required.length === 0);
  } catch {
    return false;
  }
}
