/**
 * Private: the soft side of a `defineTool` definition. `check` answers once per call (the
 * registry asks when it prepares the call); a direct caller of `execute` or a presenter gets its
 * own check. No memory keyed by argument objects.
 *
 * @module
 */
import type { ArgsValidation } from "./definition.ts";

/** What presenters get instead of arguments that do not match. */
export const INVALID: unique symbol = Symbol("invalid");

/** The soft answer for an asynchronous schema: checked only when the tool runs. */
export const ASYNC: ArgsValidation = Object.freeze({
  ok: false,
  pending: true,
  violations: Object.freeze([
    "the parameters schema validates asynchronously: the arguments are checked when the tool runs",
  ]),
});

/** The parsed arguments when `check` accepts them, otherwise {@linkcode INVALID}. */
export function parseSoft<A>(
  check: (args: unknown) => ArgsValidation,
  args: unknown,
): A | typeof INVALID {
  const answer = check(args);
  return answer.ok ? answer.args as A : INVALID;
}

/** `fn` made soft: a throw answers `fallback`. */
export function soft<A extends unknown[], R, F>(
  fn: (...args: A) => R,
  fallback: F,
): (...args: A) => R | F {
  return (...args) => {
    try {
      return fn(...args);
    } catch {
      return fallback;
    }
  };
}
