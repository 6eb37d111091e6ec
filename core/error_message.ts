/**
 * Turns any thrown value into a printable message, safely.
 *
 * @module
 */

/**
 * The message used when a thrown value cannot be printed at all.
 *
 * @example Usage
 * ```ts
 * import { errorMessage, UNPRINTABLE_THROWN_VALUE } from "./error_message.ts";
 * import { equal } from "node:assert/strict";
 * const hostile = { get message(): string { throw new Error("no"); } };
 * equal(errorMessage(hostile), UNPRINTABLE_THROWN_VALUE);
 * ```
 */
export const UNPRINTABLE_THROWN_VALUE = "<unprintable thrown value>";

/**
 * The message of a thrown value: `err.message` for errors and message-bearing objects, otherwise
 * `String(err)`. Hostile values (throwing getters or `toString`) give
 * {@linkcode UNPRINTABLE_THROWN_VALUE}. Never throws.
 *
 * @param error Anything that was thrown.
 * @returns A printable message.
 *
 * @example Usage
 * ```ts
 * import { errorMessage } from "./error_message.ts";
 * import { equal } from "node:assert/strict";
 * equal(errorMessage(new Error("boom")), "boom");
 * equal(errorMessage("plain"), "plain");
 * equal(errorMessage({ toString() { throw new Error("no"); } }), "<unprintable thrown value>");
 * ```
 */
export function errorMessage(error: unknown): string {
  try {
    if (typeof error === "object" && error !== null && "message" in error) {
      const message = (error as { message: unknown }).message;
      if (typeof message === "string" && message !== "") return message;
    }
    const text = String(error);
    return typeof text === "string" ? text : UNPRINTABLE_THROWN_VALUE;
  } catch {
    return UNPRINTABLE_THROWN_VALUE;
  }
}

/** Longest value text {@linkcode describeValue} prints before cutting with `…`. */
const MAX_DESCRIBED = 200;

/**
 * A short, safe description of any value for an error message: JSON text when there is one
 * (cut to about 200 characters), otherwise `undefined`, `-0`, `a function`, `a symbol`,
 * `a bigint`, `an array` or `an object`. Never throws.
 *
 * @param value The value received.
 * @returns Its description.
 *
 * @example Usage
 * ```ts
 * import { describeValue } from "./error_message.ts";
 * import { equal } from "node:assert/strict";
 * equal(describeValue("soon"), '"soon"');
 * equal(describeValue(-0), "-0");
 * equal(describeValue(() => 1), "a function");
 * equal(describeValue(10n), "a bigint");
 * equal(describeValue("x".repeat(300)).length, 201);
 * ```
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "function") return "a function";
  if (typeof value === "symbol" || typeof value === "bigint") return `a ${typeof value}`;
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Array.isArray(value) ? "an array" : "an object";
  }
  return text.length > MAX_DESCRIBED ? `${text.slice(0, MAX_DESCRIBED)}…` : text;
}
