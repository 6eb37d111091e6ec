/**
 * The error `execute` throws for arguments that do not match the tool's parameters.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";

/**
 * Invalid tool arguments (code `INVALID_ARGS`). One violation reads
 * `invalid arguments: <violation>`; several are listed one a line, sorted by path:
 * `invalid arguments (2 problems):\n- <violation>\n- <violation>`. Each violation has the shape
 * `<path>: expected <what>, received <kind and value>; fix: <fix>` (see `formatArgError`).
 *
 * @example Usage
 * ```ts
 * import { ToolArgsError } from "./tool_args_error.ts";
 * import { equal } from "node:assert/strict";
 * const error = new ToolArgsError(['"limit": expected integer, received string "5"; fix: send 5']);
 * equal(error.message, 'invalid arguments: "limit": expected integer, received string "5"; fix: send 5');
 * equal(error.code, "INVALID_ARGS");
 * ```
 */
export class ToolArgsError extends HarnessError {
  /** The violations, sorted by path. */
  readonly violations: readonly string[];

  /**
   * Creates the error.
   *
   * @param violations The violations (at least one).
   * @param options Standard error options (`cause`).
   */
  constructor(violations: readonly string[], options?: ErrorOptions) {
    super("INVALID_ARGS", argsMessage(violations), options);
    this.name = "ToolArgsError";
    this.violations = Object.freeze([...violations]);
  }
}

/** The message of a list of violations: one inline, several one a line. */
function argsMessage(violations: readonly string[]): string {
  if (violations.length <= 1) return `invalid arguments: ${violations[0] ?? "rejected"}`;
  return `invalid arguments (${violations.length} problems):\n- ${violations.join("\n- ")}`;
}
