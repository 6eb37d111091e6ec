/**
 * Private: parsing a model's tool-call argument text without silently changing a number.
 *
 * `JSON.parse` rounds an integer such as `9007199254740993` to the nearest double and turns `1e400`
 * into `Infinity`; the session log keeps the true text, so the log and the action would disagree.
 * Here the parse keeps each number's source text (`JSON.parse` source access), marks an integer
 * literal whose value a double cannot hold exactly, and hands the result to `snapshotJson`, whose
 * error names the path of the first value that is not lossless JSON.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import { JsonSnapshotError, type JsonValue, snapshotJson } from "../core/json.ts";
import { isEventType, type SessionEvent } from "./session_event.ts";

/** Integers of up to 15 digits are always exact; longer digit runs are checked. */
const LONG_DIGITS_REGEXP = /\d{16}/;
const INTEGER_REGEXP = /^-?\d+$/;

/** The parse result replacing an integer literal that a double cannot hold exactly. */
class InexactInteger {
  constructor(readonly source: string, readonly value: number) {}
}

/** What went wrong: text that is not JSON, or JSON that would not arrive unchanged. */
export type ArgumentsProblem =
  | { readonly kind: "syntax"; readonly message: string }
  | { readonly kind: "lossless"; readonly message: string };

type Reviver = (
  this: unknown,
  key: string,
  value: unknown,
  context?: { source?: string },
) => unknown;

const markInexact: Reviver = (_key, value, context) => {
  if (typeof value !== "number" || context?.source === undefined) return value;
  const source = context.source;
  if (INTEGER_REGEXP.test(source) && !Number.isSafeInteger(value)) {
    // Exact only when the double's integer equals the literal's (2 ** 53 is, 2 ** 53 + 1 is not).
    if (!Number.isFinite(value) || BigInt(source) !== BigInt(value)) {
      return new InexactInteger(source, value);
    }
  }
  return value;
};

/**
 * Parses tool-call argument text into a frozen lossless JSON value, or says why it cannot:
 * invalid JSON, an integer that would arrive changed, a number that overflows to `Infinity`, or
 * `-0`; the message names the path and the value.
 */
export function parseToolArguments(
  text: string,
): { readonly args: JsonValue } | { readonly problem: ArgumentsProblem } {
  let value: unknown;
  try {
    value = LONG_DIGITS_REGEXP.test(text)
      ? JSON.parse(text, markInexact as Parameters<typeof JSON.parse>[1])
      : JSON.parse(text);
  } catch (error) {
    return { problem: { kind: "syntax", message: errorMessage(error) } };
  }
  try {
    return { args: snapshotJson(value) };
  } catch (error) {
    if (!(error instanceof JsonSnapshotError)) {
      return { problem: { kind: "lossless", message: errorMessage(error) } };
    }
    const at = error.path === "" ? "arguments" : JSON.stringify(error.path);
    if (error.value instanceof InexactInteger) {
      const { source, value: rounded } = error.value;
      const arrives = Number.isFinite(rounded) ? `would arrive as ${BigInt(rounded)}` : "overflows";
      return {
        problem: {
          kind: "lossless",
          message:
            `${at} is an integer that a JSON number cannot hold exactly (${source} ${arrives}): send it as a string ("${source}") or as a smaller number`,
        },
      };
    }
    return { problem: { kind: "lossless", message: error.describe("arguments") } };
  }
}

const EMPTY_ARGS: JsonValue = Object.freeze({});

/**
 * The arguments of a tool call as the loop and its presenters see them: an empty (or blank)
 * text is `{}`, anything else goes through {@linkcode parseToolArguments}.
 */
export function parseCallArguments(
  text: string,
): { readonly args: JsonValue } | { readonly problem: ArgumentsProblem } {
  return text.trim() === "" ? { args: EMPTY_ARGS } : parseToolArguments(text);
}

/**
 * The derived `args` of a loaded `tool/call` event that has none (logs never store them): the
 * same parse the live append used; the event is returned unchanged when the text is not
 * lossless JSON or `args` is already there.
 */
export function withCallArgs(event: SessionEvent): SessionEvent {
  if (!isEventType(event, "tool/call") || event.args !== undefined) return event;
  if (typeof event.arguments !== "string") return event;
  const parsed = parseCallArguments(event.arguments);
  return "args" in parsed ? { ...event, args: parsed.args } : event;
}
