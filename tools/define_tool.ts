/**
 * `defineTool`: a typed, validated, frozen tool definition from the schema DSL.
 *
 * @module
 */
import { describeValue } from "../core/error_message.ts";
import { ASYNC, INVALID, parseSoft, soft } from "./_soft_args.ts";
import type {
  ArgsValidation,
  ExecuteReturn,
  JsonSchema,
  ToolDefinition,
  ToolExecution,
  ToolResult,
  ValidatedTool,
} from "./definition.ts";
import type { InferArgs } from "./infer.ts";
import { checkParameters, type ParametersSpec } from "./schema.ts";
import { ToolArgsError } from "./tool_args_error.ts";
import { compileValidator } from "./validate.ts";
import {
  checkObjectSchema,
  type InferStandardOutput,
  isStandardSchema,
  standardJsonSchema,
  type StandardSchemaResult,
  type StandardSchemaV1,
  standardViolations,
} from "./standard_schema.ts";
import type { ToolCallView, ToolResultView } from "./views.ts";

/**
 * Tool names the model can call: 1 to 64 letters, digits, `_` or `-`.
 *
 * @example Usage
 * ```ts
 * import { TOOL_NAME_REGEXP } from "./define_tool.ts";
 * import { equal } from "node:assert/strict";
 * equal(TOOL_NAME_REGEXP.test("read_file"), true);
 * equal(TOOL_NAME_REGEXP.test("read file"), false);
 * ```
 */
export const TOOL_NAME_REGEXP: RegExp = /^[a-zA-Z0-9_-]{1,64}$/;

/** What `parameters` may be: a schema DSL map or a Standard Schema (zod 4, valibot, arktype). */
export type ToolParameters = ParametersSpec | StandardSchemaV1;

/**
 * The argument type `execute` receives: {@linkcode InferArgs} for a DSL map, the schema's output
 * type for a Standard Schema.
 *
 * @typeParam P The parameters.
 */
export type ToolArgs<P extends ToolParameters> = P extends StandardSchemaV1 ? InferStandardOutput<P>
  : InferArgs<P>;

/**
 * Options of {@linkcode defineTool}.
 *
 * @typeParam P The parameters: a DSL map or a Standard Schema.
 */
export interface DefineToolOptions<P extends ToolParameters> {
  /** Tool name the model calls; must match {@linkcode TOOL_NAME_REGEXP}. */
  readonly name: string;
  /** What the model sees; must not be empty. */
  readonly description: string;
  /**
   * The parameters: a DSL map (`name -> spec`, keys optional unless `required: true`), or a
   * Standard Schema of an object (a zod 4 `z.object(...)`, valibot or arktype), whose JSON Schema
   * comes from its Standard JSON Schema converter.
   */
  readonly parameters: P;
  /**
   * The model-facing JSON Schema of a Standard Schema `parameters`, for libraries without the
   * Standard JSON Schema converter; not allowed with a DSL map. @default {undefined}
   */
  readonly jsonSchema?: JsonSchema;
  /**
   * The body. Runs only with arguments that match `parameters`.
   *
   * @param args The validated arguments.
   * @param exec The execution identity and signal.
   * @returns Content blocks, or `{ content, meta }`.
   */
  execute(args: ToolArgs<P>, exec: ToolExecution): ExecuteReturn | Promise<ExecuteReturn>;
  /**
   * The pending card; pure. Not called when the args do not match. @default {undefined}
   *
   * @param args The arguments.
   * @returns The card, or `undefined` for the generic one.
   */
  presentCall?(args: ToolArgs<P>): ToolCallView | undefined;
  /**
   * The completed card; pure. Not called when the args do not match. @default {undefined}
   *
   * @param args The arguments.
   * @param result The result.
   * @returns The card, or `undefined` for the generic one.
   */
  presentResult?(args: ToolArgs<P>, result: ToolResult): ToolResultView | undefined;
  /**
   * Whether this call may overlap concurrency-safe siblings. @default {undefined} (never)
   *
   * @param args The arguments.
   * @returns `true` to allow overlap.
   */
  isConcurrencySafe?(args: ToolArgs<P>): boolean;
  /** Deadline in milliseconds; positive and finite. @default {undefined} */
  readonly timeoutMs?: number;
  /** Opt in to the jobs layer (`run_in_background`). @default {false} */
  readonly background?: boolean;
}

/**
 * The definition `defineTool` returns: a frozen {@linkcode ToolDefinition} with typed args plus
 * the checked DSL spec (for SDK generation).
 *
 * @typeParam P The parameters map.
 */
export interface DefinedTool<P extends ToolParameters> extends ToolDefinition<ToolArgs<P>> {
  /**
   * The checked, deep-frozen parameters map the JSON Schema was emitted from; `undefined` for a
   * Standard Schema.
   */
  readonly spec: P extends StandardSchemaV1 ? undefined : P;
}

/**
 * Defines a tool from the schema DSL. The returned definition is frozen; its `parameters` is
 * the emitted JSON Schema; its `execute` validates the arguments before the body runs and
 * throws {@linkcode ToolArgsError} on a mismatch. `presentCall`/`presentResult` return
 * `undefined` and `isConcurrencySafe` returns `false` when the arguments do not match or the
 * callback throws, so display never throws.
 *
 * @typeParam P The parameters map, inferred with literal types.
 * With a Standard Schema, `execute` and the presenters receive the schema's parsed output (zod
 * defaults and transforms applied) and the violations are the schema's issues in the same
 * shape, the library's own message kept (`"limit": expected integer from 1 to 100, received
 * string "5" (zod: Invalid input: expected number, received string); fix: send 5`).
 *
 * @param options The tool.
 * @returns The frozen definition.
 * @throws {TypeError} When the name, description or a callback is malformed, or a Standard
 * Schema has no JSON Schema.
 * @throws {RangeError} When `timeoutMs` is not positive and finite.
 * @throws {SchemaSpecError} When `parameters` has an author mistake.
 *
 * @example Usage
 * ```ts
 * import { defineTool } from "./define_tool.ts";
 * import { equal, throws } from "node:assert/strict";
 * const tool = defineTool({
 *   name: "read_file",
 *   description: "Read a file from disk.",
 *   parameters: {
 *     path: { type: "string", required: true, description: "Absolute path" },
 *     limit: { type: "number" },
 *   },
 *   execute(args) {
 *     return [{ type: "text", text: `read ${args.path}` }];
 *   },
 * });
 * equal(tool.parameters.type, "object");
 * throws(() => tool.execute({ path: "/a", limit: "1" } as never, {} as never), {
 *   message: 'invalid arguments: "limit": expected number, received string "1"; fix: send 1',
 * });
 * ```
 */
export function defineTool<const P extends ToolParameters>(
  options: DefineToolOptions<P>,
): DefinedTool<P> {
  checkToolOptions(options);
  const { name, description, execute, presentCall, presentResult, isConcurrencySafe } = options;
  const { timeoutMs, background } = options;
  type Args = ToolArgs<P>;
  // The one cast: the compiled schema parses into the arguments the types infer from it.
  const { parse, check, schema, spec } = compileParameters(name, options) as CompiledParameters<
    Args
  >;
  const validate = (args: unknown): ArgsValidation => Object.freeze(check(args));
  // The author's callbacks for parsed arguments (what the registry calls with a call's `args`),
  // and the public ones, which check the arguments they get first.
  const typed: { -readonly [K in keyof ValidatedTool<Args>]: ValidatedTool<Args>[K] } = {
    // Bound, not wrapped: the body's stack goes from run_body.ts straight to the author's code.
    execute: execute.bind(options),
  };
  const definition: {
    -readonly [K in keyof DefinedTool<P>]: DefinedTool<P>[K];
  } = {
    name,
    description,
    parameters: schema,
    spec: spec as DefinedTool<P>["spec"],
    validate,
    execute: function validatedExecute(args: unknown, exec: ToolExecution) {
      const parsed = parse(args);
      if (!isThenable(parsed)) return execute.call(options, parsed, exec);
      return parsed.then((value) => execute.call(options, value, exec));
    },
  };
  if (presentCall !== undefined) {
    const present = typed.presentCall = soft(
      (args: Args) => presentCall.call(options, args),
      undefined,
    );
    definition.presentCall = soft((args: unknown) => {
      const parsed = parseSoft<Args>(validate, args);
      return parsed === INVALID ? undefined : present(parsed);
    }, undefined);
  }
  if (presentResult !== undefined) {
    const present = typed.presentResult = soft(
      (args: Args, result: ToolResult) => presentResult.call(options, args, result),
      undefined,
    );
    definition.presentResult = soft((args: unknown, result: ToolResult) => {
      const parsed = parseSoft<Args>(validate, args);
      return parsed === INVALID ? undefined : present(parsed, result);
    }, undefined);
  }
  if (isConcurrencySafe !== undefined) {
    const classify = typed.isConcurrencySafe = soft(
      (args: Args) => isConcurrencySafe.call(options, args) === true,
      false,
    );
    definition.isConcurrencySafe = soft((args: unknown) => {
      const parsed = parseSoft<Args>(validate, args);
      return parsed !== INVALID && classify(parsed);
    }, false);
  }
  Object.defineProperty(definition, "validated", { value: Object.freeze(typed) });
  if (timeoutMs !== undefined) definition.timeoutMs = timeoutMs;
  if (background !== undefined) definition.background = background;
  return Object.freeze(definition);
}

/** Throws a clear error for a malformed name, description, callback, timeout or flag. */
function checkToolOptions<const P extends ToolParameters>(options: DefineToolOptions<P>): void {
  const { name, description, execute, presentCall, presentResult, isConcurrencySafe } = options;
  const { timeoutMs, background } = options;
  if (typeof name !== "string" || !TOOL_NAME_REGEXP.test(name)) {
    throw new TypeError(
      `Cannot define tool: name must match ${TOOL_NAME_REGEXP}: current value is ${
        describeValue(name)
      }`,
    );
  }
  const where = `Cannot define tool "${name}"`;
  if (typeof description !== "string" || description.trim() === "") {
    throw new TypeError(
      `${where}: description must be a non-empty string: current value is ${
        describeValue(description)
      }`,
    );
  }
  if (typeof execute !== "function") {
    throw new TypeError(
      `${where}: execute must be a function: current value is ${describeValue(execute)}`,
    );
  }
  for (const [key, value] of Object.entries({ presentCall, presentResult, isConcurrencySafe })) {
    if (value !== undefined && typeof value !== "function") {
      throw new TypeError(
        `${where}: ${key} must be a function: current value is ${describeValue(value)}`,
      );
    }
  }
  if (
    timeoutMs !== undefined &&
    !(typeof timeoutMs === "number" && timeoutMs > 0 && isFinite(timeoutMs))
  ) {
    throw new RangeError(
      `${where}: timeoutMs must be a positive finite number: current value is ${
        describeValue(timeoutMs)
      }`,
    );
  }
  if (background !== undefined && typeof background !== "boolean") {
    throw new TypeError(
      `${where}: background must be a boolean: current value is ${describeValue(background)}`,
    );
  }
}

interface CompiledParameters<A = unknown> {
  /** The model-facing JSON Schema. */
  readonly schema: JsonSchema;
  /** The checked DSL map, or `undefined` for a Standard Schema. */
  readonly spec: ParametersSpec | undefined;
  /** The arguments `execute` receives; throws (or rejects with) {@linkcode ToolArgsError}. */
  parse(args: unknown): A | Promise<A>;
  /** The soft check (an asynchronous schema is not ok: it is checked when the tool runs). */
  check(args: unknown): ArgsValidation;
}

function compileParameters(
  name: string,
  options: { readonly parameters: unknown; readonly jsonSchema?: unknown },
): CompiledParameters {
  const { parameters, jsonSchema } = options;
  const where = `Cannot define tool "${name}"`;
  if (!isStandardSchema(parameters)) {
    if (jsonSchema !== undefined) {
      throw new TypeError(
        `${where}: jsonSchema is only allowed with a Standard Schema: the schema DSL emits its own`,
      );
    }
    const spec = checkParameters(parameters as ParametersSpec);
    const validate = compileValidator(spec);
    return {
      schema: validate.schema,
      spec,
      parse(args) {
        const violations = validate(args);
        if (violations.length > 0) throw new ToolArgsError(violations);
        return args;
      },
      check(args) {
        const violations = validate(args);
        return violations.length === 0 ? { ok: true, args } : { ok: false, violations };
      },
    };
  }
  const schema = jsonSchema === undefined
    ? standardJsonSchema(parameters, name)
    : checkObjectSchema(jsonSchema, where);
  const validate = parameters["~standard"].validate;
  const vendor = String(parameters["~standard"].vendor);
  const violations = (issues: StandardSchemaResult<unknown>["issues"], args: unknown) =>
    standardViolations(issues ?? [], args, schema, vendor);
  function unwrap(result: StandardSchemaResult<unknown>, args: unknown): unknown {
    if (result.issues) throw new ToolArgsError(violations(result.issues, args));
    return result.value;
  }
  return {
    schema,
    spec: undefined,
    parse(args) {
      const result = validate(args);
      return isThenable(result) ? result.then((r) => unwrap(r, args)) : unwrap(result, args);
    },
    check(args) {
      const result = validate(args);
      if (isThenable(result)) return ASYNC;
      if (result.issues) return { ok: false, violations: violations(result.issues, args) };
      return { ok: true, args: result.value };
    },
  };
}

function isThenable<T>(value: unknown): value is Promise<T> {
  return typeof value === "object" && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}
