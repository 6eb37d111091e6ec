/**
 * The `read` tool: a line-numbered window of a text file, with caps per line and per call that
 * say when they cut. Binary files are refused. A successful read reports the file as observed
 * (the read-before-edit policy listens), with the version it saw.
 *
 * The file is streamed: memory stays bounded whatever its size (the window, at most 50 KiB of
 * text plus one line, is all that is kept). Binary detection looks at the first 8 KiB only (a
 * NUL byte or invalid UTF-8 there); later invalid bytes read as U+FFFD.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import type { ToolExecution } from "../tools/definition.ts";
import type { GenericCallView } from "../tools/views.ts";
import { type DefinedTool, defineTool } from "../tools/define_tool.ts";
import { checkRange } from "../tools/arg_error.ts";
import { baseDir } from "./_paths.ts";
import { resolvePath } from "../tools/paths.ts";
import { type Executor, executorFor, type FileStat, type FoundFile } from "../tools/executor.ts";
import { openFileOf } from "../tools/exec_file.ts";
import type { ContentBlock } from "../tools/content.ts";
import { fsChanged } from "./_pinned_open.ts";
import type { FileVersion, FsTarget } from "./_fs_types.ts";
import {
  READ_MAX_BYTES,
  READ_MAX_LINE_CHARS,
  READ_MAX_LINES,
  READ_SNIFF_BYTES,
  scanFile,
  type WindowLine,
} from "./_read_scan.ts";

export { READ_MAX_BYTES, READ_MAX_LINE_CHARS, READ_MAX_LINES, READ_SNIFF_BYTES };
export type { FileVersion, FsTarget } from "./_fs_types.ts";

/** The arguments of `read`. */
export interface ReadArgs {
  /** Absolute, or relative to the session cwd. */
  readonly file_path: string;
  /** First line, 1-based. */
  readonly offset?: number;
  /** How many lines. */
  readonly limit?: number;
}

/** What an fs tool reports after it saw a file's content (`fs/observed`). */
export interface FsObservation {
  /** The session, or `""` without an agent. */
  readonly sessionId: string;
  /** The absolute path. */
  readonly path: string;
  /** Which tool saw it. */
  readonly tool: string;
  /** The content it saw (size, mtime, hash), for the stale-write check. */
  readonly version?: FileVersion;
}

/** Options shared by the fs tools. */
export interface FsToolOptions {
  /** Where file I/O goes. */
  readonly executor: Executor;
  /** Base of relative paths when the call has no agent. @default {Deno.cwd()} */
  readonly cwd?: string;
  /** Called after a successful read, write or edit (the plugin emits `fs/observed`). */
  readonly onObserved?: (observation: FsObservation) => void;
  /**
   * Asked, with the real path a local call is about to open, whether the policies judged this
   * call on that path; a string refuses the call with that text (`FS_CHANGED`) before any I/O.
   * The plugin asks the `fs/target` listeners (the workspace policy).
   */
  readonly checkTarget?: (exec: ToolExecution, target: FsTarget) => Promise<string | undefined>;
}

/** The `read` parameters map. */
export const READ_PARAMETERS = {
  file_path: {
    type: "string",
    required: true,
    description: "The file to read: absolute, or relative to the working directory.",
  },
  offset: { type: "integer", description: "The first line to read, 1-based. Default 1." },
  limit: { type: "integer", description: "How many lines to read. Default and maximum 2000." },
} as const;

/**
 * The pending card: `Read <path>` plus the window, kind `read`, one location.
 *
 * @param args The call's arguments.
 * @returns The generic view.
 *
 * @example Usage
 * ```ts
 * import { presentReadCall } from "./fs_read.ts";
 * import { equal } from "node:assert/strict";
 * equal(presentReadCall({ file_path: "a.ts", offset: 5, limit: 10 }).title, "Read a.ts (5 - 14)");
 * ```
 */
export function presentReadCall(args: ReadArgs): GenericCallView {
  const { file_path: path, offset, limit } = args;
  let suffix = "";
  if (limit !== undefined) suffix = ` (${offset ?? 1} - ${(offset ?? 1) + limit - 1})`;
  else if (offset !== undefined) suffix = ` (from line ${offset})`;
  return {
    card: "generic",
    title: `Read ${path}${suffix}`,
    kind: "read",
    locations: [{ path, line: offset ?? 1 }],
  };
}

/**
 * Formats a window of `lines` as the model-facing envelope.
 *
 * @param path The absolute path.
 * @param lines The file's lines (without terminators).
 * @param offset The first line, 1-based.
 * @param limit Most lines.
 * @returns The envelope text and the last line shown.
 *
 * @example Usage
 * ```ts
 * import { formatReadWindow } from "./fs_read.ts";
 * import { equal } from "node:assert/strict";
 * const { text } = formatReadWindow("/a", ["x", "y"], 1, 2000);
 * equal(text, "<path>/a</path>\n<type>file</type>\n<content>\n1: x\n2: y\n(End of file - total 2 lines)\n</content>");
 * ```
 */
export function formatReadWindow(
  path: string,
  lines: readonly string[],
  offset: number,
  limit: number,
): { text: string; last: number } {
  const window = lines.slice(offset - 1, offset - 1 + limit).map((text) => ({
    text,
    chars: text.length,
  }));
  return formatWindowRows(path, window, offset, limit, lines.length);
}

function formatWindowRows(
  path: string,
  window: readonly WindowLine[],
  offset: number,
  limit: number,
  total: number,
): { text: string; last: number } {
  const rows: string[] = [];
  let bytes = 0;
  let capped = false;
  let last = offset - 1;
  const encoder = new TextEncoder();
  for (let i = 0; i < window.length && i < limit; i++) {
    const n = offset + i;
    const { chars } = window[i]!;
    let line = window[i]!.text;
    if (chars > READ_MAX_LINE_CHARS) {
      line = `${line.slice(0, READ_MAX_LINE_CHARS)}… [line truncated: ${chars} characters]`;
    }
    const row = `${n}: ${line}`;
    const size = encoder.encode(row).length + 1;
    if (bytes + size > READ_MAX_BYTES && rows.length > 0) {
      capped = true;
      break;
    }
    bytes += size;
    rows.push(row);
    last = n;
  }
  let footer: string;
  if (total === 0) footer = "(End of file - total 0 lines)";
  else if (last >= total) footer = `(End of file - total ${total} lines)`;
  else if (capped) {
    footer = `(Output capped at 50 KiB: showing lines ${offset}-${last} of ${total}. ` +
      `Use offset=${last + 1} to read more.)`;
  } else {
    footer = `(Showing lines ${offset}-${last} of ${total}. Use offset=${last + 1} to read more.)`;
  }
  const text = [`<path>${path}</path>`, "<type>file</type>", "<content>", ...rows, footer]
    .join("\n") + "\n</content>";
  return { text, last };
}

/**
 * Splits text into lines; a final terminator does not start another line.
 *
 * @param text The text.
 * @returns The lines.
 */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

function checkArgs(args: ReadArgs): void {
  if (args.file_path === "") {
    throw new TypeError(`Cannot read: 'file_path' must be a non-empty path: current value is ""`);
  }
  // Lines are 1-based; the same message shape as every argument error.
  checkRange(args, "offset", { min: 1, integer: true });
  checkRange(args, "limit", { min: 1, max: READ_MAX_LINES, integer: true });
}

/**
 * Decodes text or refuses binary content (a NUL byte or invalid UTF-8).
 *
 * @param path For the message.
 * @param bytes The content.
 * @returns The text.
 * @throws {HarnessError} `BINARY_FILE`.
 */
export function decodeText(path: string, bytes: Uint8Array): string {
  const refuse = () =>
    new HarnessError(
      "BINARY_FILE",
      `Cannot read "${path}": it is a binary file (${bytes.length} bytes); read returns text only`,
    );
  if (bytes.subarray(0, READ_SNIFF_BYTES).includes(0)) throw refuse();
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw refuse();
  }
}

/**
 * Reports an observation through `onObserved` and the session log (`fs/observed`).
 *
 * @param options The tool options.
 * @param exec The execution.
 * @param path The absolute path.
 * @param version The content the tool saw or wrote.
 */
export function reportObserved(
  options: FsToolOptions,
  exec: ToolExecution,
  path: string,
  version?: FileVersion,
): void {
  const sessionId = exec.agent?.sessionId ?? "";
  options.onObserved?.(
    version === undefined
      ? { sessionId, path, tool: exec.name }
      : { sessionId, path, tool: exec.name, version },
  );
  try {
    exec.agent?.appendEvent("fs/observed", { path, tool: exec.name, callId: exec.callId });
  } catch { /* the agent is gone */ }
}

/**
 * Creates the `read` tool (concurrency-safe).
 *
 * @param options The executor, base cwd and observation hook.
 * @returns The tool definition.
 *
 * @example Usage
 * ```ts
 * import { createReadTool } from "./fs_read.ts";
 * import { LocalExecutor } from "./local_executor.ts";
 * import { equal } from "node:assert/strict";
 * equal(createReadTool({ executor: new LocalExecutor() }).isConcurrencySafe?.({ file_path: "a" }), true);
 * ```
 */
export function createReadTool(options: FsToolOptions): DefinedTool<typeof READ_PARAMETERS> {
  return defineTool({
    name: "read",
    description: "Read a text file. Returns numbered lines (`N: text`); use offset and limit " +
      "to page through long files. Lines over 2000 characters and output over 50 KiB are cut " +
      "with a note. Binary files are refused.",
    parameters: READ_PARAMETERS,
    isConcurrencySafe: () => true,
    presentCall: presentReadCall,
    async execute(args, exec) {
      checkArgs(args);
      const path = resolvePath(args.file_path, baseDir(exec.agent?.cwd, options.cwd));
      const executor = executorFor(options.executor, exec.agent?.sessionId);
      const file = await openFileOf(executor, path, {
        access: "read",
        check: targetCheck(options, exec, path),
        inspect: (found) => void fileKind(path, found),
      });
      try {
        if (!file.info.isFile) {
          throw fsChanged("read", path, `"${file.real}" is not a regular file`);
        }
        return await readWindow(options, exec, args, path, file.info, file.chunks());
      } finally {
        file.close();
      }
    },
  });
}

/**
 * The policies' check of the real path a call is about to open (`FsToolOptions.checkTarget`),
 * as the executor's `openFile` asks it.
 *
 * @param options The tool options.
 * @param exec The execution.
 * @param path The absolute path the call named.
 * @returns The check (no refusal without `checkTarget`).
 */
export function targetCheck(
  options: FsToolOptions,
  exec: ToolExecution,
  path: string,
): (real: string) => Promise<string | undefined> {
  const check = options.checkTarget;
  return (real) => check === undefined ? Promise.resolve(undefined) : check(exec, { path, real });
}

/** Refuses what `read` does not read; a symlink here means the path changed since it resolved. */
function fileKind(path: string, info: FoundFile | FileStat | undefined): FileStat {
  if (info === undefined) {
    throw new HarnessError("NOT_FOUND", `Cannot read "${path}": file not found`);
  }
  if ("isSymlink" in info && info.isSymlink) {
    throw fsChanged("read", path, "a symlink appeared on the way");
  }
  if (info.isDirectory) {
    throw new HarnessError(
      "IS_DIRECTORY",
      `Cannot read "${path}": it is a directory; list it with bash (ls) instead`,
    );
  }
  if (!info.isFile) {
    // A device or a FIFO could block or never end.
    throw new HarnessError(
      "NOT_A_FILE",
      `Cannot read "${path}": it is not a regular file (a device, FIFO or socket)`,
    );
  }
  return info;
}

/** The window of one read, from `chunks` (the opened file's). */
async function readWindow(
  options: FsToolOptions,
  exec: ToolExecution,
  args: ReadArgs,
  path: string,
  info: FileStat,
  chunks: AsyncGenerator<Uint8Array>,
): Promise<ContentBlock[]> {
  const offset = args.offset ?? 1;
  const limit = args.limit ?? READ_MAX_LINES;
  const scan = await scanFile(path, info.size, offset, limit, exec.signal, chunks);
  if (offset > Math.max(scan.total, 1)) {
    throw new RangeError(
      `Cannot read "${path}" from line ${offset}: the file has ${scan.total} lines`,
    );
  }
  const { text } = formatWindowRows(path, scan.window, offset, limit, scan.total);
  const version: FileVersion = scan.hash === undefined
    ? { size: scan.size, mtimeMs: info.mtimeMs }
    : { size: scan.size, mtimeMs: info.mtimeMs, hash: scan.hash };
  reportObserved(options, exec, path, version);
  return [{ type: "text", text }];
}
