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
import { bigIntegerViolation, formatViolation } from "../tools/arg_error.ts";
import type { JsonSchema } from "../tools/definition.ts";
import { findJsonSyntaxProblem } from "./_json_syntax.ts";

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
 * invalid JSON (the position, the token and a fix), an integer that would arrive changed (advice
 * that fits `schema` at its path), a number that overflows to `Infinity`, or `-0`. The message is
 * one argument error (`<path>: expected …, received …; fix: …`).
 */
export function parseToolArguments(
  text: string,
  schema?: () => JsonSchema | undefined,
): { readonly args: JsonValue } | { readonly problem: ArgumentsProblem } {
  let value: unknown;
  try {
    value = LONG_DIGITS_REGEXP.test(text)
      ? JSON.parse(text, markInexact as Parameters<typeof JSON.parse>[1])
      : JSON.parse(text);
  } catch (error) {
    return { problem: { kind: "syntax", message: syntaxViolation(text, errorMessage(error)) } };
  }
  try {
    return { args: snapshotJson(value) };
  } catch (error) {
    if (!(error instanceof JsonSnapshotError)) {
      return { problem: { kind: "lossless", message: errorMessage(error) } };
    }
    if (error.value instanceof InexactInteger) {
      const segments = pathSegments(error.path);
      const message = bigIntegerViolation(schema?.(), segments, error.value.source);
      return { problem: { kind: "lossless", message } };
    }
    return { problem: { kind: "lossless", message: error.describe("arguments") } };
  }
}

/** The violation of text `JSON.parse` rejected: position, token, what is wrong and the fix. */
function syntaxViolation(text: string, parseMessage: string): string {
  const problem = findJsonSyntaxProblem(text);
  if (problem === undefined) {
    return formatViolation(
      "",
      "valid JSON",
      "text JSON.parse rejected",
      "send valid JSON",
      parseMessage,
    );
  }
  const { position, line, column, token, fix } = problem;
  const from = Math.max(0, position - 24);
  const near = `${from > 0 ? "…" : ""}${text.slice(from, position + 8)}`;
  return formatViolation(
    "",
    "valid JSON",
    `invalid JSON: ${problem.problem} at position ${position}`,
    fix,
    `line ${line}, column ${column}, token ${token}, near ${JSON.stringify(near)}`,
  );
}

/** The segments of a `snapshotJson` error path (`a.b[2]`, `["odd key"].c`). */
function pathSegments(path: string): (string | number)[] {
  const segments: (string | number)[] = [];
  for (const match of path.matchAll(/\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\.?([^.[\]]+)/g)) {
    if (match[1] !== undefined) segments.push(Number(match[1]));
    else if (match[2] !== undefined) segments.push(JSON.parse(match[2]) as string);
    else segments.push(match[3]!);
  }
  return segments;
}

const EMPTY_ARGS: JsonValue = Object.freeze({});

/**
 * The arguments of a tool call as the loop and its presenters see them: an empty (or blank)
 * text is `{}`, anything else goes through {@linkcode parseToolArguments} (`schema` gives the
 * tool's JSON Schema, read only when a big integer needs advice).
 */
export function parseCallArguments(
  text: string,
  schema?: () => JsonSchema | undefined,
): { readonly args: JsonValue } | { readonly problem: ArgumentsProblem } {
  return text.trim() === "" ? { args: EMPTY_ARGS } : parseToolArguments(text, schema);
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
