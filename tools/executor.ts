/**
 * The executor seam: bash, the fs tools, the jobs layer and Code Mode touch the system only
 * through an {@linkcode Executor}. The local executor (`builtins/local_executor.ts`) and the
 * bubblewrap box (`builtins/sandbox.ts`) run on this machine; a remote executor (see `remote/`) runs the same calls in a
 * sandbox elsewhere. One interface covers processes (spawn with streamed output, exit, tree kill),
 * files (read, write, stat, list, remove) and the environment's lifecycle (create or reattach,
 * detach, destroy). See docs/contracts.md §11.
 *
 * @module
 */

/** Options for {@linkcode Executor.run}. */
export interface RunOptions {
  /** Working directory. @default {the process cwd} */
  readonly cwd?: string;
  /**
   * Extra environment variables, merged over the inherited ones (which pass through the
   * executor's environment policy first: secrets and `DEEPSEEK_API_KEY` never reach the command).
   * @default {inherited only}
   */
  readonly env?: Record<string, string>;
  /** Abort kills the whole process tree; `run` then resolves with `aborted: true`. */
  readonly signal?: AbortSignal;
  /** Kill the tree after this many milliseconds; `run` then resolves with `timedOut: true`. */
  readonly timeoutMs?: number;
  /**
   * Receives output chunks as produced (stdout and stderr merged); a returned promise applies
   * backpressure. A chunk is a view of a reused buffer, valid until the returned promise settles:
   * copy it to keep it.
   */
  readonly onOutput?: (chunk: Uint8Array) => void | Promise<void>;
  /** Time between SIGTERM and SIGKILL when killing. @default {1000} */
  readonly killGraceMs?: number;
  /** Called with the group leader's pid right after the spawn (for example to register it with a job). */
  readonly onSpawn?: (pid: number) => void;
}

/** How a command ended. The tree is gone when this resolves. */
export interface RunResult {
  /** The group leader's pid (also the process group id). */
  readonly pid: number;
  /** Exit code, or `null` when a signal ended the shell. */
  readonly exitCode: number | null;
  /** The signal that ended the shell, such as `SIGTERM`. */
  readonly signal: string | null;
  /** True when `timeoutMs` elapsed and the tree was killed. */
  readonly timedOut: boolean;
  /** True when `signal` aborted and the tree was killed. */
  readonly aborted: boolean;
  /**
   * True when a descendant (one that escaped the process tree) still held the output pipe open
   * after the command ended and its tree was killed: reading stopped, later output is lost.
   */
  readonly pipeHeldOpen?: boolean;
}

/** A file's metadata. */
export interface FileStat {
  /** Regular file. */
  readonly isFile: boolean;
  /** Directory. */
  readonly isDirectory: boolean;
  /** Size in bytes. */
  readonly size: number;
  /** Modification time in ms since the epoch, when known. */
  readonly mtimeMs: number | null;
}

/** One entry of {@linkcode Executor.readDir}. */
export interface DirEntry {
  /** The entry's name (no slash). */
  readonly name: string;
  /** Regular file. */
  readonly isFile: boolean;
  /** Directory. */
  readonly isDirectory: boolean;
  /** Symbolic link (not followed). */
  readonly isSymlink: boolean;
}

/** Options for {@linkcode Executor.spawn}. */
export interface SpawnOptions {
  /** Arguments after the program. @default {[]} */
  readonly args?: readonly string[];
  /** Working directory. @default {the executor's default} */
  readonly cwd?: string;
  /** Environment variables, merged over the policy-filtered inherited ones unless `clearEnv`. */
  readonly env?: Record<string, string>;
  /** Start from an empty environment (then only `env`). @default {false} */
  readonly clearEnv?: boolean;
  /** `"piped"` gives the child a writable stdin. @default {"null"} */
  readonly stdin?: "piped" | "null";
  /** Abort kills the child's whole process tree. */
  readonly signal?: AbortSignal;
}

/** How a spawned process ended. */
export interface ExecStatus {
  /** `code === 0`. */
  readonly success: boolean;
  /** Exit code (128 + n after signal n, as a shell reports it). */
  readonly code: number;
  /** The signal that ended it, such as `"SIGKILL"`, else `null`. */
  readonly signal: string | null;
}

/** A process started by {@linkcode Executor.spawn}; its stdout and stderr must be read. */
export interface ExecChild {
  /** The process id in the executor's environment (also its process group id). */
  readonly pid: number;
  /** The child's stdin, when spawned with `stdin: "piped"`. */
  readonly stdin: WritableStream<Uint8Array> | null;
  /** The child's stdout. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** The child's stderr. */
  readonly stderr: ReadableStream<Uint8Array>;
  /** Resolves when the process ended. */
  readonly status: Promise<ExecStatus>;
  /** Kills the child's whole process group. @default {"SIGKILL"} */
  kill(signal?: string): Promise<void>;
}

/** What {@linkcode Executor.openFile} found at a file's real path before it opened it. */
export interface FoundFile extends FileStat {
  /** A symbolic link (a link appeared after the path was resolved). */
  readonly isSymlink: boolean;
}

/** Options for {@linkcode Executor.openFile}. */
export interface OpenFileOptions {
  /** `"read"` opens read-only; `"write"` read-write, without truncating. */
  readonly access: "read" | "write";
  /** Create the file (and missing folders) when nothing exists at the real path. @default {false} */
  readonly create?: boolean;
  /**
   * Asked with the real path (every symlink followed) before anything is opened: a returned text
   * refuses the call with `FS_CHANGED` (the policies judged the call on another path).
   */
  readonly check?: (real: string) => Promise<string | undefined>;
  /** Judges what is at the real path (`undefined`: nothing) before the open; throw to refuse. */
  readonly inspect?: (found: FoundFile | undefined) => void;
}

/**
 * A file opened by {@linkcode Executor.openFile}: every read and write of one tool call goes
 * through this handle, so the call reads and rewrites the very file it judged.
 */
export interface OpenedFile {
  /** The real path that was opened. */
  readonly real: string;
  /** Its metadata at the open. */
  readonly info: FileStat;
  /** True when this open created the file. */
  readonly created: boolean;
  /** The content from the current offset, chunk by chunk (a chunk is valid until the next). */
  chunks(): AsyncGenerator<Uint8Array>;
  /** The rest of the content. */
  readAll(): Promise<Uint8Array>;
  /** Replaces the whole content in place (truncate, write); resolves with the metadata after. */
  replace(data: Uint8Array): Promise<FileStat>;
  /** Closes the handle (idempotent). */
  close(): void;
}

/**
 * What a session log records so a later process can reattach to the same environment (for
 * example `{ provider: "deno-sandbox", id: "sbx_…" }`). JSON only.
 */
export interface ExecutorRecord {
  /** The provider that made it: `"local"`, `"bwrap"`, `"deno-sandbox"`, … */
  readonly provider: string;
  /** The remote environment's id, when there is one. */
  readonly id?: string;
  /** Provider-specific JSON details (region, expiry). */
  readonly [key: string]: string | number | boolean | null | undefined;
}

/**
 * A command started by {@linkcode Executor.startDetached}: it runs on in the executor's
 * environment after this process exits, writing its merged output and its exit status to files
 * there. JSON only, so a session log can hold it.
 */
export interface DetachedRun {
  /** The environment it runs in. */
  readonly environment: ExecutorRecord;
  /** The process group id in that environment. */
  readonly pid: number;
  /** The file that receives stdout and stderr, merged. */
  readonly outputPath: string;
  /** The file that receives the exit status once the command ended. */
  readonly exitPath: string;
}

/** What {@linkcode Executor.readDetached} saw. */
export interface DetachedRead {
  /** Output bytes from the cursor on (at most the requested amount). */
  readonly bytes: Uint8Array;
  /** Total output bytes so far. */
  readonly total: number;
  /** Set once the command ended. */
  readonly exit?: { readonly exitCode: number | null; readonly signal: string | null };
}

/**
 * The capability every builtin tool goes through. Errors are HarnessErrors whose message names
 * the operation, the path and, for Deno permission denials, the missing permission. Paths are
 * the agent's paths (the workspace as the user sees it); a remote executor maps them.
 */
export interface Executor {
  /** `"local"`, `"bwrap"`, `"deno-sandbox"` or a custom kind. */
  readonly kind: string;
  /**
   * True when paths are this machine's own and Deno's file APIs reach them, so the fs tools may
   * use the race-free local handles (see `_pinned_open.ts`); false for a remote environment.
   */
  readonly hostFiles: boolean;
  /** Runs `command` with `bash -c` in its own process group (stderr merged into stdout). */
  run(command: string, options?: RunOptions): Promise<RunResult>;
  /** Starts a program with piped output (Code Mode's sandbox, for example). */
  spawn(program: string, options?: SpawnOptions): Promise<ExecChild>;
  /** Reads a whole file. */
  readFile(path: string): Promise<Uint8Array>;
  /** Creates or overwrites a file, creating missing parent directories. */
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  /** Metadata, or `undefined` when nothing exists at `path`. */
  stat(path: string): Promise<FileStat | undefined>;
  /** The entries of a directory, sorted by name. */
  readDir(path: string): Promise<DirEntry[]>;
  /** Removes a file or an empty directory (`recursive`: a whole tree); missing is fine. */
  remove(path: string, options?: { readonly recursive?: boolean }): Promise<void>;
  /**
   * The executor of one session. A remote provider gives each session its own environment; a
   * local executor returns itself.
   */
  forSession(sessionId: string): Executor;
  /**
   * Creates the environment now, or reattaches the one `resume` names (else the first call
   * creates it). Resolves with what to record for a later reattach.
   */
  open(resume?: ExecutorRecord): Promise<ExecutorRecord>;
  /** Stops using the environment and leaves it to its timeout, reattachable by its record. */
  detach(): Promise<void>;
  /** Destroys the environment: every process and file in it. Local executors have nothing to destroy. */
  destroy(): Promise<void>;
  /**
   * Opens one file for a tool call through a race-checked handle: the path resolved once, the
   * policies asked about the real path, the object opened verified to be the one found there (see
   * `builtins/_safe_fs.ts`). Optional: without it the fs tools use `stat`, `readFile` and
   * `writeFile` (see {@linkcode openFileOf}). Errors: `FS_CHANGED` on any swap, `NOT_FOUND`,
   * `PERMISSION_DENIED`, `FS_ERROR`.
   */
  openFile?(path: string, options: OpenFileOptions): Promise<OpenedFile>;
  /**
   * Starts `command` so that it survives this process (durable background jobs). Absent where
   * jobs die with the agent (local: the PID namespace ends with it).
   */
  startDetached?(
    command: string,
    options: { readonly id: string; readonly cwd?: string; readonly env?: Record<string, string> },
  ): Promise<DetachedRun>;
  /** Reads a detached run's output from `cursor` (at most `maxBytes`) and whether it ended. */
  readDetached?(run: DetachedRun, cursor: number, maxBytes: number): Promise<DetachedRead>;
  /** Signals a detached run's whole process group. */
  killDetached?(run: DetachedRun, signal: string): Promise<void>;
}

/**
 * The executor a tool call uses: its session's own when the call has one.
 *
 * @param executor The tool's executor.
 * @param sessionId The calling session (`exec.agent?.sessionId`), if any.
 * @returns The session's executor, or `executor` itself.
 *
 * @example Usage
 * ```ts ignore
 * import { executorFor } from "./executor.ts";
 * import { LocalExecutor } from "../builtins/local_executor.ts";
 * import { equal } from "node:assert/strict";
 * const local = new LocalExecutor();
 * equal(executorFor(local, "s1"), local);
 * ```
 */
export function executorFor(executor: Executor, sessionId: string | undefined): Executor {
  return sessionId === undefined ? executor : executor.forSession(sessionId);
}

/**
 * The script `bash -c` receives: stderr is merged into stdout first, so the output interleaves
 * exactly as produced (`$LINENO` is one higher than in the user's text).
 *
 * @param command The user's command.
 * @returns The script.
 *
 * @example Usage
 * ```ts
 * import { mergedScript } from "./executor.ts";
 * import { equal } from "node:assert/strict";
 * equal(mergedScript("ls"), "exec 2>&1\nls");
 * ```
 */
export function mergedScript(command: string): string {
  return `exec 2>&1\n${command}`;
}
