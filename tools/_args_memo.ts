/**
 * Private: one soft validation per call. A frozen snapshot (`snapshotJson` root) never changes,
 * so its validation is remembered: the registry's check, `isConcurrencySafe`, the presenters and
 * the body of one call share it.
 *
 * @module
 */
import { isJsonSnapshot } from "../core/json.ts";
import type { ArgsValidation } from "./definition.ts";
import { ToolArgsError } from "./tool_args_error.ts";

/** What presenters get instead of arguments that do not match. */
export const INVALID: unique symbol = Symbol("invalid");

/** The soft answer for an asynchronous schema: checked only when the tool runs. */
export const ASYNC: ArgsValidation = Object.freeze({
  ok: false,
  violations: Object.freeze([
    "the parameters schema validates asynchronously: the arguments are checked when the tool runs",
  ]),
});

interface Compiled {
  parse(args: unknown): unknown;
  check(args: unknown): ArgsValidation;
}

/** Adds a per-snapshot memory to `compiled`: `validate` checks once, `parse` reuses a known answer. */
export function rememberValidation<C extends Compiled>(compiled: C): C & {
  validate(args: unknown): ArgsValidation;
  parseSoft(args: unknown): unknown;
} {
  const known = new WeakMap<object, ArgsValidation>();
  const { parse, check } = compiled;
  function validate(args: unknown): ArgsValidation {
    if (!isJsonSnapshot(args)) return check(args);
    let answer = known.get(args as object);
    if (answer === undefined) known.set(args as object, answer = Object.freeze(check(args)));
    return answer;
  }
  return {
    ...compiled,
    validate,
    parse(args: unknown): unknown {
      const answer = typeof args === "object" && args !== null ? known.get(args) : undefined;
      if (answer === undefined || answer === ASYNC) return parse(args);
      // A known failure throws what the check found: the same violations, not a second run.
      if (!answer.ok) throw new ToolArgsError(answer.violations);
      return answer.args;
    },
    parseSoft(args: unknown): unknown {
      const answer = validate(args);
      return answer.ok ? answer.args : INVALID;
    },
  };
}
