/**
 * The executor capability seam: builtin tools touch the system only through an {@linkcode Executor}.
 * {@linkcode LocalExecutor} runs commands with `Deno.Command` in their own process group and does
 * file I/O under the agent's Deno permissions; a sandboxed executor (see `sandbox.ts`) sits behind
 * the same interface.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import { describeFsError } from "./_fs_errors.ts";
import { resolvePath } from "./_paths.ts";
import { spawnTree } from "./_spawn.ts";
import { readVerified, writeVerified } from "./_safe_io.ts";
import { childEnv, type EnvPolicy } from "../core/env_policy.ts";

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

/**
 * The capability every builtin tool goes through. Errors are HarnessErrors whose message names
 * the operation, the path and, for Deno permission denials, the missing permission.
 */
export interface Executor {
  /** `"local"`, `"bwrap"` or a custom kind. */
  readonly kind: string;
  /** Runs `command` with `bash -c` in its own process group (stderr merged into stdout). */
  run(command: string, options?: RunOptions): Promise<RunResult>;
  /** Reads a whole file. */
  readFile(path: string): Promise<Uint8Array>;
  /** Creates or overwrites a file, creating missing parent directories. */
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  /** Metadata, or `undefined` when nothing exists at `path`. */
  stat(path: string): Promise<FileStat | undefined>;
}

/** `path` made absolute against the process cwd and lexically normalized. */
function absolute(path: string): string {
  return resolvePath(path, Deno.cwd());
}

/** What one run starts (see {@linkcode LocalExecutor.launch}). */
export interface Launch {
  /** The argv (without the `setsid` prefix). */
  readonly argv: string[];
  /** Bytes written to the launcher's stdin, then closed (the command itself gets `/dev/null`). */
  readonly input?: Uint8Array;
  /** Called once the run's process tree is gone. */
  readonly done?: () => Promise<void>;
}

/** Options for {@linkcode LocalExecutor}. */
export interface LocalExecutorOptions {
  /** The shell. @default {"bash"} */
  readonly shell?: string;
  /**
   * The environment policy for commands (see `core/env_policy.ts`).
   * @default {the process-wide policy of setEnvPolicy}
   */
  readonly envPolicy?: EnvPolicy;
  /**
   * Run each command in its own PID namespace when the host allows it (see
   * jobs/process_containment.ts), so no descendant outlives the call. `false` tracks the tree by
   * process group and environment marker only (commands then see and may signal host processes,
   * but a double-forked daemon with a cleared environment escapes). @default {true}
   */
  readonly pidNamespace?: boolean;
}

/**
 * The script `bash -c` receives: stderr is merged into stdout first, so the output interleaves
 * exactly as produced (`$LINENO` is one higher than in the user's text).
 *
 * @param command The user's command.
 * @returns The script.
 */
export function mergedScript(command: string): string {
  return `exec 2>&1\n${command}`;
}

/**
 * Runs commands on the host (each in its own session and process group via `setsid`) with a
 * scrubbed environment (see `core/env_policy.ts`) and does file I/O with the Deno runtime's
 * permissions.
 *
 * @example Usage
 * ```ts ignore
 * import { LocalExecutor } from "./executor.ts";
 * import { equal } from "node:assert/strict";
 * const chunks: Uint8Array[] = [];
 * const result = await new LocalExecutor().run("echo hi; exit 3", { onOutput: (c) => void chunks.push(c) });
 * equal(result.exitCode, 3);
 * ```
 */
export class LocalExecutor implements Executor {
  /** `"local"`. */
  readonly kind: string = "local";
  /** The shell program. */
  readonly shell: string;
  /** The environment policy, when one was given (else the process-wide one applies). */
  readonly envPolicy: EnvPolicy | undefined;
  /** Whether commands run in their own PID namespace (when the host allows it). */
  readonly pidNamespace: boolean;

  /**
   * Creates a local executor.
   *
   * @param options The shell and the environment policy.
   */
  constructor(options: LocalExecutorOptions = {}) {
    this.shell = options.shell ?? "bash";
    this.envPolicy = options.envPolicy;
    this.pidNamespace = options.pidNamespace ?? true;
  }

  /**
   * The argv that runs `command` (without the `setsid` prefix); sandboxes override it.
   *
   * @param command The user's command.
   * @param _cwd The working directory.
   * @returns The argv.
   */
  argv(command: string, _cwd: string | undefined): string[] {
    return [this.shell, "-c", mergedScript(command)];
  }

  /**
   * Prepares one run: its argv, what its launcher reads on stdin and what to undo after. Sandboxes
   * override it to read the host's state just before the spawn.
   *
   * @param command The user's command.
   * @param cwd The working directory.
   * @returns The launch.
   */
  launch(command: string, cwd: string | undefined): Promise<Launch> {
    return Promise.resolve({ argv: this.argv(command, cwd) });
  }

  /**
   * Runs `command`; kills the whole tree on abort, timeout or when the shell exits.
   *
   * @param command The command.
   * @param options Run options.
   * @returns How it ended.
   * @throws {HarnessError} When the process cannot be spawned (missing permission, missing program).
   */
  async run(command: string, options: RunOptions = {}): Promise<RunResult> {
    if (options.cwd !== undefined) {
      const info = await this.stat(options.cwd);
      if (!info?.isDirectory) {
        throw new HarnessError(
          "NOT_FOUND",
          `Cannot run the command: working directory "${options.cwd}" is not an existing directory`,
        );
      }
    }
    const inherited = this.envPolicy === undefined ? childEnv() : childEnv(this.envPolicy);
    const launch = await this.launch(command, options.cwd);
    try {
      return await spawnTree(
        launch.argv,
        { ...options, env: { ...inherited, ...options.env } },
        this.pidNamespace,
        launch.input,
      );
    } finally {
      await launch.done?.();
    }
  }

  /**
   * Reads a whole file through a handle verified against its resolved path (see
   * `_safe_fs.ts`: a folder or symlink swapped during the call fails with `FS_CHANGED`).
   *
   * @param path The path.
   * @returns The bytes.
   * @throws {HarnessError} `PERMISSION_DENIED`, `NOT_FOUND`, `FS_CHANGED` or `FS_ERROR`.
   */
  async readFile(path: string): Promise<Uint8Array> {
    return await readVerified(absolute(path));
  }

  /**
   * Creates or overwrites a file, creating missing parent directories, through a handle
   * verified against its resolved path (an existing file is rewritten in place).
   *
   * @param path The path.
   * @param data The content.
   * @throws {HarnessError} `PERMISSION_DENIED`, `IS_DIRECTORY`, `FS_CHANGED` or `FS_ERROR`.
   */
  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    await writeVerified(absolute(path), bytes);
  }

  /**
   * Metadata of `path`.
   *
   * @param path The path.
   * @returns The metadata, or `undefined` when nothing exists there.
   * @throws {HarnessError} `PERMISSION_DENIED` or `FS_ERROR`.
   */
  async stat(path: string): Promise<FileStat | undefined> {
    try {
      const info = await Deno.stat(path);
      return {
        isFile: info.isFile,
        isDirectory: info.isDirectory,
        size: info.size,
        mtimeMs: info.mtime?.getTime() ?? null,
      };
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw describeFsError("read", path, error);
    }
  }
}
