/**
 * The error `run_code` throws when a program fails.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import type { CodeRunFailureKind } from "./runtime.ts";

/**
 * A failed Code Mode run (code `CODE_RUN_FAILED`). The message reads
 * `code run failed (<kind>): <message>`, followed by `\nCaptured output:\n<logs>` when the
 * program logged anything; the registry turns it into `Error: <message>` for the model.
 *
 * @example Usage
 * ```ts
 * import { CodeRunFailedError } from "./code_run_failed_error.ts";
 * import { equal } from "node:assert/strict";
 * const error = new CodeRunFailedError("timeout", "the program did not finish within 10 ms", ["a"]);
 * equal(error.message, "code run failed (timeout): the program did not finish within 10 ms\nCaptured output:\na");
 * equal(error.code, "CODE_RUN_FAILED");
 * ```
 */
export class CodeRunFailedError extends HarnessError {
  /** Why the run failed. */
  readonly kind: CodeRunFailureKind;
  /** The console output captured before the failure. */
  readonly logs: readonly string[];

  /**
   * Creates the error.
   *
   * @param kind Why the run failed.
   * @param message What happened.
   * @param logs The captured console output.
   */
  constructor(kind: CodeRunFailureKind, message: string, logs: readonly string[] = []) {
    const output = logs.length > 0 ? `\nCaptured output:\n${logs.join("\n")}` : "";
    super("CODE_RUN_FAILED", `code run failed (${kind}): ${message}${output}`);
    this.name = "CodeRunFailedError";
    this.kind = kind;
    this.logs = logs;
  }
}
