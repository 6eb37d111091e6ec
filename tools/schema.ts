/**
 * The schema DSL: value specs, parameter maps and the definition-time author checks.
 *
 * @module
 */
import type { JsonValue } from "../core/json.ts";
import { checkSpecRecord } from "./_check_spec.ts";

export { SchemaSpecError } from "./schema_spec_error.ts";

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
  return checkSpecRecord(parameters, "parameters", MAX_SPEC_DEPTH) as P;
}
