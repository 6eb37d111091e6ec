/**
 * Private: where JSON text that `JSON.parse` rejected goes wrong, for a model to fix it: the
 * position (0-based, with line and column), the token there, what kind of mistake it is
 * (a trailing comma, single quotes, text cut short, an unquoted key) and an applicable fix.
 * Iterative, so any nesting depth works; runs only on a failed parse.
 *
 * @module
 */

/** One syntax problem. */
export interface JsonSyntaxProblem {
  /** 0-based offset of the offending token (the text length when it is cut short). */
  readonly position: number;
  /** 1-based line and column of `position`. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
  /** The offending token, JSON-quoted, or `end of input`. */
  readonly token: string;
  /** What is wrong, in a few words. */
  readonly problem: string;
  /** The fix: `delete the "," at position 12`, `append "}]"`, …. */
  readonly fix: string;
}

type State = "value" | "key-or-end" | "key" | "colon" | "comma-or-end" | "item-or-end" | "done";

const LITERALS = ["true", "false", "null"] as const;
const NUMBER_REGEXP = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WHITESPACE = " \t\n\r";
const NUMBER_PREFIX_REGEXP = /^-?\d*(?:\.\d*)?(?:[eE][+-]?\d*)?$/;
const FULL_NUMBER_REGEXP = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** The scanner's position: the text, the open containers, what comes next, the offset. */
interface Scan {
  readonly text: string;
  readonly stack: ("}" | "]")[];
  state: State;
  i: number;
}

/** Finds the first syntax problem of `text`, or `undefined` when it is valid JSON. */
export function findJsonSyntaxProblem(text: string): JsonSyntaxProblem | undefined {
  const scan: Scan = { text, stack: [], state: "value", i: 0 };
  while (true) {
    while (scan.i < text.length && WHITESPACE.includes(text[scan.i]!)) scan.i++;
    if (scan.i >= text.length) {
      return scan.state === "done" ? undefined : cutShort(text, scan.stack, scan.state);
    }
    const c = text[scan.i]!;
    if (scan.state === "done") {
      return located(
        text,
        scan.i,
        "text after the end of the JSON value",
        `delete the text from position ${scan.i}`,
      );
    }
    const step = scan.state === "comma-or-end" || (scan.state === "item-or-end" && c === "]")
      ? afterValue(scan, c)
      : scan.state === "colon"
      ? colon(scan, c)
      : scan.state === "key-or-end" || scan.state === "key"
      ? key(scan, c)
      : value(scan, c);
    if (step !== undefined) return step;
  }
}

function close(scan: Scan): undefined {
  scan.stack.pop();
  scan.state = scan.stack.length === 0 ? "done" : "comma-or-end";
  scan.i++;
  return undefined;
}

/** After a value: a comma (not a trailing one) or the closer of the open container. */
function afterValue(scan: Scan, c: string): JsonSyntaxProblem | undefined {
  const { text, stack, i } = scan;
  if (c === ",") {
    const next = nextSignificant(text, i + 1);
    if (next === "}" || next === "]") {
      return located(text, i, "a trailing comma", `delete the "," at position ${i}`);
    }
    scan.state = stack[stack.length - 1] === "}" ? "key" : "value";
    scan.i++;
    return undefined;
  }
  if (c === stack[stack.length - 1]) return close(scan);
  const closer = stack[stack.length - 1];
  return located(text, i, `expected "," or "${closer}"`, `insert "," before position ${i}`);
}

function colon(scan: Scan, c: string): JsonSyntaxProblem | undefined {
  if (c !== ":") {
    return located(
      scan.text,
      scan.i,
      'expected ":" after the key',
      `insert ":" before position ${scan.i}`,
    );
  }
  scan.state = "value";
  scan.i++;
  return undefined;
}

/** A key (or, right after `{`, the end of the object). */
function key(scan: Scan, c: string): JsonSyntaxProblem | undefined {
  const { text, i } = scan;
  if (c === "}" && scan.state === "key-or-end") return close(scan);
  if (c === "'") return singleQuotes(text, i);
  if (c !== '"') {
    const word = /[A-Za-z_$][\w$]*/y;
    word.lastIndex = i;
    const match = word.exec(text);
    return match === null
      ? located(text, i, "expected a double-quoted key", `quote the key at position ${i} with "`)
      : located(text, i, "an unquoted key", `quote the key at position ${i}: write "${match[0]}"`);
  }
  const end = stringEnd(text, i);
  if (end === undefined) return cutShort(text, scan.stack, "key-string");
  if (typeof end !== "number") return end;
  scan.i = end;
  scan.state = "colon";
  return undefined;
}

/** A value: a container opens, or a string, number or literal is read. */
function value(scan: Scan, c: string): JsonSyntaxProblem | undefined {
  const { text, stack, i } = scan;
  if (c === "{" || c === "[") {
    stack.push(c === "{" ? "}" : "]");
    scan.state = c === "{" ? "key-or-end" : "item-or-end";
    scan.i++;
    return undefined;
  }
  if (c === '"') {
    const end = stringEnd(text, i);
    if (end === undefined) return cutShort(text, stack, "string");
    if (typeof end !== "number") return end;
    scan.i = end;
  } else if (c === "'") {
    return singleQuotes(text, i);
  } else if (c === "-" || (c >= "0" && c <= "9")) {
    // A number cut short at the end of the text (`-`, `1.`, `2e+`): a digit completes it.
    if (NUMBER_PREFIX_REGEXP.test(text.slice(i)) && !FULL_NUMBER_REGEXP.test(text.slice(i))) {
      return cutShort(text, stack, "value", "0");
    }
    NUMBER_REGEXP.lastIndex = i;
    const match = NUMBER_REGEXP.exec(text);
    if (match === null) {
      return located(text, i, "a malformed number", `write a JSON number at position ${i}`);
    }
    scan.i += match[0].length;
  } else {
    const literal = LITERALS.find((word) => text.startsWith(word, i));
    if (literal === undefined) {
      const rest = text.slice(i).trimEnd();
      const partial = LITERALS.find((word) => word.startsWith(rest));
      if (partial !== undefined && rest !== "") {
        return cutShort(text, stack, "value", partial.slice(rest.length));
      }
      return located(text, i, "expected a JSON value", valueFix(c, i));
    }
    scan.i += literal.length;
  }
  scan.state = stack.length === 0 ? "done" : "comma-or-end";
  return undefined;
}

function valueFix(c: string, i: number): string {
  if (c === "," || c === "}" || c === "]") return `put a value before position ${i}`;
  return `quote the text at position ${i} as a JSON string`;
}

function nextSignificant(text: string, from: number): string | undefined {
  let i = from;
  while (i < text.length && WHITESPACE.includes(text[i]!)) i++;
  return text[i];
}

/**
 * The offset after the string starting at `start`; `undefined` when it is not closed; a
 * problem for a bad escape or a raw control character.
 */
function stringEnd(text: string, start: number): number | JsonSyntaxProblem | undefined {
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') return i + 1;
    if (c < " ") {
      return located(text, i, "a raw control character in a string", `write it as an escape`);
    }
    if (c !== "\\") continue;
    const next = text[i + 1];
    if (next === undefined) return undefined;
    if (next === "u") {
      const hex = text.slice(i + 2, i + 6);
      if (/^[0-9a-fA-F]{4}$/.test(hex)) {
        i += 5;
        continue;
      }
      if (i + 2 + hex.length === text.length && /^[0-9a-fA-F]*$/.test(hex)) return undefined;
      return located(text, i, "a bad \\u escape", `write \\u and four hex digits at position ${i}`);
    }
    if (!'"\\/bfnrt'.includes(next)) {
      return located(text, i, "a bad escape", `delete the "\\" at position ${i}`);
    }
    i++;
  }
  return undefined;
}

function singleQuotes(text: string, i: number): JsonSyntaxProblem {
  return located(text, i, "single quotes", `use double quotes (") instead of single quotes (')`);
}

/** Text cut short: the closers that complete it. */
function cutShort(
  text: string,
  stack: readonly string[],
  state: State | "string" | "key-string",
  rest = "",
): JsonSyntaxProblem {
  const close = [...stack].reverse().join("");
  if (state === "key" || state === "key-string") {
    // A key cut short (or nothing after a comma): drop it and the comma, close the containers.
    const quote = state === "key" ? text.length : text.lastIndexOf('"');
    const before = text.slice(0, quote).trimEnd();
    const from = before.endsWith(",") ? before.length - 1 : quote;
    const problem = state === "key"
      ? "the text is cut short after a comma"
      : "the text is cut short inside a key";
    const fix = from === text.length
      ? `append ${JSON.stringify(close)}`
      : `delete the text from position ${from} and append ${JSON.stringify(close)}`;
    return located(text, text.length, problem, fix);
  }
  let tail = rest;
  if (state === "string") {
    // An escape cut in half would swallow the closing quote: finish it first.
    const backslashes = /\\*$/.exec(text)![0].length;
    const unicode = /\\u([0-9a-fA-F]{0,3})$/.exec(text);
    if (unicode !== null && backslashes === 0) tail += "0".repeat(4 - unicode[1]!.length);
    tail += `${backslashes % 2 === 1 ? "\\" : ""}"`;
  }
  if (state === "colon") tail += ":null";
  else if (state === "value" && rest === "") tail += "null";
  tail += close;
  return located(text, text.length, "the text is cut short", `append ${JSON.stringify(tail)}`);
}

function located(text: string, position: number, problem: string, fix: string): JsonSyntaxProblem {
  const before = text.slice(0, position);
  const line = before.split("\n").length;
  const column = position - (before.lastIndexOf("\n") + 1) + 1;
  const token = position >= text.length ? "end of input" : JSON.stringify(text[position]);
  return { position, line, column, token, problem, fix };
}
