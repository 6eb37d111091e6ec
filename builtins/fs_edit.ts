/**
 * The `edit` tool: replaces an exact string in a file (once, or every occurrence with
 * `replace_all`). Its card is a diff from the arguments, then the applied hunks from `meta.diffs`.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import type { ToolResult } from "../tools/definition.ts";
import type { DiffCallView, DiffResultView } from "../tools/views.ts";
import { type DefinedTool, defineTool } from "../tools/define_tool.ts";
import { computeHunkDiffs } from "./_hunks.ts";
import { baseDir } from "./_paths.ts";
import { resolvePath } from "../tools/paths.ts";
import { decodeText, type FsToolOptions, reportObserved, targetCheck } from "./fs_read.ts";
import { DIFF_MAX_BYTES, type FsMutationMeta, metaDiffs } from "./fs_write.ts";
import { versionOf } from "./_fs_stream.ts";
import type { ContentBlock } from "../tools/content.ts";
import { fsChanged } from "./_pinned_open.ts";
import { executorFor } from "../tools/executor.ts";
import { openFileOf } from "../tools/exec_file.ts";

/** The arguments of `edit`. */
export interface EditArgs {
  /** Absolute, or relative to the session cwd. */
  readonly file_path: string;
  /** The exact text to replace (non-empty). */
  readonly old_string: string;
  /** Its replacement. */
  readonly new_string: string;
  /** Replace every occurrence instead of exactly one. */
  readonly replace_all?: boolean;
}

/** The `edit` parameters map. */
export const EDIT_PARAMETERS = {
  file_path: {
    type: "string",
    required: true,
    description: "The file to edit: absolute, or relative to the working directory.",
  },
  old_string: {
    type: "string",
    required: true,
    description: "The exact text to replace, including whitespace; it must occur exactly once " +
      "unless replace_all is true.",
  },
  new_string: { type: "string", required: true, description: "The replacement text." },
  replace_all: { type: "boolean", description: "Replace every occurrence. Default false." },
} as const;

/**
 * The pending card: old and new strings as a diff.
 *
 * @param args The call's arguments.
 * @returns The diff view.
 *
 * @example Usage
 * ```ts
 * import { presentEditCall } from "./fs_edit.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(presentEditCall({ file_path: "a", old_string: "x", new_string: "y" }).diffs, [{ path: "a", oldText: "x", newText: "y" }]);
 * ```
 */
export function presentEditCall(args: EditArgs): DiffCallView {
  const path = args.file_path;
  return {
    card: "diff",
    title: `Edit ${path}`,
    diffs: [{ path, oldText: args.old_string || null, newText: args.new_string }],
    locations: [{ path }],
  };
}

/**
 * The completed card: the applied hunks from `meta.diffs`.
 *
 * @param args The call's arguments.
 * @param result The result.
 * @returns The diff view, or `undefined` (generic card) on failure or malformed meta.
 *
 * @example Usage
 * ```ts
 * import { presentEditResult } from "./fs_edit.ts";
 * import { equal } from "node:assert/strict";
 * equal(presentEditResult({ file_path: "a", old_string: "x", new_string: "y" }, { content: [], isError: false, meta: 1 }), undefined);
 * ```
 */
export function presentEditResult(args: EditArgs, result: ToolResult): DiffResultView | undefined {
  if (result.isError) return undefined;
  const diffs = metaDiffs(result.meta);
  return diffs === undefined ? undefined : { card: "diff", title: `Edit ${args.file_path}`, diffs };
}

/**
 * Counts non-overlapping occurrences of `needle`.
 *
 * @param haystack The text.
 * @param needle The non-empty string.
 * @returns The count.
 *
 * @example Usage
 * ```ts
 * import { countOccurrences } from "./fs_edit.ts";
 * import { equal } from "node:assert/strict";
 * equal(countOccurrences("aaa", "aa"), 1);
 * ```
 */
export function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (
    let at = haystack.indexOf(needle);
    at >= 0;
    at = haystack.indexOf(needle, at + needle.length)
  ) {
    count++;
  }
  return count;
}

function checkArgs(args: EditArgs): void {
  if (args.file_path === "") {
    throw new TypeError(`Cannot edit: 'file_path' must be a non-empty path: current value is ""`);
  }
  if (args.old_string === "") {
    throw new TypeError(
      `Cannot edit "${args.file_path}": 'old_string' must be non-empty: current value is ""; use write to create a file`,
    );
  }
  if (args.old_string === args.new_string) {
    throw new TypeError(
      `Cannot edit "${args.file_path}": 'new_string' must differ from 'old_string': both are ${
        JSON.stringify(args.old_string.slice(0, 200))
      }`,
    );
  }
}

/**
 * Creates the `edit` tool (exclusive).
 *
 * @param options The executor, base cwd and observation hook.
 * @returns The tool definition.
 *
 * @example Usage
 * ```ts
 * import { createEditTool } from "./fs_edit.ts";
 * import { LocalExecutor } from "./local_executor.ts";
 * import { equal } from "node:assert/strict";
 * equal(createEditTool({ executor: new LocalExecutor() }).name, "edit");
 * ```
 */
export function createEditTool(options: FsToolOptions): DefinedTool<typeof EDIT_PARAMETERS> {
  return defineTool({
    name: "edit",
    description: "Replace an exact string in a file. old_string must match exactly once " +
      "(whitespace included) unless replace_all is true. Read the file first.",
    parameters: EDIT_PARAMETERS,
    isConcurrencySafe: () => false,
    presentCall: presentEditCall,
    presentResult: presentEditResult,
    async execute(args, exec) {
      checkArgs(args);
      const path = resolvePath(args.file_path, baseDir(exec.agent?.cwd, options.cwd));
      const executor = executorFor(options.executor, exec.agent?.sessionId);
      const file = await openFileOf(executor, path, {
        access: "write",
        check: targetCheck(options, exec, path),
        inspect(found) {
          if (found?.isSymlink) throw fsChanged("write", path, "a symlink appeared on the way");
          checkSize(path, found);
        },
      });
      try {
        checkSize(path, file.info);
        const before = decodeText(path, await file.readAll());
        const { after, count } = applyEdit(path, before, args);
        exec.signal.throwIfAborted();
        const bytes = new TextEncoder().encode(after);
        const written = await file.replace(bytes);
        reportObserved(options, exec, path, versionOf(bytes, written.mtimeMs));
        return editResult(path, before, after, count, args);
      } finally {
        file.close();
      }
    },
  });
}

/** Refuses a missing file, a non-file and one too large to edit in memory. */
function checkSize(
  path: string,
  info: { readonly isFile: boolean; readonly size: number } | undefined,
): void {
  if (info === undefined) {
    throw new HarnessError("NOT_FOUND", `Cannot edit "${path}": file not found`);
  }
  if (!info.isFile) {
    throw new HarnessError("IS_DIRECTORY", `Cannot edit "${path}": not a regular file`);
  }
  if (info.size > DIFF_MAX_BYTES) {
    throw new HarnessError(
      "FILE_TOO_LARGE",
      `Cannot edit "${path}": it has ${info.size} bytes, more than edit handles (${DIFF_MAX_BYTES}); change it with bash instead`,
    );
  }
}

/** The edited text and the occurrence count; refuses no match or an ambiguous one. */
function applyEdit(
  path: string,
  before: string,
  args: EditArgs,
): { after: string; count: number } {
  const count = countOccurrences(before, args.old_string);
  const all = args.replace_all === true;
  if (count === 0 || (count > 1 && !all)) {
    const hint = count === 0
      ? "it must match the file exactly, including whitespace and indentation; read the file again"
      : "add surrounding lines to make it unique, or set replace_all to true";
    throw new HarnessError(
      "EDIT_MATCH",
      `Cannot edit "${path}": old_string matches ${count} times but must match exactly once; ${hint}`,
    );
  }
  const at = before.indexOf(args.old_string);
  const after = all
    ? before.split(args.old_string).join(args.new_string)
    : before.slice(0, at) + args.new_string + before.slice(at + args.old_string.length);
  return { after, count };
}

/** The tool's result: the applied hunks in `meta.diffs`. */
function editResult(
  path: string,
  before: string,
  after: string,
  count: number,
  args: EditArgs,
): { content: ContentBlock[]; meta: FsMutationMeta } {
  const meta: FsMutationMeta = {
    path,
    operation: "update",
    diffs: computeHunkDiffs(path, before, after),
  };
  const text = args.replace_all === true
    ? `The file ${path} has been updated successfully. All ${count} occurrences of old_string were replaced.`
    : `The file ${path} has been updated successfully.`;
  return { content: [{ type: "text", text }], meta };
}
