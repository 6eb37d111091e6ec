/**
 * The shape of every argument error, and the helpers a tool's own checks (ranges, lengths) use
 * to produce it: `<path>: expected <what>, received <kind and value>[ (<detail>)]; fix: <fix>`.
 *
 * @module
 */
import {
  bound,
  branchesOf,
  describeExpected,
  describeReceived,
  nodeAt,
  typesOf,
} from "./_arg_describe.ts";
import { quotePath } from "./_path.ts";
import { ToolArgsError } from "./tool_args_error.ts";

/** Longest single violation, in characters. */
export const MAX_VIOLATION_CHARS = 400;

/** The parts of one argument error. */
export interface ArgErrorParts {
  /** What the path accepts, such as `integer from 1 to 100` or `one of "a", "b"`. */
  readonly expected: string;
  /**
   * The received value: rendered as its kind and a short, safe text (`string "5"`,
   * `number 101`). Leave it out together with `missing: true` for a missing key.
   */
  readonly received?: unknown;
  /** The key is missing (`received nothing (the key is missing)`). @default {false} */
  readonly missing?: boolean;
  /**
   * What the model should do: `send <JSON>` (the value to put at the path), `omit the key`,
   * `rename it to "<key>"`, or a sentence.
   */
  readonly fix: string;
  /** Extra detail shown after `received`, such as a library's own message. @default {undefined} */
  readonly detail?: string;
}

/**
 * Formats one violation: `"limit": expected integer from 1 to 100, received string "5"; fix: send 5`.
 * The path is dotted with `[i]` indices and JSON-quoted (the root is `arguments`); the text is
 * at most {@linkcode MAX_VIOLATION_CHARS} characters (the detail is cut first).
 *
 * @param path The dotted path (`items[2].qty`; `""` for the arguments object).
 * @param parts What was expected, what was received, the fix.
 * @returns The violation.
 *
 * @example Usage
 * ```ts
 * import { formatArgError } from "./arg_error.ts";
 * import { equal } from "node:assert/strict";
 * equal(
 *   formatArgError("limit", { expected: "integer from 1 to 100", received: "5", fix: "send 5" }),
 *   '"limit": expected integer from 1 to 100, received string "5"; fix: send 5',
 * );
 * ```
 */
export function formatArgError(path: string, parts: ArgErrorParts): string {
  const received = parts.missing === true ? describeReceived(undefined, false) : describeReceived(
    parts.received,
  );
  return formatViolation(path, parts.expected, received, parts.fix, parts.detail);
}

/**
 * Formats one violation from already rendered parts (see {@linkcode formatArgError}).
 *
 * @param path The dotted path (`""` for the root).
 * @param expected What the path accepts.
 * @param received What was received, already rendered.
 * @param fix The fix.
 * @param detail Extra detail after `received`.
 * @returns The violation, at most {@linkcode MAX_VIOLATION_CHARS} characters.
 *
 * @example Usage
 * ```ts
 * import { formatViolation } from "./arg_error.ts";
 * import { equal } from "node:assert/strict";
 * equal(formatViolation("a", "string", "null", "omit the key"), '"a": expected string, received null; fix: omit the key');
 * ```
 */
export function formatViolation(
  path: string,
  expected: string,
  received: string,
  fix: string,
  detail?: string,
): string {
  const head = `${quotePath(path)}: expected `;
  const cutFix = cut(fix, 160);
  const cutReceived = cut(received, 90);
  let cutDetail = detail === undefined || detail === "" ? "" : ` (${cut(detail, 160)})`;
  const fixed = head.length + ", received ".length + cutReceived.length + "; fix: ".length +
    cutFix.length;
  let room = MAX_VIOLATION_CHARS - fixed - cutDetail.length;
  if (room < 20 && cutDetail !== "") {
    cutDetail = "";
    room = MAX_VIOLATION_CHARS - fixed;
  }
  const cutExpected = cut(expected, Math.max(20, Math.min(room, 200)));
  const text = `${head}${cutExpected}, received ${cutReceived}${cutDetail}; fix: ${cutFix}`;
  return text.length <= MAX_VIOLATION_CHARS ? text : `${text.slice(0, MAX_VIOLATION_CHARS - 1)}…`;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The error for a tool's own argument check, in the shape of every other argument error. Throw
 * it from `execute`; the model gets `Error: invalid arguments: <violation>`.
 *
 * @param path The dotted path of the argument (`limit`, `items[2].qty`).
 * @param parts What was expected, the received value, the fix.
 * @returns The error (code `INVALID_ARGS`).
 *
 * @example Usage
 * ```ts
 * import { argError } from "./arg_error.ts";
 * import { equal } from "node:assert/strict";
 * const error = argError("pattern", {
 *   expected: "a valid regular expression",
 *   received: "a(b",
 *   fix: "escape the parenthesis: send \"a\\\\(b\"",
 * });
 * equal(error.code, "INVALID_ARGS");
 * equal(error.violations[0]!.startsWith('"pattern": expected a valid regular expression, received string "a(b"'), true);
 * ```
 */
export function argError(path: string, parts: ArgErrorParts): ToolArgsError {
  return new ToolArgsError([formatArgError(path, parts)]);
}

/** Options of {@linkcode checkRange}. */
export interface CheckRangeOptions {
  /** The smallest accepted value. @default {undefined} */
  readonly min?: number;
  /** The largest accepted value. @default {undefined} */
  readonly max?: number;
  /** Also require an integer. @default {false} */
  readonly integer?: boolean;
}

/**
 * A tool's own range check: throws {@linkcode ToolArgsError} in the shape of every argument
 * error when the number at `path` is outside `[min, max]` (or not an integer when asked); an
 * absent value passes (make it `required` in the schema when it must be there).
 *
 * @param args The validated arguments.
 * @param path The dotted path of the number (`limit`, `page.size`, `items[0].qty`).
 * @param options The bounds.
 * @throws {ToolArgsError} `"limit": expected integer from 1 to 100, received number 500; fix: send 100`.
 *
 * @example Usage
 * ```ts
 * import { checkRange } from "./arg_error.ts";
 * import { throws } from "node:assert/strict";
 * checkRange({ limit: 5 }, "limit", { min: 1, max: 100 });
 * throws(() => checkRange({ limit: 500 }, "limit", { min: 1, max: 100, integer: true }), {
 *   message: 'invalid arguments: "limit": expected integer from 1 to 100, received number 500; fix: send 100',
 * });
 * ```
 */
export function checkRange(args: unknown, path: string, options: CheckRangeOptions): void {
  const { min, max, integer = false } = options;
  const found = valueAt(args, path);
  if (!found.present) return;
  const value = found.value;
  const kind = integer ? "integer" : "number";
  const range = min !== undefined && max !== undefined
    ? ` from ${min} to ${max}`
    : min !== undefined
    ? ` >= ${min}`
    : max !== undefined
    ? ` <= ${max}`
    : "";
  const ok = typeof value === "number" && (!integer || Number.isInteger(value)) &&
    (min === undefined || value >= min) && (max === undefined || value <= max);
  if (ok) return;
  let fixed = typeof value === "number" ? (integer ? Math.round(value) : value) : (min ?? max ?? 0);
  if (min !== undefined && fixed < min) fixed = integer ? Math.ceil(min) : min;
  if (max !== undefined && fixed > max) fixed = integer ? Math.floor(max) : max;
  throw argError(path, { expected: `${kind}${range}`, received: value, fix: `send ${fixed}` });
}

/** Options of {@linkcode checkLength}. */
export interface CheckLengthOptions {
  /** The fewest characters (string) or items (array). @default {undefined} */
  readonly min?: number;
  /** The most characters (string) or items (array). @default {undefined} */
  readonly max?: number;
}

/**
 * A tool's own length check for a string or an array at `path`, in the shape of every argument
 * error; an absent value passes.
 *
 * @param args The validated arguments.
 * @param path The dotted path of the string or array.
 * @param options The bounds.
 * @throws {ToolArgsError} `"title": expected string of 1 to 80 characters, received string ""; fix: …`.
 *
 * @example Usage
 * ```ts
 * import { checkLength } from "./arg_error.ts";
 * import { throws } from "node:assert/strict";
 * checkLength({ tags: ["a"] }, "tags", { max: 3 });
 * throws(() => checkLength({ title: "" }, "title", { min: 1, max: 80 }), /expected string of 1 to 80 characters/);
 * ```
 */
export function checkLength(args: unknown, path: string, options: CheckLengthOptions): void {
  const { min, max } = options;
  const found = valueAt(args, path);
  if (!found.present) return;
  const value = found.value;
  if (typeof value !== "string" && !Array.isArray(value)) return;
  const length = value.length;
  if ((min === undefined || length >= min) && (max === undefined || length <= max)) return;
  const unit = typeof value === "string" ? "characters" : "items";
  const range = min !== undefined && max !== undefined
    ? `${min} to ${max}`
    : min !== undefined
    ? `at least ${min}`
    : `at most ${max}`;
  const kind = typeof value === "string" ? "string" : "array";
  const tooLong = max !== undefined && length > max;
  const count = (n: number | undefined) => `${n} ${n === 1 ? unit.slice(0, -1) : unit}`;
  const fix = tooLong
    ? `send at most ${count(max)} (${length} were sent)`
    : `send at least ${count(min)} (${length} were sent)`;
  throw argError(path, { expected: `${kind} of ${range} ${unit}`, received: value, fix });
}

/** Reads a dotted path (`a.b[2].c`) from a value. */
function valueAt(args: unknown, path: string): { present: boolean; value: unknown } {
  let value: unknown = args;
  for (const segment of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    const key = segment.startsWith("[") ? Number(segment.slice(1, -1)) : segment;
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) {
      return { present: false, value: undefined };
    }
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return { present: true, value };
}

/**
 * The violation for an integer literal a JSON number cannot hold exactly (beyond 2^53), with
 * advice that fits the schema at its path: send it as a string only where the schema accepts a
 * string; otherwise the value is out of the representable range, and the allowed range is given.
 *
 * @param schema The tool's JSON Schema (`undefined` when the tool has none).
 * @param segments The path of the literal, as keys and indices.
 * @param source The literal as the model wrote it.
 * @returns The violation.
 *
 * @example Usage
 * ```ts
 * import { bigIntegerViolation } from "./arg_error.ts";
 * import { equal } from "node:assert/strict";
 * const schema = { type: "object", properties: { id: { type: "string" } } };
 * equal(bigIntegerViolation(schema, ["id"], "9007199254740993").endsWith('fix: send "9007199254740993"'), true);
 * ```
 */
export function bigIntegerViolation(
  schema: Readonly<Record<string, unknown>> | undefined,
  segments: readonly (string | number)[],
  source: string,
): string {
  const path = segments.reduce<string>(
    (p, s) => typeof s === "number" ? `${p}[${s}]` : p === "" ? s : `${p}.${s}`,
    "",
  );
  const rounded = Number(source);
  const arrives = Number.isFinite(rounded)
    ? `it would arrive as ${BigInt(rounded)}`
    : "it overflows";
  const received = `number ${source.length > 60 ? `${source.slice(0, 59)}…` : source}`;
  const detail = `too large for a JSON number to hold exactly: ${arrives}`;
  const node = schema === undefined ? undefined : nodeAt(schema, segments);
  if (node === undefined) {
    return formatViolation(
      path,
      "a number a double holds exactly",
      received,
      `send it as a string ("${source}") if the tool accepts one, or a smaller number`,
      detail,
    );
  }
  if (acceptsString(node)) {
    return formatViolation(
      path,
      describeExpected(node, schema!),
      received,
      `send "${source}"`,
      detail,
    );
  }
  const lo = Math.max(
    bound(node, "minimum", "exclusiveMinimum")?.value ?? -Infinity,
    -Number.MAX_SAFE_INTEGER,
  );
  const hi = Math.min(
    bound(node, "maximum", "exclusiveMaximum")?.value ?? Infinity,
    Number.MAX_SAFE_INTEGER,
  );
  const explicit = bound(
    node,
    source.startsWith("-") ? "minimum" : "maximum",
    source.startsWith("-") ? "exclusiveMinimum" : "exclusiveMaximum",
  );
  // The nearest bound the schema states; without one, a small valid example.
  const nearest = explicit === undefined
    ? Math.min(Math.max(1, lo), hi)
    : source.startsWith("-")
    ? lo
    : hi;
  return formatViolation(
    path,
    `integer from ${lo} to ${hi} (the range that arrives exactly)`,
    received,
    `send an integer from ${lo} to ${hi} such as ${nearest}`,
    `${detail}, out of the representable range`,
  );
}

function acceptsString(node: Readonly<Record<string, unknown>>): boolean {
  if (typesOf(node).includes("string")) return true;
  return (branchesOf(node) ?? []).some((branch) => typesOf(branch).includes("string"));
}
