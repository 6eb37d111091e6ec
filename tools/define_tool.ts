/**
 * `defineTool`: a typed, validated, frozen tool definition from the schema DSL.
 *
 * @module
 */
import { describeValue } from "../core/error_message.ts";
import type { ExecuteReturn, ToolDefinition, ToolExecution, ToolResult } from "./definition.ts";
import type { InferArgs } from "./infer.ts";
import { checkParameters, type ParametersSpec } from "./schema.ts";
import { ToolArgsError } from "./tool_args_error.ts";
import { compileValidator } from "./validate.ts";
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

/**
 * Options of {@linkcode defineTool}.
 *
 * @typeParam P The parameters map.
 */
export interface DefineToolOptions<P extends ParametersSpec> {
  /** Tool name the model calls; must match {@linkcode TOOL_NAME_REGEXP}. */
  readonly name: string;
  /** What the model sees; must not be empty. */
  readonly description: string;
  /** The parameters map (`name -> spec`); keys are optional unless `required: true`. */
  readonly parameters: P;
  /**
   * The body. Runs only with arguments that match `parameters`.
   *
   * @param args The validated arguments.
   * @param exec The execution identity and signal.
   * @returns Content blocks, or `{ content, meta }`.
   */
  execute(args: InferArgs<P>, exec: ToolExecution): ExecuteReturn | Promise<ExecuteReturn>;
  /**
   * The pending card; pure. Not called when the args do not match. @default {undefined}
   *
   * @param args The arguments.
   * @returns The card, or `undefined` for the generic one.
   */
  presentCall?(args: InferArgs<P>): ToolCallView | undefined;
  /**
   * The completed card; pure. Not called when the args do not match. @default {undefined}
   *
   * @param args The arguments.
   * @param result The result.
   * @returns The card, or `undefined` for the generic one.
   */
  presentResult?(args: InferArgs<P>, result: ToolResult): ToolResultView | undefined;
  /**
   * Whether this call may overlap concurrency-safe siblings. @default {undefined} (never)
   *
   * @param args The arguments.
   * @returns `true` to allow overlap.
   */
  isConcurrencySafe?(args: InferArgs<P>): boolean;
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
export interface DefinedTool<P extends ParametersSpec> extends ToolDefinition<InferArgs<P>> {
  /** The checked, deep-frozen parameters map the JSON Schema was emitted from. */
  readonly spec: P;
}

/**
 * Defines a tool from the schema DSL. The returned definition is frozen; its `parameters` is
 * the emitted JSON Schema; its `execute` validates the arguments before the body runs and
 * throws {@linkcode ToolArgsError} on a mismatch. `presentCall`/`presentResult` return
 * `undefined` and `isConcurrencySafe` returns `false` when the arguments do not match or the
 * callback throws, so display never throws.
 *
 * @typeParam P The parameters map, inferred with literal types.
 * @param options The tool.
 * @returns The frozen definition.
 * @throws {TypeError} When the name, description or a callback is malformed.
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
 * throws(() => tool.execute({ limit: "1" } as never, {} as never), {
 *   message: 'invalid arguments: missing required property "path"; "limit" must be a number',
 * });
 * ```
 */
export function defineTool<const P extends ParametersSpec>(
  options: DefineToolOptions<P>,
): DefinedTool<P> {
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
  const spec = checkParameters(options.parameters);
  const validate = compileValidator(spec);
  type Args = InferArgs<P>;
  const isValid = (args: unknown): args is Args => validate(args).length === 0;

  const definition: {
    -readonly [K in keyof DefinedTool<P>]: DefinedTool<P>[K];
  } = {
    name,
    description,
    parameters: validate.schema,
    spec,
    execute: function validatedExecute(args: Args, exec: ToolExecution) {
      const violations = validate(args);
      if (violations.length > 0) throw new ToolArgsError(violations);
      return execute.call(options, args, exec);
    },
  };
  if (presentCall !== undefined) {
    definition.presentCall = function softPresentCall(args: Args) {
      try {
        return isValid(args) ? presentCall.call(options, args) : undefined;
      } catch {
        return undefined;
      }
    };
  }
  if (presentResult !== undefined) {
    definition.presentResult = function softPresentResult(args: Args, result: ToolResult) {
      try {
        return isValid(args) ? presentResult.call(options, args, result) : undefined;
      } catch {
        return undefined;
      }
    };
  }
  if (isConcurrencySafe !== undefined) {
    definition.isConcurrencySafe = function softIsConcurrencySafe(args: Args) {
      try {
        return isValid(args) && isConcurrencySafe.call(options, args) === true;
      } catch {
        return false;
      }
    };
  }
  if (timeoutMs !== undefined) definition.timeoutMs = timeoutMs;
  if (background !== undefined) definition.background = background;
  return Object.freeze(definition);
}
