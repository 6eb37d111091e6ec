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

/** Finds the first syntax problem of `text`, or `undefined` when it is valid JSON. */
export function findJsonSyntaxProblem(text: string): JsonSyntaxProblem | undefined {
  const stack: ("}" | "]")[] = [];
  let state: State = "value";
  let i = 0;
  const fail = (problem: string, fix: string, at = i) => located(text, at, problem, fix);
  while (true) {
    while (i < text.length && WHITESPACE.includes(text[i]!)) i++;
    if (i >= text.length) {
      if (state === "done") return undefined;
      return cutShort(text, stack, state);
    }
    const c = text[i]!;
    if (state === "done") {
      return fail("text after the end of the JSON value", `delete the text from position ${i}`);
    }
    if (state === "comma-or-end" || state === "item-or-end" && c === "]") {
      if (c === ",") {
        const next = nextSignificant(text, i + 1);
        if (next === "}" || next === "]") {
          return fail("a trailing comma", `delete the "," at position ${i}`);
        }
        state = stack[stack.length - 1] === "}" ? "key" : "value";
        i++;
        continue;
      }
      if (c === stack[stack.length - 1]) {
        stack.pop();
        state = stack.length === 0 ? "done" : "comma-or-end";
        i++;
        continue;
      }
      if (state === "comma-or-end") {
        const close = stack[stack.length - 1];
        return fail(`expected "," or "${close}"`, `insert "," before position ${i}`);
      }
    }
    if (state === "colon") {
      if (c !== ":") return fail('expected ":" after the key', `insert ":" before position ${i}`);
      state = "value";
      i++;
      continue;
    }
    if (state === "key-or-end" || state === "key") {
      if (c === "}" && state === "key-or-end") {
        stack.pop();
        state = stack.length === 0 ? "done" : "comma-or-end";
        i++;
        continue;
      }
      if (c === "'") return singleQuotes(text, i);
      if (c !== '"') {
        const word = /[A-Za-z_$][\w$]*/y;
        word.lastIndex = i;
        const match = word.exec(text);
        return match === null
          ? fail("expected a double-quoted key", `quote the key at position ${i} with "`)
          : fail("an unquoted key", `quote the key at position ${i}: write "${match[0]}"`);
      }
      const end = stringEnd(text, i);
      if (end === undefined) return cutShort(text, stack, "string");
      i = end;
      state = "colon";
      continue;
    }
    // A value is expected ("value" or "item-or-end").
    if (c === "{" || c === "[") {
      stack.push(c === "{" ? "}" : "]");
      state = c === "{" ? "key-or-end" : "item-or-end";
      i++;
      continue;
    }
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end === undefined) return cutShort(text, stack, "string");
      i = end;
    } else if (c === "'") {
      return singleQuotes(text, i);
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      NUMBER_REGEXP.lastIndex = i;
      const match = NUMBER_REGEXP.exec(text);
      if (match === null) return fail("a malformed number", `write a JSON number at position ${i}`);
      i += match[0].length;
    } else {
      const literal = LITERALS.find((word) => text.startsWith(word, i));
      if (literal === undefined) {
        const partial = LITERALS.find((word) => word.startsWith(text.slice(i).trimEnd()));
        if (partial !== undefined && text.slice(i).trim() !== "") {
          return cutShort(text, stack, "value", partial.slice(text.slice(i).trimEnd().length));
        }
        return fail("expected a JSON value", valueFix(c, i));
      }
      i += literal.length;
    }
    state = stack.length === 0 ? "done" : "comma-or-end";
  }
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

/** The offset after the string starting at `start`, or `undefined` when it is not closed. */
function stringEnd(text: string, start: number): number | undefined {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
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
  state: State | "string",
  rest = "",
): JsonSyntaxProblem {
  if (state === "key") {
    const comma = text.trimEnd().length - 1;
    const close = [...stack].reverse().join("");
    return located(
      text,
      text.length,
      "the text is cut short after a comma",
      `delete the "," at position ${comma} and append ${JSON.stringify(close)}`,
    );
  }
  if (state === "string" && isKeyPosition(text)) {
    // A key cut short: drop it (and the comma before it) and close the containers.
    const quote = text.lastIndexOf('"');
    const before = text.slice(0, quote).trimEnd();
    const from = before.endsWith(",") ? before.length - 1 : quote;
    const close = [...stack].reverse().join("");
    return located(
      text,
      text.length,
      "the text is cut short inside a key",
      `delete the text from position ${from} and append ${JSON.stringify(close)}`,
    );
  }
  let tail = rest;
  if (state === "string") tail += '"';
  const afterString = state === "string" && (text.trimEnd().length > 0);
  if (state === "colon" || (afterString && isKeyPosition(text))) tail += ":null";
  else if (state === "value" && rest === "") tail += "null";
  tail += [...stack].reverse().join("");
  return located(text, text.length, "the text is cut short", `append ${JSON.stringify(tail)}`);
}

/** Whether an unclosed string at the end is an object key (after `{` or `,` inside an object). */
function isKeyPosition(text: string): boolean {
  const quote = text.lastIndexOf('"');
  const before = text.slice(0, quote).trimEnd();
  return before.endsWith("{") || (before.endsWith(",") && /\{[^[\]{}]*$/.test(before));
}

function located(text: string, position: number, problem: string, fix: string): JsonSyntaxProblem {
  const before = text.slice(0, position);
  const line = before.split("\n").length;
  const column = position - (before.lastIndexOf("\n") + 1) + 1;
  const token = position >= text.length ? "end of input" : JSON.stringify(text[position]);
  return { position, line, column, token, problem, fix };
}
