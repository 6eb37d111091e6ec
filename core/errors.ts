/**
 * The harness error base class: a named error with a stable code callers branch on.
 *
 * @module
 */

/**
 * An error raised by the harness with a stable `code`.
 *
 * @example Usage
 * ```ts
 * import { HarnessError } from "./errors.ts";
 * import { equal } from "node:assert/strict";
 * const error = new HarnessError("UNKNOWN_TOOL", 'unknown tool "x"');
 * equal(error.code, "UNKNOWN_TOOL");
 * ```
 */
export class HarnessError extends Error {
  /** A stable code such as `INVALID_ARGS` or `UNKNOWN_TOOL`. */
  readonly code: string;

  /**
   * Creates a harness error.
   *
   * @param code The stable code.
   * @param message The model-readable message.
   * @param options Standard error options (`cause`).
   */
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "HarnessError";
    this.code = code;
  }
}
