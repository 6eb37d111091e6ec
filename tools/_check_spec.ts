/**
 * The definition-time author checks behind `checkParameters()`: one walk over the spec tree that
 * rejects the first mistake and builds a detached, deep-frozen copy. Private to `schema.ts`.
 *
 * @module
 */
import { describeValue, errorMessage } from "../core/error_message.ts";
import { JsonSnapshotError, snapshotJson } from "../core/json.ts";
import { isPlainArray, isPlainObject } from "./_lossless.ts";
import { SchemaSpecError } from "./schema_spec_error.ts";

/** State of one walk: the specs on the current path (cycle check) and the nesting limit. */
interface Walk {
  readonly ancestors: Set<object>;
  readonly maxDepth: number;
}

/**
 * Checks a parameters map (or an object spec's `properties`) and returns its frozen copy.
 *
 * @throws {SchemaSpecError} On the first author mistake.
 */
export function checkSpecRecord(
  record: unknown,
  path: string,
  maxDepth: number,
): Record<string, unknown> {
  return checkRecord(record, path, { ancestors: new Set(), maxDepth }, 0);
}

const SCALAR_TYPES = ["string", "number", "integer", "boolean", "null"] as const;
const TYPES = [...SCALAR_TYPES, "array", "object", "json"] as const;
const ANNOTATIONS = ["description", "title", "default", "examples"];
const KEYS_BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  string: ["type", "enum", "const"],
  number: ["type", "enum", "const"],
  integer: ["type", "enum", "const"],
  boolean: ["type", "enum", "const"],
  null: ["type", "enum", "const"],
  array: ["type", "items"],
  object: ["type", "properties", "additionalProperties"],
  json: ["type"],
};

function fail(path: string, message: string): never {
  throw new SchemaSpecError(path, `${path} ${message}`);
}

function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function checkRecord(
  record: unknown,
  path: string,
  walk: Walk,
  depth: number,
): Record<string, unknown> {
  if (typeof record !== "object" || record === null || !isPlainObject(record)) {
    fail(path, `must be a plain object mapping names to specs: received ${describeValue(record)}`);
  }
  const copy: Record<string, unknown> = {};
  for (const name of Object.keys(record)) {
    const spec = (record as Record<string, unknown>)[name];
    defineOwn(copy, name, checkNode(spec, `${path}.${name}`, walk, depth, true));
  }
  return Object.freeze(copy);
}

function checkNode(
  node: unknown,
  path: string,
  walk: Walk,
  depth: number,
  isProperty: boolean,
): Readonly<Record<string, unknown>> {
  if (typeof node !== "object" || node === null || !isPlainObject(node)) {
    fail(path, `must be a spec object such as { type: "string" }: received ${describeValue(node)}`);
  }
  if (walk.ancestors.has(node)) fail(path, "is circular: it refers to an enclosing spec");
  if (depth >= walk.maxDepth) {
    fail(path, `nests deeper than ${walk.maxDepth} levels: use { type: "json" } for deep values`);
  }
  const spec = node as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  walk.ancestors.add(node);
  const allowed = "oneOf" in spec
    ? checkOneOf(spec, path, walk, depth, copy)
    : checkTyped(spec, path, walk, depth, copy);
  checkOtherKeys(spec, allowed, path, isProperty, copy);
  walk.ancestors.delete(node);
  return Object.freeze(copy);
}

/** Checks a `oneOf` spec into `copy`; returns the keys its kind allows. */
function checkOneOf(
  spec: Record<string, unknown>,
  path: string,
  walk: Walk,
  depth: number,
  copy: Record<string, unknown>,
): readonly string[] {
  if ("type" in spec) fail(`${path}.type`, "cannot sit beside oneOf: move it into the branches");
  const branches = spec.oneOf;
  if (!isPlainArray(branches) || branches.length < 2) {
    fail(
      `${path}.oneOf`,
      `must be an array of at least 2 specs: received ${describeValue(branches)}`,
    );
  }
  copy.oneOf = Object.freeze(
    Array.from(
      branches,
      (branch, i) => checkNode(branch, `${path}.oneOf[${i}]`, walk, depth + 1, false),
    ),
  );
  return ["oneOf"];
}

/** Checks a spec with a `type` into `copy`; returns the keys its type allows. */
function checkTyped(
  spec: Record<string, unknown>,
  path: string,
  walk: Walk,
  depth: number,
  copy: Record<string, unknown>,
): readonly string[] {
  const type = spec.type;
  if (!("type" in spec)) {
    fail(path, `must have a "type" or a "oneOf": received ${describeValue(spec)}`);
  }
  if (typeof type !== "string" || !(TYPES as readonly string[]).includes(type)) {
    fail(
      `${path}.type`,
      `must be one of ${describeValue(TYPES)}: received ${describeValue(type)}`,
    );
  }
  copy.type = type;
  if ((SCALAR_TYPES as readonly string[]).includes(type)) checkScalar(spec, type, path, copy);
  if (type === "array" && "items" in spec) {
    copy.items = checkNode(spec.items, `${path}.items`, walk, depth + 1, false);
  }
  if (type === "object") {
    if ("properties" in spec) {
      copy.properties = checkRecord(spec.properties, `${path}.properties`, walk, depth + 1);
    }
    if ("additionalProperties" in spec) {
      if (typeof spec.additionalProperties !== "boolean") {
        fail(
          `${path}.additionalProperties`,
          `must be a boolean: received ${describeValue(spec.additionalProperties)}`,
        );
      }
      copy.additionalProperties = spec.additionalProperties;
    }
  }
  return KEYS_BY_TYPE[type]!;
}

/** Checks the keys beyond the kind's own: `required` (on properties) and annotations. */
function checkOtherKeys(
  spec: Record<string, unknown>,
  allowed: readonly string[],
  path: string,
  isProperty: boolean,
  copy: Record<string, unknown>,
): void {
  for (const key of Object.keys(spec)) {
    if (allowed.includes(key)) continue;
    if (key === "required") {
      if (!isProperty) {
        fail(`${path}.required`, "is only allowed on a parameter or an object property");
      }
      if (spec.required !== true) {
        fail(`${path}.required`, `must be true: received ${describeValue(spec.required)}`);
      }
      copy.required = true;
    } else if (ANNOTATIONS.includes(key)) {
      copy[key] = checkAnnotation(spec[key], `${path}.${key}`, key);
    } else {
      fail(`${path}.${key}`, "is not supported by the value schema DSL");
    }
  }
}

function checkScalar(
  spec: Record<string, unknown>,
  type: string,
  path: string,
  copy: Record<string, unknown>,
): void {
  if ("enum" in spec) {
    const members = spec.enum;
    if (!isPlainArray(members) || members.length === 0) {
      fail(`${path}.enum`, `must be a non-empty array: received ${describeValue(members)}`);
    }
    for (let i = 0; i < members.length; i++) {
      checkScalarValue(members[i], type, `${path}.enum[${i}]`);
    }
    copy.enum = Object.freeze([...members]);
  }
  if ("const" in spec) {
    checkScalarValue(spec.const, type, `${path}.const`);
    const members = copy.enum as readonly unknown[] | undefined;
    if (members !== undefined && !members.includes(spec.const)) {
      fail(
        `${path}.const`,
        `must be a member of enum ${describeValue(members)}: received ${describeValue(spec.const)}`,
      );
    }
    copy.const = spec.const;
  }
}

function checkScalarValue(value: unknown, type: string, path: string): void {
  const ok = type === "null"
    ? value === null
    : type === "integer"
    ? Number.isInteger(value) && !Object.is(value, -0)
    : type === "number"
    ? Number.isFinite(value) && !Object.is(value, -0)
    : type === "string"
    ? typeof value === "string"
    : typeof value === "boolean";
  if (!ok) {
    const expected = type === "integer"
      ? "an integer"
      : type === "number"
      ? "a finite number"
      : type === "null"
      ? "null"
      : `a ${type}`;
    fail(path, `must be ${expected}: received ${describeValue(value)}`);
  }
}

function checkAnnotation(value: unknown, path: string, key: string): unknown {
  if ((key === "description" || key === "title") && typeof value !== "string") {
    fail(path, `must be a string: received ${describeValue(value)}`);
  }
  if (key === "examples" && !isPlainArray(value)) {
    fail(path, `must be an array of JSON values: received ${describeValue(value)}`);
  }
  try {
    return snapshotJson(value);
  } catch (error) {
    // A throwing getter propagates as it is; its message is the reason.
    const reason = error instanceof JsonSnapshotError
      ? `${error.path === "" ? "" : `at "${error.path}": `}${error.reason}`
      : errorMessage(error);
    return fail(path, `must be lossless JSON: ${reason}`);
  }
}
