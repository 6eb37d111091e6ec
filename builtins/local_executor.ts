/**
 * The local executor: commands run on this machine with `setsid` in their own process group
 * (in their own PID namespace where the host allows it), files go through the Deno runtime's
 * permissions and verified handles. The bubblewrap box (`sandbox.ts`) extends it.
 *
 * @module
 */
import { describeFsError } from "./_fs_errors.ts";
import { resolvePath } from "../tools/paths.ts";
import { spawnTree } from "./_spawn.ts";
import { spawnChild } from "./_spawn_child.ts";
import { readVerified, writeVerified } from "./_safe_io.ts";
import { fileStatOf, openLocalFile } from "./_local_files.ts";
import { HarnessError } from "../core/errors.ts";
import { childEnv, type EnvPolicy } from "../core/env_policy.ts";
import { LiveTrees } from "../jobs/process_containment.ts";
import {
  type DirEntry,
  type ExecChild,
  type Executor,
  type ExecutorRecord,
  type FileStat,
  mergedScript,
  type OpenedFile,
  type OpenFileOptions,
  type RunOptions,
  type RunResult,
  type SpawnOptions,
} from "../tools/executor.ts";

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
   * The environment policy for commands (see `core/env_policy.ts`); the agent passes its
   * `dsh.jsonc` `env` (there is no process-wide policy). @default {{}}
   */
  readonly envPolicy?: EnvPolicy;
  /**
   * Where each running process tree is registered, so a shutdown kills them all at once
   * (`liveTrees.killAll()`); the agent binary passes one set for all its executors.
   * @default {a new set of this executor's own}
   */
  readonly liveTrees?: LiveTrees;
  /**
   * Run each command in its own PID namespace when the host allows it (see
   * jobs/process_containment.ts), so no descendant outlives the call. `false` tracks the tree by
   * process group and environment marker only (commands then see and may signal host processes,
   * but a double-forked daemon with a cleared environment escapes). @default {true}
   */
  readonly pidNamespace?: boolean;
}

/**
 * Runs commands on the host (each in its own session and process group via `setsid`) with a
 * scrubbed environment (see `core/env_policy.ts`) and does file I/O with the Deno runtime's
 * permissions.
 *
 * @example Usage
 * ```ts ignore
 * import { LocalExecutor } from "./local_executor.ts";
 * import { equal } from "node:assert/strict";
 * const chunks: Uint8Array[] = [];
 * const result = await new LocalExecutor().run("echo hi; exit 3", { onOutput: (c) => void chunks.push(c) });
 * equal(result.exitCode, 3);
 * ```
 */
export class LocalExecutor implements Executor {
  /** `"local"`. */
  readonly kind: string = "local";
  /** Paths are this machine's. */
  readonly hostFiles: boolean = true;
  /** The shell program. */
  readonly shell: string;
  /** The environment policy, when one was given (else `{}`: the default scrub). */
  readonly envPolicy: EnvPolicy | undefined;
  /** Whether commands run in their own PID namespace (when the host allows it). */
  readonly pidNamespace: boolean;
  /** The running process trees of this executor's commands (see `LocalExecutorOptions`). */
  readonly liveTrees: LiveTrees;

  /**
   * Creates a local executor.
   *
   * @param options The shell and the environment policy.
   */
  constructor(options: LocalExecutorOptions = {}) {
    this.shell = options.shell ?? "bash";
    this.envPolicy = options.envPolicy;
    this.pidNamespace = options.pidNamespace ?? true;
    this.liveTrees = options.liveTrees ?? new LiveTrees();
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
    const inherited = childEnv(this.envPolicy);
    const launch = await this.launch(command, options.cwd);
    try {
      return await spawnTree(
        launch.argv,
        { ...options, env: { ...inherited, ...options.env } },
        this.pidNamespace,
        launch.input,
        this.liveTrees,
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
   * Opens a file for one tool call through a handle verified against its resolved path (see
   * `_safe_fs.ts`): `check` is asked about the real path, `inspect` sees its `lstat`, then every
   * read and write goes through the one handle.
   *
   * @param path The path.
   * @param options Access, creation, the policy check and the inspection.
   * @returns The opened file; close it.
   * @throws {HarnessError} `FS_CHANGED`, `NOT_FOUND`, `PERMISSION_DENIED` or `FS_ERROR`.
   */
  async openFile(path: string, options: OpenFileOptions): Promise<OpenedFile> {
    return await openLocalFile(absolute(path), options);
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
      return fileStatOf(await Deno.stat(path));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw describeFsError("read", path, error);
    }
  }

  /**
   * Starts `program` with piped stdout and stderr, the environment filtered by the policy unless
   * `clearEnv`. `kill` signals the child (Code Mode's sandbox has no descendants).
   *
   * @param program The program.
   * @param options Arguments, cwd, environment, stdin.
   * @returns The child.
   * @throws {HarnessError} `PERMISSION_DENIED` (naming `--allow-run`) or `SPAWN_FAILED`.
   */
  spawn(program: string, options: SpawnOptions = {}): Promise<ExecChild> {
    const inherited = options.clearEnv ? {} : childEnv(this.envPolicy);
    return Promise.resolve(spawnChild(program, options, { ...inherited, ...options.env }));
  }

  /**
   * The entries of a directory, sorted by name.
   *
   * @param path The directory.
   * @returns The entries.
   * @throws {HarnessError} `PERMISSION_DENIED`, `NOT_FOUND` or `FS_ERROR`.
   */
  async readDir(path: string): Promise<DirEntry[]> {
    const entries: DirEntry[] = [];
    try {
      for await (const entry of Deno.readDir(absolute(path))) {
        const { name, isFile, isDirectory, isSymlink } = entry;
        entries.push({ name, isFile, isDirectory, isSymlink });
      }
    } catch (error) {
      throw describeFsError("read", path, error);
    }
    return entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  }

  /**
   * Removes a file or directory; a missing one is fine.
   *
   * @param path The path.
   * @param options `recursive` removes a whole tree.
   * @throws {HarnessError} `PERMISSION_DENIED` or `FS_ERROR`.
   */
  async remove(path: string, options: { readonly recursive?: boolean } = {}): Promise<void> {
    try {
      await Deno.remove(absolute(path), { recursive: options.recursive === true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw describeFsError("write", path, error);
    }
  }

  /** Every session shares this machine: returns itself. */
  forSession(_sessionId: string): Executor {
    return this;
  }

  /** Nothing to create: resolves with `{ provider: kind }`. */
  open(_resume?: ExecutorRecord): Promise<ExecutorRecord> {
    return Promise.resolve({ provider: this.kind });
  }

  /** Nothing to leave running. */
  detach(): Promise<void> {
    return Promise.resolve();
  }

  /** Nothing to destroy: commands end with their call (or job). */
  destroy(): Promise<void> {
    return Promise.resolve();
  }
}
