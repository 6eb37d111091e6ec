/**
 * Private: the `bash` tool's arguments, its result `meta` and its terminal-card presenters
 * (pure views of args, result text and meta; they run live and on replay).
 *
 * @module
 */
import type { ToolResult } from "../tools/definition.ts";
import type { TerminalCallView, TerminalResultView } from "../tools/views.ts";
import type { CaptureSummary } from "./_output_capture.ts";
import type { RunResult } from "../tools/executor.ts";

/** The arguments of the `bash` tool (without the jobs layer's `run_in_background`). */
export interface BashArgs {
  /** The command, run with `bash -c`. */
  readonly command: string;
  /** A short description shown above the terminal card. */
  readonly description?: string;
  /** Deadline in milliseconds. */
  readonly timeout_ms?: number;
}

/**
 * The `meta` a bash result carries: what the terminal card needs besides the result text. The
 * output is stored once, in the text: the card's output is its first `outputChars` characters,
 * plus the newline the text dropped when `outputNewline` is set (see {@linkcode bashOutputOf}).
 */
export type BashMeta = {
  /** How many leading characters of the result text are output (the kept output, head, truncation line and tail, without the dropped newline). */
  readonly outputChars: number;
  /** True when the kept output ended with a newline (the text drops one). */
  readonly outputNewline?: boolean;
  /** The exit code, or `null` when a signal ended the shell. */
  readonly exitCode: number | null;
  /** The signal that ended the shell. */
  readonly signal?: string;
  /** True when the deadline killed it. */
  readonly timedOut?: boolean;
  /** The spill file holding the complete output. */
  readonly spillPath?: string;
  /** True when a descendant kept the output pipe open after the command ended (reading stopped). */
  readonly pipeHeldOpen?: boolean;
};

/**
 * The pending terminal card.
 *
 * @param args The call's arguments.
 * @returns The terminal view (title = command).
 *
 * @example Usage
 * ```ts
 * import { presentBashCall } from "./bash.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(presentBashCall({ command: "ls", description: "List" }), { card: "terminal", title: "ls", description: "List" });
 * ```
 */
export function presentBashCall(args: BashArgs): TerminalCallView {
  return args.description === undefined
    ? { card: "terminal", title: args.command }
    : { card: "terminal", title: args.command, description: args.description };
}

/**
 * The kept output of a bash result, from its text and `meta` (the text holds the only copy).
 *
 * @param text The result text.
 * @param meta The result's {@linkcode BashMeta} fields.
 * @returns The output as the command wrote it (as kept).
 *
 * @example Usage
 * ```ts
 * import { bashOutputOf } from "./bash.ts";
 * import { equal } from "node:assert/strict";
 * equal(bashOutputOf("boom\n[exit code: 2]", { outputChars: 4, outputNewline: true }), "boom\n");
 * ```
 */
export function bashOutputOf(
  text: string,
  meta: Pick<BashMeta, "outputChars" | "outputNewline">,
): string {
  return text.slice(0, meta.outputChars) + (meta.outputNewline === true ? "\n" : "");
}

/**
 * The completed terminal card, from `meta` and the output part of the text.
 *
 * @param _args The call's arguments.
 * @param result The result.
 * @returns The terminal view, or `undefined` (generic card) for failures and foreign meta.
 *
 * @example Usage
 * ```ts
 * import { presentBashResult } from "./bash.ts";
 * import { deepEqual } from "node:assert/strict";
 * const meta = { outputChars: 4, outputNewline: true, exitCode: 2 };
 * const content = [{ type: "text" as const, text: "boom\n[exit code: 2]" }];
 * deepEqual(presentBashResult({ command: "x" }, { content, isError: false, meta }), { card: "terminal", output: "boom\n", exitCode: 2 });
 * ```
 */
export function presentBashResult(
  _args: BashArgs,
  result: ToolResult,
): TerminalResultView | undefined {
  const meta = result.meta;
  if (result.isError || typeof meta !== "object" || meta === null || Array.isArray(meta)) {
    return undefined;
  }
  const { outputChars, outputNewline, exitCode, signal, output: logged } = meta as Record<
    string,
    unknown
  >;
  const first = result.content[0];
  let output: string;
  // Logs written before the output was stored once keep it in `meta.output`.
  if (typeof logged === "string") output = logged;
  else if (typeof outputChars === "number" && first?.type === "text") {
    output = bashOutputOf(first.text, { outputChars, outputNewline: outputNewline === true });
  } else return undefined;
  const view: { -readonly [K in keyof TerminalResultView]: TerminalResultView[K] } = {
    card: "terminal",
    output,
  };
  if (typeof exitCode === "number") view.exitCode = exitCode;
  if (typeof signal === "string") view.signal = signal;
  return view;
}

/** The `meta` of a completed foreground run. */
export function bashMeta(summary: CaptureSummary, run: RunResult): BashMeta {
  // The text keeps the output minus one trailing newline (formatBashText).
  const newline = summary.text.endsWith("\n");
  const meta: { -readonly [K in keyof BashMeta]: BashMeta[K] } = {
    outputChars: summary.text.length - (newline ? 1 : 0),
    exitCode: run.exitCode,
  };
  if (newline) meta.outputNewline = true;
  if (run.signal !== null) meta.signal = run.signal;
  if (run.timedOut) meta.timedOut = true;
  if (run.pipeHeldOpen) meta.pipeHeldOpen = true;
  if (summary.spillPath !== undefined) meta.spillPath = summary.spillPath;
  return meta;
}
