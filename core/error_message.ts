/**
 * Turns any thrown value into a printable message, safely.
 *
 * @module
 */

/** The message used when a thrown value cannot be printed at all. */
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
