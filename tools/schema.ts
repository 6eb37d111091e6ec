/**
 * The schema DSL: value specs, parameter maps and the definition-time author checks.
 *
 * @module
 */
import { describeValue, errorMessage } from "../core/error_message.ts";
import { type JsonValue, snapshotJson } from "../core/json.ts";
import { HarnessError } from "../core/errors.ts";
import { isPlainArray, isPlainObject } from "./_lossless.ts";

/** Annotations every spec node may carry. They are emitted for the model and never applied. */
export interface SpecAnnotations {
  /** What the value means; the model reads it. */
  readonly description?: string;
  /** A short title. */
  readonly title?: string;
  /** A documented default. Never applied: an omitted argument stays omitted. */
  readonly default?: JsonValue;
  /** Example values. */
  readonly examples?: readonly JsonValue[];
}

/** Annotations plus the ban on `oneOf` beside `type`. */
export interface TypedSpecBase extends SpecAnnotations {
  /** Not allowed beside `type`: put the type into each branch. */
  readonly oneOf?: never;
}

/** A string, optionally restricted by `enum` and/or `const`. */
export interface StringSpec extends TypedSpecBase {
  /** Discriminant. */
  readonly type: "string";
  /** Accepted values (non-empty). */
  readonly enum?: readonly string[];
  /** The only accepted value (a member of `enum` when both are given). */
  readonly const?: string;
}

/** A finite JSON number (NaN, ±Infinity and -0 are rejected). */
export interface NumberSpec extends TypedSpecBase {
  /** Discriminant. */
  readonly type: "number";
  /** Accepted values (non-empty). */
  readonly enum?: readonly number[];
  /** The only accepted value. */
  readonly const?: number;
}

/** A finite JSON number without a fractional part. */
export interface IntegerSpec extends TypedSpecBase {
  /** Discriminant. */
  readonly type: "integer";
  /** Accepted values (non-empty, integers). */
  readonly enum?: readonly number[];
  /** The only accepted value (an integer). */
  readonly const?: number;
}

/** A boolean. */
export interface BooleanSpec extends TypedSpecBase {
  /** Discriminant. */
  readonly type: "boolean";
  /** Accepted values (non-empty). */
  readonly enum?: readonly boolean[];
  /** The only accepted value. */
  readonly const?: boolean;
}

/** JSON `null`. */
export interface NullSpec extends TypedSpecBase {
  /** Discriminant. */
  readonly type: "null";
  /** Accepted values (`[null]`). */
  readonly enum?: readonly null[];
  /** The only accepted value. */
  readonly const?: null;
}

/** An array; without `items` any lossless JSON item passes. */
export interface ArraySpec extends TypedSpecBase {
  /** Discriminant. */
  readonly type: "array";
  /** The spec every item must match. */
  readonly items?: SchemaSpec;
}

/**
 * An object. Closed unless `additionalProperties: true`: undeclared keys are violations.
 * Without `properties`, a closed object accepts only `{}` and an open one any JSON object.
 */
export interface ObjectSpec extends TypedSpecBase {
  /** Discriminant. */
  readonly type: "object";
  /** Declared properties, optional unless `required: true`. */
  readonly properties?: ParametersSpec;
  /** `true` accepts undeclared keys holding any lossless JSON. @default {false} */
  readonly additionalProperties?: boolean;
}

/** Any lossless JSON value (emitted as an annotation-only schema). */
export interface JsonSpec extends TypedSpecBase {
  /** Discriminant. */
  readonly type: "json";
}

/** Exactly one of at least two branches must match. Only annotations may sit beside `oneOf`. */
export interface OneOfSpec extends SpecAnnotations {
  /** The branches. */
  readonly oneOf: readonly SchemaSpec[];
  /** Not allowed beside `oneOf`. */
  readonly type?: never;
}

/** A value spec: one node of the DSL. */
export type SchemaSpec =
  | StringSpec
  | NumberSpec
  | IntegerSpec
  | BooleanSpec
  | NullSpec
  | ArraySpec
  | ObjectSpec
  | JsonSpec
  | OneOfSpec;

/** A parameter or object property: a value spec, optional unless `required: true`. */
export type ParameterSpec = SchemaSpec & {
  /** Marks the key as required; `true` is the only legal value. */
  readonly required?: true;
};

/**
 * A parameters map `name -> spec`: the implicit, open root object of a tool's arguments
 * (and the shape of an object spec's `properties`).
 *
 * @example Usage
 * ```ts
 * import type { ParametersSpec } from "./schema.ts";
 * const parameters = {
 *   path: { type: "string", required: true, description: "Absolute path" },
 *   limit: { type: "number" },
 * } as const satisfies ParametersSpec;
 * ```
 */
export interface ParametersSpec {
  /** One parameter. */
  readonly [name: string]: ParameterSpec;
}

/**
 * A DSL author mistake found at definition time (code `UNSUPPORTED_SCHEMA`), with the
 * path of the offending spec node, such as `parameters.opts.properties.mode.enum[1]`.
 *
 * @example Usage
 * ```ts
 * import { checkParameters, SchemaSpecError } from "./schema.ts";
 * import { throws } from "node:assert/strict";
 * throws(() => checkParameters({ a: { type: "string", minLength: 1 } as never }), SchemaSpecError);
 * ```
 */
export class SchemaSpecError extends HarnessError {
  /** The path of the offending spec node. */
  readonly path: string;

  /**
   * Creates the error.
   *
   * @param path The path of the offending spec node.
   * @param message The message, starting with the path.
   */
  constructor(path: string, message: string) {
    super("UNSUPPORTED_SCHEMA", message);
    this.name = "SchemaSpecError";
    this.path = path;
  }
}

/**
 * Deepest spec nesting accepted (ajv compiles schemas recursively); deeper values use `json`.
 *
 * @example Usage
 * ```ts
 * import { checkParameters, MAX_SPEC_DEPTH } from "./schema.ts";
 * import { throws } from "node:assert/strict";
 * let spec: object = { type: "string" };
 * for (let i = 0; i <= MAX_SPEC_DEPTH; i++) spec = { type: "array", items: spec };
 * throws(() => checkParameters({ deep: spec as never }), /nests deeper than 64 levels/);
 * ```
 */
export const MAX_SPEC_DEPTH = 64;

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

/**
 * Checks a parameters map for author mistakes and returns a detached, deep-frozen copy.
 *
 * Rejected: unsupported keywords or types, `type` beside `oneOf`, fewer than two `oneOf`
 * branches, empty or wrong-typed `enum`, wrong-typed `const` or one outside `enum`, non-JSON
 * annotations, `required` other than `true` or outside a property, circular specs, nesting
 * deeper than {@linkcode MAX_SPEC_DEPTH}, and records that are not plain objects.
 *
 * @typeParam P The parameters map.
 * @param parameters The parameters map.
 * @returns A deep-frozen copy with the same shape.
 * @throws {SchemaSpecError} On the first author mistake, with a path-qualified message.
 *
 * @example Usage
 * ```ts
 * import { checkParameters } from "./schema.ts";
 * import { throws } from "node:assert/strict";
 * checkParameters({ mode: { type: "string", enum: ["a", "b"], const: "a" } });
 * throws(() => checkParameters({ mode: { type: "string", enum: ["a", 1] as never } }), {
 *   message: "parameters.mode.enum[1] must be a string: received 1",
 * });
 * ```
 */
export function checkParameters<P extends ParametersSpec>(parameters: P): P {
  return checkRecord(parameters, "parameters", new Set(), 0) as P;
}

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
  ancestors: Set<object>,
  depth: number,
): Record<string, unknown> {
  if (typeof record !== "object" || record === null || !isPlainObject(record)) {
    fail(path, `must be a plain object mapping names to specs: received ${describeValue(record)}`);
  }
  const copy: Record<string, unknown> = {};
  for (const name of Object.keys(record)) {
    const spec = (record as Record<string, unknown>)[name];
    defineOwn(copy, name, checkNode(spec, `${path}.${name}`, ancestors, depth, true));
  }
  return Object.freeze(copy);
}

function checkNode(
  node: unknown,
  path: string,
  ancestors: Set<object>,
  depth: number,
  isProperty: boolean,
): Readonly<Record<string, unknown>> {
  if (typeof node !== "object" || node === null || !isPlainObject(node)) {
    fail(path, `must be a spec object such as { type: "string" }: received ${describeValue(node)}`);
  }
  if (ancestors.has(node)) fail(path, "is circular: it refers to an enclosing spec");
  if (depth >= MAX_SPEC_DEPTH) {
    fail(path, `nests deeper than ${MAX_SPEC_DEPTH} levels: use { type: "json" } for deep values`);
  }
  const spec = node as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  ancestors.add(node);
  let allowed: readonly string[];
  if ("oneOf" in spec) {
    if ("type" in spec) fail(`${path}.type`, "cannot sit beside oneOf: move it into the branches");
    allowed = ["oneOf"];
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
        (branch, i) => checkNode(branch, `${path}.oneOf[${i}]`, ancestors, depth + 1, false),
      ),
    );
  } else {
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
    allowed = KEYS_BY_TYPE[type]!;
    copy.type = type;
    if ((SCALAR_TYPES as readonly string[]).includes(type)) checkScalar(spec, type, path, copy);
    if (type === "array" && "items" in spec) {
      copy.items = checkNode(spec.items, `${path}.items`, ancestors, depth + 1, false);
    }
    if (type === "object") {
      if ("properties" in spec) {
        copy.properties = checkRecord(spec.properties, `${path}.properties`, ancestors, depth + 1);
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
  }
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
  ancestors.delete(node);
  return Object.freeze(copy);
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
    const reason = errorMessage(error).replace(
      /^Cannot snapshot (?:the value|"(.*)") as lossless JSON: /,
      (_match, at: string | undefined) => at === undefined ? "" : `at "${at}": `,
    );
    return fail(path, `must be lossless JSON: ${reason}`);
  }
}
