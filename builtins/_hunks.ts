/**
 * Applied-hunk diffs for write/edit cards: a structured patch (3 lines of context) turned into one
 * `FileDiff` per hunk. Identical leading and trailing lines are trimmed before diffing
 * (keeping the context), so a small edit of a large file stays fast.
 *
 * @module
 */
import { structuredPatch } from "diff";

/** One applied hunk as stored in `meta.diffs` (a JSON-shaped `FileDiff`). */
export type MetaDiff = {
  /** The absolute path. */
  readonly path: string;
  /** Context and removed lines, or `null` when there are none. */
  readonly oldText: string | null;
  /** Context and added lines. */
  readonly newText: string;
};

const CONTEXT = 3;

/** Length of the common prefix. */
function commonPrefix(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Length of the common suffix, at most `limit`. */
function commonSuffix(a: string, b: string, limit: number): number {
  let i = 0;
  const ai = a.length - 1;
  const bi = b.length - 1;
  while (i < limit && a.charCodeAt(ai - i) === b.charCodeAt(bi - i)) i++;
  return i;
}

/**
 * The line-aligned region `[start, oldEnd)` / `[start, newEnd)` holding every change plus
 * {@linkcode CONTEXT} lines on each side; outside it both texts are identical.
 */
function changedRegion(a: string, b: string): [number, number, number] {
  const prefix = commonPrefix(a, b);
  const suffix = commonSuffix(a, b, Math.min(a.length, b.length) - prefix);
  let start = a.lastIndexOf("\n", prefix - 1) + 1;
  for (let i = 0; i < CONTEXT && start > 0; i++) start = a.lastIndexOf("\n", start - 2) + 1;
  let end = a.length - suffix;
  for (let i = 0; i <= CONTEXT && end < a.length; i++) {
    const nl = a.indexOf("\n", end);
    end = nl < 0 ? a.length : nl + 1;
  }
  // The trimmed tail lies inside the common suffix, so it is the same string in both texts.
  return [start, end, b.length - (a.length - end)];
}

/**
 * Computes per-hunk diffs between two texts.
 *
 * @param path The file path put on each diff.
 * @param before The old text, or `null` for a create (no hunks).
 * @param after The new text.
 * @returns One diff per hunk: context and removed lines as `oldText` (`null` when empty),
 * context and added lines as `newText`.
 */
export function computeHunkDiffs(path: string, before: string | null, after: string): MetaDiff[] {
  if (before === null || before === after) return [];
  const [start, oldEnd, newEnd] = changedRegion(before, after);
  const oldPart = before.slice(start, oldEnd);
  const newPart = after.slice(start, newEnd);
  const patch = structuredPatch(path, path, oldPart, newPart, undefined, undefined, {
    context: CONTEXT,
  });
  return patch.hunks.map((hunk) => {
    const oldSide: string[] = [];
    const newSide: string[] = [];
    for (const line of hunk.lines) {
      const mark = line[0];
      const text = line.slice(1);
      if (mark === " ") {
        oldSide.push(text);
        newSide.push(text);
      } else if (mark === "-") oldSide.push(text);
      else if (mark === "+") newSide.push(text);
    }
    return {
      path,
      oldText: oldSide.length === 0 ? null : oldSide.join("\n"),
      newText: newSide.join("\n"),
    };
  });
}
