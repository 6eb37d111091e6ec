/**
 * Standard Schema support: tool parameters from zod 4, valibot, arktype or any library that
 * implements the Standard Schema spec (`~standard`, version 1), with the model-facing JSON Schema
 * from the Standard JSON Schema converter (`~standard.jsonSchema.input`).
 *
 * The interfaces below are structural copies of the parts of `@standard-schema/spec` 1.1 dsh
 * reads, so `tools/` needs no dependency on the spec package or on any schema library.
 *
 * @module
 */
import { describeValue, errorMessage } from "../core/error_message.ts";
import { type JsonValue, snapshotJson } from "../core/json.ts";
import type { JsonSchema } from "./definition.ts";
import { sortByPath, Violations } from "./_path.ts";
import { addIssue, type LibraryIssue } from "./_standard_issues.ts";
import { formatViolation } from "./arg_error.ts";

/** One path segment of a {@linkcode StandardSchemaIssue}: a key or `{ key }`. */
export type StandardPathSegment = PropertyKey | { readonly key: PropertyKey };

/** One validation issue reported by a Standard Schema. */
export interface StandardSchemaIssue {
  /** The library's message. */
  readonly message: string;
  /** Where the issue is; absent or empty for the root. */
  readonly path?: readonly StandardPathSegment[] | undefined;
}

/**
 * The result of `~standard.validate`: the parsed value, or issues.
 *
 * @typeParam Output The parsed type.
 */
export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly StandardSchemaIssue[] };

/** Options of the Standard JSON Schema converter. */
export interface StandardJsonSchemaOptions {
  /** The JSON Schema dialect, such as `"draft-2020-12"` or `"draft-07"`. */
  readonly target: string;
  /** Library-specific options. */
  readonly libraryOptions?: Record<string, unknown> | undefined;
}

/** The Standard JSON Schema converter (`~standard.jsonSchema`, spec 1.1). */
export interface StandardJsonSchemaConverter {
  /**
   * The JSON Schema of the input type.
   *
   * @param options The target dialect.
   * @returns The JSON Schema.
   */
  readonly input: (options: StandardJsonSchemaOptions) => Record<string, unknown>;
}

/**
 * A Standard Schema (spec version 1), as zod 4, valibot and arktype schemas implement it.
 *
 * @typeParam Input The accepted input type.
 * @typeParam Output The parsed type `execute` receives.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The standard properties. */
  readonly "~standard": {
    /** The spec version (1). */
    readonly version: 1;
    /** The library name, such as `"zod"`. */
    readonly vendor: string;
    /**
     * Validates a value.
     *
     * @param value The value.
     * @returns The parsed value or the issues (possibly asynchronously).
     */
    readonly validate: (
      value: unknown,
    ) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
    /** Type carrier for inference; never set at run time. */
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    /** The Standard JSON Schema converter, when the library implements it. */
    readonly jsonSchema?: StandardJsonSchemaConverter;
  };
}

/**
 * The parsed (output) type of a Standard Schema: what `execute` receives.
 *
 * @typeParam S The schema.
 *
 * @example Usage
 * ```ts
 * import type { InferStandardOutput } from "./standard_schema.ts";
 * import { z } from "zod";
 * const schema = z.object({ path: z.string() });
 * const args: InferStandardOutput<typeof schema> = { path: "/tmp" };
 * ```
 */
export type InferStandardOutput<S extends StandardSchemaV1> = NonNullable<
  S["~standard"]["types"]
>["output"];

/**
 * Whether `value` is a Standard Schema (version 1 with a `validate` function).
 *
 * @param value Anything.
 * @returns `true` for a Standard Schema.
 *
 * @example Usage
 * ```ts
 * import { isStandardSchema } from "./standard_schema.ts";
 * import { z } from "zod";
 * import { equal } from "node:assert/strict";
 * equal(isStandardSchema(z.object({})), true);
 * equal(isStandardSchema({ path: { type: "string" } }), false);
 * ```
 */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const props = (value as { "~standard"?: unknown })["~standard"];
  return typeof props === "object" && props !== null &&
    (props as { version?: unknown }).version === 1 &&
    typeof (props as { validate?: unknown }).validate === "function";
}

const TARGETS = ["draft-2020-12", "draft-07"] as const;

/**
 * The model-facing JSON Schema of a Standard Schema, from its Standard JSON Schema converter
 * (`draft-2020-12`, else `draft-07`), without the top-level `$schema` and deep-frozen.
 *
 * @param schema The schema.
 * @param tool The tool name, for error messages.
 * @returns An object JSON Schema.
 * @throws {TypeError} When the library has no converter, the conversion fails for both targets,
 * or the result is not an object schema of lossless JSON.
 *
 * @example Usage
 * ```ts
 * import { standardJsonSchema } from "./standard_schema.ts";
 * import { z } from "zod";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(standardJsonSchema(z.object({ path: z.string() }), "read"), {
 *   type: "object",
 *   properties: { path: { type: "string" } },
 *   required: ["path"],
 * });
 * ```
 */
export function standardJsonSchema(schema: StandardSchemaV1, tool: string): JsonSchema {
  const where = `Cannot define tool "${tool}"`;
  const props = schema["~standard"];
  const vendor = JSON.stringify(String(props.vendor));
  const converter = props.jsonSchema;
  if (typeof converter?.input !== "function") {
    throw new TypeError(
      `${where}: the ${vendor} schema has no Standard JSON Schema converter ("~standard.jsonSchema"), so dsh cannot tell the model its parameters: upgrade the library to one that implements Standard JSON Schema (zod 4.2 or later), pass the JSON Schema as "jsonSchema", or use the schema DSL`,
    );
  }
  let raw: unknown;
  const failures: string[] = [];
  for (const target of TARGETS) {
    try {
      // A plain JSON copy: zod marks its output with a non-enumerable "~standard" key.
      raw = JSON.parse(JSON.stringify(converter.input({ target })));
      break;
    } catch (error) {
      failures.push(`${target}: ${errorMessage(error).slice(0, 200)}`);
    }
  }
  if (raw === undefined) {
    throw new TypeError(
      `${where}: the ${vendor} schema cannot be converted to JSON Schema (${
        failures.join("; ")
      }): pass the JSON Schema as "jsonSchema" or use the schema DSL`,
    );
  }
  return checkObjectSchema(raw, where);
}

/**
 * Checks an explicit JSON Schema given for a Standard Schema tool and returns it detached and
 * frozen (the top-level `$schema` dropped).
 *
 * @param raw The JSON Schema.
 * @param where The action prefix of error messages.
 * @returns The frozen object schema.
 * @throws {TypeError} When it is not an object schema of lossless JSON.
 */
export function checkObjectSchema(raw: unknown, where: string): JsonSchema {
  let json: JsonValue;
  try {
    json = snapshotJson(raw);
  } catch (error) {
    throw new TypeError(
      `${where}: the parameters JSON Schema must be lossless JSON: ${errorMessage(error)}`,
    );
  }
  if (
    typeof json !== "object" || json === null || Array.isArray(json) ||
    (json as { type?: unknown }).type !== "object"
  ) {
    throw new TypeError(
      `${where}: the parameters JSON Schema must describe an object ({ "type": "object", ... }): current value is ${
        describeValue(json)
      }`,
    );
  }
  const { $schema: _dialect, ...rest } = json as Record<string, JsonValue>;
  return Object.freeze(rest);
}

/**
 * The violations of a Standard Schema's issues, in the schema DSL's shape
 * (`<path>: expected <what>, received <kind and value> (<library>: <its message>); fix: <fix>`),
 * sorted by path. Paths are dotted with `[i]` indices and JSON-quoted (the root prints as
 * `arguments`). With the tool's JSON Schema, what is expected is read off the schema at the path
 * (type, allowed values, range), so a missing key names its type; the library's own message is
 * kept as the detail. zod's unrecognized keys get one line each (with a rename when a declared key
 * is misspelled) and its union issues report the branch the value picks, or why each failed.
 * At most 32 are kept, as for the DSL.
 *
 * @param issues The issues.
 * @param args The validated value (to tell a missing key from a wrong value).
 * @param schema The tool's JSON Schema. @default {undefined}
 * @param vendor The library name shown with its messages. @default {"schema"}
 * @returns The violations.
 *
 * @example Usage
 * ```ts
 * import { standardViolations } from "./standard_schema.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(
 *   standardViolations(
 *     [{ message: "Expected number", path: ["opts", { key: "limits" }, 0] }],
 *     { opts: { limits: ["1"] } },
 *   ),
 *   ['"opts.limits[0]": expected Expected number, received string "1" (schema: Expected number); fix: send a value that passes: Expected number'],
 * );
 * ```
 */
export function standardViolations(
  issues: readonly StandardSchemaIssue[],
  args: unknown,
  schema?: JsonSchema,
  vendor = "schema",
): readonly string[] {
  const out = new Violations();
  const context = { schema: schema as Readonly<Record<string, unknown>> | undefined, vendor };
  for (const issue of issues) {
    if (out.full) break;
    addIssue(issue as LibraryIssue, args, context, out);
  }
  if (out.list.length === 0) {
    out.add(
      formatViolation(
        "",
        "valid arguments",
        "a value the schema rejected",
        "check the tool's schema",
      ),
    );
  }
  return Object.freeze(sortByPath(out.list));
}
