/**
 * One spill policy for every tool result: a `tools/post-execute` listener that replaces any text
 * result over a size cap with a head and tail preview, exact omitted counts and the path of the
 * full result, and records the cut in the session log.
 *
 * @module
 */
import type { ContentBlock } from "../tools/content.ts";
import type { ToolMiddleware } from "../registry/types.ts";

/** Options for {@linkcode spillPolicy}. */
export interface SpillPolicyOptions {
  /** Largest text result (UTF-8 bytes, all text blocks joined by newlines) passed through whole. @default {40000} */
  readonly maxInlineBytes?: number;
  /** Where full results go. @default {a fresh `Deno.makeTempDir` directory, made on first spill} */
  readonly dir?: string;
  /** Tools whose results are never cut (they page themselves). @default {["job_output"]} */
  readonly skip?: readonly string[];
}

/** Where a preview cut a text. */
export interface SpillCut {
  /** The replacement text (at most the cap). */
  readonly preview: string;
  /** Bytes of the full text. */
  readonly totalBytes: number;
  /** Lines of the full text. */
  readonly totalLines: number;
  /** Bytes left out of the preview. */
  readonly omittedBytes: number;
  /** Lines with omitted bytes (whole lines when `wholeLines`, else some are cut). */
  readonly omittedLines: number;
  /** First line (1-based) with omitted bytes. */
  readonly omittedFromLine: number;
  /** Last line with omitted bytes. */
  readonly omittedToLine: number;
  /** True when the cut falls on line boundaries (the omitted lines are whole). */
  readonly wholeLines: boolean;
}

const NL = 0x0a;
const ENCODER = new TextEncoder();

function countLines(bytes: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (bytes[i] === NL) n++;
  return n;
}

function headEnd(bytes: Uint8Array, budget: number): number {
  const newline = bytes.lastIndexOf(NL, budget - 1);
  if (newline >= budget / 2) return newline + 1;
  let end = budget;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return end;
}

function tailStart(bytes: Uint8Array, budget: number, floor: number): number {
  let start = Math.max(floor, bytes.length - budget);
  const newline = bytes.indexOf(NL, start);
  if (newline !== -1 && newline < start + budget / 2 && newline + 1 < bytes.length) {
    return newline + 1;
  }
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return start;
}

/**
 * Cuts the middle out of a text so the result fits `maxBytes`: about 40% head and 60% tail,
 * on line boundaries when a line break is near, with a marker stating exactly what was omitted
 * and where the full text is. Returns `undefined` when the text already fits.
 *
 * @param text The full text.
 * @param maxBytes The cap (at least 512).
 * @param path Where the full text is stored.
 * @returns The cut, or `undefined`.
 * @throws {RangeError} When `maxBytes` is below 512.
 *
 * @example Usage
 * ```ts
 * import { cutMiddle } from "./spill_policy.ts";
 * import { equal } from "node:assert/strict";
 * const text = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join("\n");
 * const cut = cutMiddle(text, 1000, "/tmp/full.txt")!;
 * equal(new TextEncoder().encode(cut.preview).length <= 1000, true);
 * equal(cut.preview.startsWith("line 1\n"), true);
 * equal(cut.preview.endsWith("line 1000"), true);
 * equal(cut.totalLines, 1000);
 * equal(cut.preview.includes(`omitted ${cut.omittedBytes} bytes of ${text.length} and ${cut.omittedLines} lines of 1000`), true);
 * ```
 */
export function cutMiddle(text: string, maxBytes: number, path: string): SpillCut | undefined {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 512) {
    throw new RangeError(
      `Cannot cut text as 'maxBytes' must be an integer of at least 512: current value is ${maxBytes}`,
    );
  }
  const bytes = ENCODER.encode(text);
  if (bytes.length <= maxBytes) return undefined;
  const totalLines = countLines(bytes, 0, bytes.length) + (bytes.at(-1) === NL ? 0 : 1);
  const decoder = new TextDecoder();
  let reserve = 400 + path.length;
  for (;;) {
    const budget = Math.max(0, maxBytes - reserve);
    const head = headEnd(bytes, Math.floor(budget * 0.4));
    const tail = tailStart(bytes, budget - head, head);
    const from = 1 + countLines(bytes, 0, head);
    const to = from + countLines(bytes, head, tail - 1);
    const wholeLines = (head === 0 || bytes[head - 1] === NL) && bytes[tail - 1] === NL;
    const omittedBytes = tail - head;
    const omittedLines = to - from + 1;
    const range = from === to ? `line ${from}` : `lines ${from}–${to}`;
    const counts = `omitted ${omittedBytes} bytes of ${bytes.length} ${
      wholeLines ? "and" : "from"
    } ${omittedLines} ${omittedLines === 1 ? "line" : "lines"} of ${totalLines}`;
    const marker = `[output truncated: ${counts} (${
      wholeLines ? "" : "part of "
    }${range}). Full result: ${path} — read it with offset/limit or grep it]`;
    const headText = decoder.decode(bytes.subarray(0, head));
    const tailText = decoder.decode(bytes.subarray(tail));
    const preview = `${headText}${wholeLines || head === 0 ? "" : "\n"}${marker}\n${tailText}`;
    const size = ENCODER.encode(preview).length;
    if (size <= maxBytes || budget === 0) {
      return {
        preview,
        totalBytes: bytes.length,
        totalLines,
        omittedBytes,
        omittedLines,
        omittedFromLine: from,
        omittedToLine: to,
        wholeLines,
      };
    }
    reserve += size - maxBytes;
  }
}

/**
 * Builds the spill policy, `tools/post-execute` middleware:
 * `ctx.tools.use("tools/post-execute", spillPolicy(options))`.
 *
 * It applies to every accepted result (native, plugin and MCP tools alike) except: nested Code
 * Mode calls (`exec.parent` set; the program consumes the full value and the enclosing `run_code`
 * result is itself capped), tools in `skip`, and results whose text fits. The full text goes to
 * `<dir>/<callId>-<random>.txt`; the cut is recorded with `exec.agent.appendEvent("tool/spill", …)`.
 * On any failure the original result is kept.
 *
 * @param options Cap, directory and skip list.
 * @returns The middleware.
 * @throws {RangeError} When `maxInlineBytes` is below 512.
 *
 * @example Usage
 * ```ts
 * import { spillPolicy } from "./spill_policy.ts";
 * import { equal } from "node:assert/strict";
 * const middleware = spillPolicy({ maxInlineBytes: 1024 });
 * equal(typeof middleware, "function");
 * ```
 */
export function spillPolicy(options: SpillPolicyOptions = {}): ToolMiddleware {
  const { maxInlineBytes = 40_000, dir, skip = ["job_output"] } = options;
  if (!Number.isSafeInteger(maxInlineBytes) || maxInlineBytes < 512) {
    throw new RangeError(
      `Cannot create spill policy as 'maxInlineBytes' must be an integer of at least 512: current value is ${maxInlineBytes}`,
    );
  }
  const skipped = new Set(skip);
  let spillDir: Promise<string> | undefined;
  return async function spill({ exec }, next) {
    const outcome = await next();
    if (exec.parent !== undefined || skipped.has(exec.name)) return outcome;
    const content: readonly ContentBlock[] = outcome.content;
    const texts = content.filter((block) => block.type === "text");
    if (texts.length === 0) return outcome;
    const full = texts.map((block) => block.text).join("\n");
    if (full.length <= maxInlineBytes / 3 && ENCODER.encode(full).length <= maxInlineBytes) {
      return outcome;
    }
    try {
      spillDir ??= dir !== undefined
        ? Deno.mkdir(dir, { recursive: true }).then(() => dir)
        : Deno.makeTempDir({ prefix: "dsh_spill_" });
      const safeId = exec.callId.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 80);
      const path = `${await spillDir}/${safeId}-${crypto.randomUUID().slice(0, 8)}.txt`;
      const cut = cutMiddle(full, maxInlineBytes, path);
      if (cut === undefined) return outcome;
      await Deno.writeTextFile(path, full);
      exec.agent?.appendEvent("tool/spill", {
        callId: exec.callId,
        name: exec.name,
        path,
        totalBytes: cut.totalBytes,
        totalLines: cut.totalLines,
        omittedBytes: cut.omittedBytes,
        omittedLines: cut.omittedLines,
        omittedFromLine: cut.omittedFromLine,
        omittedToLine: cut.omittedToLine,
        keptBytes: cut.totalBytes - cut.omittedBytes,
      });
      const first = content.indexOf(texts[0]!);
      const replaced: ContentBlock[] = content.filter((block) => block.type !== "text");
      replaced.splice(first, 0, { type: "text", text: cut.preview });
      return { ...outcome, content: replaced };
    } catch {
      return outcome;
    }
  };
}

/**
 * Removes files older than `maxAgeMs` (by modification time) from a spill directory.
 *
 * @param dir The directory (a missing one counts as empty).
 * @param options `maxAgeMs` (default 7 days) and an injectable clock.
 * @returns How many files were removed.
 *
 * @example Usage
 * ```ts
 * import { cleanupSpillFiles } from "./spill_policy.ts";
 * import { equal } from "node:assert/strict";
 * equal(await cleanupSpillFiles("/nonexistent/dsh-spill"), 0);
 * ```
 */
export async function cleanupSpillFiles(
  dir: string,
  options: { readonly maxAgeMs?: number; readonly now?: () => number } = {},
): Promise<number> {
  const { maxAgeMs = 7 * 24 * 3600 * 1000, now = Date.now } = options;
  const cutoff = now() - maxAgeMs;
  let removed = 0;
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile) continue;
      const path = `${dir}/${entry.name}`;
      const stat = await Deno.stat(path).catch(() => undefined);
      if (stat?.mtime !== null && stat?.mtime !== undefined && stat.mtime.getTime() < cutoff) {
        await Deno.remove(path).then(() => removed++, () => undefined);
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return removed;
}
