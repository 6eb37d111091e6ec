/**
 * Untrusted text made safe to show the user (card titles, permission prompts, plugin errors):
 * nothing in it can recolour, reorder, hide or overwrite what the user reads.
 *
 * @module
 */

/** Options of {@linkcode safeText}. */
export interface SafeTextOptions {
  /**
   * The longest result, in UTF-16 code units; longer text keeps its head and its tail (where a
   * long command's payload hides) around a marker naming what was left out.
   * @default {400}
   */
  readonly maxChars?: number;
  /** Keep line breaks and tabs (for multi-line bodies); otherwise they are escaped. @default {false} */
  readonly multiline?: boolean;
  /** Whitespace runs longer than this collapse into a marker. @default {8} */
  readonly maxRun?: number;
}

/**
 * Characters shown as escapes: C0 controls, DEL, C1 controls, bidi embeddings, overrides,
 * isolates and marks, zero-width and invisible fillers, line/paragraph separators, the BOM, and
 * Unicode tag characters (which smuggle invisible ASCII).
 */
const UNSAFE =
  // deno-lint-ignore no-control-regex -- matching control characters is the point.
  /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

/** Spaces (ASCII and Unicode, tabs and breaks included) that can pad text out of sight. */
const SPACE = /[ \t\n\u00a0\u1680\u2000-\u200a\u202f\u205f\u2800\u3000]/;

const NAMED: Readonly<Record<string, string>> = {
  "\t": "\\t",
  "\n": "\\n",
  "\r": "\\r",
  "\u001b": "\\e",
};

function escapeChar(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\u{${code.toString(16)}}`;
}

function collapseRuns(text: string, maxRun: number, multiline: boolean): string {
  const run = new RegExp(`${SPACE.source}{${maxRun + 1},}`, "g");
  return text.replace(run, (spaces) => {
    const lines = multiline ? (spaces.match(/\n/g) ?? []).length : 0;
    const kept = lines > 0 ? "\n".repeat(Math.min(lines, 2)) : " ";
    return `${kept === " " ? " " : ""}[${spaces.length} blank characters]${kept}`;
  });
}

function keepEnds(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const marker = (n: number) => ` [… ${n} characters omitted …] `;
  const room = Math.max(0, maxChars - marker(text.length).length);
  // The tail is what runs last (`… | sh`), so it gets the larger share.
  let head = Math.floor(room * 0.4);
  let tail = room - head;
  // Never split a surrogate pair.
  if (/[\ud800-\udbff]/.test(text[head - 1] ?? "")) head--;
  if (/[\udc00-\udfff]/.test(text[text.length - tail] ?? "")) tail--;
  const omitted = text.length - head - tail;
  return text.slice(0, head) + marker(omitted) + text.slice(text.length - tail);
}

/**
 * Makes untrusted text safe to display: control characters (C0, DEL, C1), ANSI escape
 * sequences (their ESC shows as `\e`), bidi overrides, isolates and marks, zero-width and
 * invisible characters become visible escapes (`\u202e`); runs of blank characters longer than
 * `maxRun` collapse into `[N blank characters]`; and text longer than `maxChars` keeps its head
 * and its tail around `[… N characters omitted …]`. Ordinary text (and, with `multiline`, its
 * line breaks and tabs) is returned unchanged.
 *
 * @param text The untrusted text.
 * @param options The length limit, whether line breaks stay, and the longest blank run.
 * @returns The text as it may be shown.
 *
 * @example Usage
 * ```ts
 * import { safeText } from "./safe_text.ts";
 * import { equal } from "node:assert/strict";
 * equal(safeText("ls -la"), "ls -la");
 * equal(safeText("echo \u001b[31mred"), "echo \\e[31mred");
 * equal(safeText("rm -rf \u202e/"), "rm -rf \\u202e/");
 * equal(safeText(`ls${" ".repeat(5000)}| sh`), "ls [5000 blank characters] | sh");
 * ```
 */
export function safeText(text: string, options: SafeTextOptions = {}): string {
  const { maxChars = 400, multiline = false, maxRun = 8 } = options;
  if (!Number.isInteger(maxChars) || maxChars < 40) {
    throw new RangeError(
      `Cannot make text safe: "maxChars" must be an integer of at least 40: received ${maxChars}`,
    );
  }
  const collapsed = collapseRuns(String(text), maxRun, multiline);
  const escaped = collapsed.replace(UNSAFE, (char) => {
    if (multiline && (char === "\n" || char === "\t")) return char;
    return escapeChar(char);
  });
  return keepEnds(escaped, maxChars);
}

/**
 * Whether text holds anything {@linkcode safeText} would escape (controls, ANSI, bidi or
 * invisible characters), line breaks and tabs aside: a prompt can warn that a file hides some.
 *
 * @param text The text.
 * @returns True when it holds such a character.
 *
 * @example Usage
 * ```ts
 * import { hasHiddenText } from "./safe_text.ts";
 * import { equal } from "node:assert/strict";
 * equal(hasHiddenText("const a = 1;\n"), false);
 * equal(hasHiddenText("if (isAdmin) {\u202e} // x"), true);
 * ```
 */
export function hasHiddenText(text: string): boolean {
  for (const match of text.matchAll(UNSAFE)) {
    if (match[0] !== "\n" && match[0] !== "\t" && match[0] !== "\r") return true;
  }
  return false;
}
