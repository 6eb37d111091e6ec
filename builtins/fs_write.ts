/**
 * The `write` tool: creates or overwrites a file. Its card is a diff: at call time from the
 * arguments (`oldText: null`), at result time from the applied hunks kept in `meta.diffs`.
 *
 * @module
 */
import type { ToolExecution, ToolResult } from "../tools/definition.ts";
import type { DiffCallView, DiffResultView, FileDiff } from "../tools/views.ts";
import { type DefinedTool, defineTool } from "../tools/define_tool.ts";
import { computeHunkDiffs, type MetaDiff } from "./_hunks.ts";
import { baseDir } from "./_paths.ts";
import { resolvePath } from "../tools/paths.ts";
import { type FsToolOptions, reportObserved, splitLines, targetCheck } from "./fs_read.ts";
import { versionOf } from "./_fs_stream.ts";
import { fsChanged, refuseNonFileWrite } from "./_safe_fs.ts";
import { type Executor, executorFor } from "../tools/executor.ts";
import { openFileOf } from "../tools/exec_file.ts";

/** Existing files larger than this are overwritten without a diff (bounded memory). */
export const DIFF_MAX_BYTES = 16 * 1024 * 1024;

/** The arguments of `write`. */
export interface WriteArgs {
  /** Absolute, or relative to the session cwd. */
  readonly file_path: string;
  /** The whole new content. */
  readonly content: string;
}

export type { MetaDiff } from "./_hunks.ts";

/** The `meta` of write and edit results. */
export type FsMutationMeta = {
  /** The absolute path. */
  readonly path: string;
  /** `create` or `update` (write), `update` (edit). */
  readonly operation: "create" | "update";
  /** The applied hunks (3 lines of context); empty for a create or an identical overwrite. */
  readonly diffs: readonly MetaDiff[];
};

/** The `write` parameters map. */
export const WRITE_PARAMETERS = {
  file_path: {
    type: "string",
    required: true,
    description: "The file to write: absolute, or relative to the working directory.",
  },
  content: { type: "string", required: true, description: "The complete new content." },
} as const;

/**
 * The pending card: the whole content as a new-file diff.
 *
 * @param args The call's arguments.
 * @returns The diff view.
 *
 * @example Usage
 * ```ts
 * import { presentWriteCall } from "./fs_write.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(presentWriteCall({ file_path: "a.txt", content: "hi" }), {
 *   card: "diff", title: "Write a.txt", diffs: [{ path: "a.txt", oldText: null, newText: "hi" }], locations: [{ path: "a.txt" }],
 * });
 * ```
 */
export function presentWriteCall(args: WriteArgs): DiffCallView {
  const path = args.file_path;
  return {
    card: "diff",
    title: `Write ${path}`,
    diffs: [{ path, oldText: null, newText: args.content }],
    locations: [{ path }],
  };
}

/**
 * Reads `meta.diffs` when it is well formed.
 *
 * @param meta A result's meta.
 * @returns The diffs, or `undefined`.
 */
export function metaDiffs(meta: unknown): FileDiff[] | undefined {
  if (typeof meta !== "object" || meta === null) return undefined;
  const diffs = (meta as { diffs?: unknown }).diffs;
  if (!Array.isArray(diffs)) return undefined;
  const ok = diffs.every((d) =>
    typeof d === "object" && d !== null && typeof d.path === "string" &&
    (d.oldText === null || typeof d.oldText === "string") && typeof d.newText === "string"
  );
  return ok
    ? diffs.map((d) => ({ path: d.path, oldText: d.oldText, newText: d.newText }))
    : undefined;
}

/**
 * The completed card: the applied hunks, or the arguments' diff for a create (or when meta has none).
 *
 * @param args The call's arguments.
 * @param result The result.
 * @returns The diff view, or `undefined` (generic card) on failure.
 *
 * @example Usage
 * ```ts
 * import { presentWriteResult } from "./fs_write.ts";
 * import { equal } from "node:assert/strict";
 * equal(presentWriteResult({ file_path: "a", content: "x" }, { content: [], isError: true }), undefined);
 * ```
 */
export function presentWriteResult(
  args: WriteArgs,
  result: ToolResult,
): DiffResultView | undefined {
  if (result.isError) return undefined;
  const diffs = metaDiffs(result.meta);
  if (diffs !== undefined && diffs.length > 0) {
    return { card: "diff", title: `Write ${args.file_path}`, diffs };
  }
  const call = presentWriteCall(args);
  return { card: "diff", title: call.title, diffs: call.diffs };
}

/**
 * Creates the `write` tool (exclusive).
 *
 * @param options The executor, base cwd and observation hook.
 * @returns The tool definition.
 *
 * @example Usage
 * ```ts
 * import { createWriteTool } from "./fs_write.ts";
 * import { LocalExecutor } from "./local_executor.ts";
 * import { equal } from "node:assert/strict";
 * equal(createWriteTool({ executor: new LocalExecutor() }).name, "write");
 * ```
 */
export function createWriteTool(options: FsToolOptions): DefinedTool<typeof WRITE_PARAMETERS> {
  return defineTool({
    name: "write",
    description: "Create a file or overwrite it with new content (missing directories are " +
      "created). Prefer edit for changes to an existing file; read it first.",
    parameters: WRITE_PARAMETERS,
    isConcurrencySafe: () => false,
    presentCall: presentWriteCall,
    presentResult: presentWriteResult,
    async execute(args, exec) {
      if (args.file_path === "") {
        throw new TypeError(
          `Cannot write: 'file_path' must be a non-empty path: current value is ""`,
        );
      }
      const path = resolvePath(args.file_path, baseDir(exec.agent?.cwd, options.cwd));
      const bytes = new TextEncoder().encode(args.content);
      const executor = executorFor(options.executor, exec.agent?.sessionId);
      const { before, created } = await writeThrough(options, exec, executor, path, bytes);
      const lines = splitLines(args.content).length;
      const meta: FsMutationMeta = {
        path,
        operation: created ? "create" : "update",
        diffs: before === null ? [] : computeHunkDiffs(path, before, args.content),
      };
      const verb = created ? "Created" : "Updated";
      const count = `${lines} ${lines === 1 ? "line" : "lines"}`;
      return { content: [{ type: "text", text: `${verb} file ${path} (${count})` }], meta };
    },
  });
}

/**
 * A write through the executor's file handle (for the local executors a verified one, see
 * `_safe_fs.ts`): the real path is checked with the policies, then opened (created when missing)
 * and verified; the old content for the diff is read through the same handle, which is then
 * rewritten in place.
 */
async function writeThrough(
  options: FsToolOptions,
  exec: ToolExecution,
  executor: Executor,
  path: string,
  bytes: Uint8Array,
): Promise<{ before: string | null; created: boolean }> {
  const check = targetCheck(options, exec, path);
  const file = await openFileOf(executor, path, {
    access: "write",
    create: true,
    async check(real) {
      const refusal = await check(real);
      if (refusal === undefined) exec.signal.throwIfAborted();
      return refusal;
    },
    inspect: (found) => refuseNonFileWrite(path, found),
  });
  try {
    if (!file.info.isFile) {
      throw fsChanged("write", path, `"${file.real}" is no longer a regular file`);
    }
    const before = file.created || file.info.size > DIFF_MAX_BYTES
      ? null
      : new TextDecoder().decode(await file.readAll());
    exec.signal.throwIfAborted();
    const written = await file.replace(bytes);
    reportObserved(options, exec, path, versionOf(bytes, written.mtimeMs));
    return { before, created: file.created };
  } finally {
    file.close();
  }
}
