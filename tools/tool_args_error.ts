/**
 * The error `execute` throws for arguments that do not match the tool's parameters.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";

/**
 * Invalid tool arguments (code `INVALID_ARGS`). The message is `invalid arguments: ` followed
 * by the violations joined with `; `, so the model sees
 * `Error: invalid arguments: missing required property "path"; "limit" must be a number`.
 *
 * @example Usage
 * ```ts
 * import { ToolArgsError } from "./tool_args_error.ts";
 * import { equal } from "node:assert/strict";
 * const error = new ToolArgsError(['missing required property "path"', '"limit" must be a number']);
 * equal(error.message, 'invalid arguments: missing required property "path"; "limit" must be a number');
 * equal(error.code, "INVALID_ARGS");
 * ```
 */
export class ToolArgsError extends HarnessError {
  /** The violations, in schema-walk order. */
  readonly violations: readonly string[];

  /**
   * Creates the error.
   *
   * @param violations The violations (at least one).
   * @param options Standard error options (`cause`).
   */
  constructor(violations: readonly string[], options?: ErrorOptions) {
    super("INVALID_ARGS", `invalid arguments: ${violations.join("; ")}`, options);
    this.name = "ToolArgsError";
    this.violations = Object.freeze([...violations]);
  }
}
