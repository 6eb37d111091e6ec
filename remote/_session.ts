/**
 * Private: one session's executor on its own Deno Sandbox (see `deno_sandbox_executor.ts`).
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import type { Sandbox, Signal } from "@deno/sandbox";
import { HarnessError } from "../core/errors.ts";
import { NEVER_PASSED_ENV_VARS } from "../core/env_policy.ts";
import type {
  DetachedRead,
  DetachedRun,
  DirEntry,
  ExecChild,
  ExecStatus,
  Executor,
  ExecutorRecord,
  FileStat,
  RunOptions,
  RunResult,
  SpawnOptions,
} from "../tools/executor.ts";
import { PROVIDER, type SandboxLink } from "./_connection.ts";
import { disconnected, fsError, gone, isConnectionLoss, unavailable } from "./_errors.ts";
import { readDirRemote, readRemote, removeRemote, statRemote, writeRemote } from "./_files.ts";
import { checkedPath } from "./_paths.ts";
import { runInSandbox, signalGroup } from "./_run.ts";
import { safeStdin, safeStream } from "./_streams.ts";
import { readRemoteRun, startRemote } from "./_detached.ts";
import type { SyncTarget, WorkspaceSync } from "./workspace_sync.ts";

/** What every session of a provider shares. */
export interface SessionSettings {
  /** The workspace first, then the writable roots (normalized, absolute). */
  readonly roots: readonly string[];
  /** The explicit environment of every command. */
  readonly env: Readonly<Record<string, string>>;
  /** The workspace sync, if any. */
  readonly sync?: WorkspaceSync;
  /** The provider's routing (`forSession`). */
  readonly forSession: (sessionId: string) => Executor;
}

/** `env` without the variables that never enter a command (`DEEPSEEK_API_KEY`). */
function cleanEnv(
  ...layers: (Readonly<Record<string, string>> | undefined)[]
): Record<string, string> {
  const out: Record<string, string> = Object.assign({}, ...layers);
  for (const name of NEVER_PASSED_ENV_VARS) delete out[name];
  return out;
}

/** The executor of one session: its calls go to the session's own sandbox. */
export class SandboxSessionExecutor implements Executor {
  /** `"deno-sandbox"`. */
  readonly kind: string = PROVIDER;
  /** Paths are the sandbox's (the same absolute paths, another machine). */
  readonly hostFiles: boolean = false;
  /** The session. */
  readonly sessionId: string;
  readonly #link: SandboxLink;
  readonly #settings: SessionSettings;
  #synced = -1;
  #syncing: Promise<void> = Promise.resolve();
  readonly #pulledRuns = new Set<string>();

  /**
   * Made by the provider ({@linkcode DenoSandboxExecutor.forSession}), not directly.
   *
   * @param link The session's sandbox link.
   * @param settings What the provider's sessions share.
   */
  constructor(link: SandboxLink, settings: SessionSettings) {
    this.sessionId = link.sessionId;
    this.#link = link;
    this.#settings = settings;
  }

  /** The sandbox id, once created or reattached. */
  get sandboxId(): string | undefined {
    return this.#link.id;
  }

  #path(path: string, what: string): string {
    return checkedPath(path, this.#settings.roots, what, this.#link.name);
  }

  /** The live sandbox with the host's edits pushed (the whole workspace once per sandbox). */
  async #ready(): Promise<Sandbox> {
    const sandbox = await this.#link.sandbox();
    const sync = this.#settings.sync;
    await this.#serial(async () => {
      if (this.#synced !== this.#link.generation) {
        // A new (or reattached) sandbox: the workspace and roots exist at their host paths.
        const generation = this.#link.generation;
        await this.#makeRoots(sandbox);
        if (sync !== undefined) await sync.upload(this.#target(sandbox));
        this.#synced = generation;
      } else if (sync !== undefined) {
        await sync.push(this.#target(sandbox));
      }
    });
    return sandbox;
  }

  /** Runs sync steps one at a time (parallel calls must not upload or pull twice at once). */
  #serial(step: () => Promise<void>): Promise<void> {
    const next = this.#syncing.then(step);
    this.#syncing = next.catch(() => {});
    return next;
  }

  async #makeRoots(sandbox: Sandbox): Promise<void> {
    for (const root of this.#settings.roots) {
      try {
        await sandbox.fs.mkdir(root, { recursive: true });
      } catch (error) {
        throw fsError("write", root, this.#link.name, error);
      }
    }
  }

  async #pull(): Promise<void> {
    const sync = this.#settings.sync;
    if (sync === undefined) return;
    const sandbox = await this.#link.sandbox();
    await this.#serial(async () => void await sync.pull(this.#target(sandbox)));
  }

  /** The sync's view of the sandbox (workspace paths, no push/pull around its own calls). */
  #target(sandbox: Sandbox): SyncTarget {
    const name = this.#link.name;
    return {
      readFile: (path) => readRemote(sandbox, path, name),
      writeFile: (path, data) => writeRemote(sandbox, path, data, name),
      remove: (path, options) => removeRemote(sandbox, path, options?.recursive === true, name),
      capture: async (script) => {
        const child = await sandbox.spawn("bash", {
          args: ["-c", script],
          cwd: this.#settings.roots[0]!,
          stdout: "piped",
          stderr: "piped",
        });
        const output = await child.output();
        if (!output.status.success) {
          throw new HarnessError(
            "FS_ERROR",
            `Cannot list the workspace in the ${name}: exit code ${output.status.code}: ${
              (output.stderrText ?? "").trim().slice(0, 300)
            }`,
          );
        }
        return output.stdoutText ?? "";
      },
    };
  }

  /**
   * Runs `command` in the session's sandbox (see `_run.ts`); the workspace syncs around it.
   *
   * @param command The command.
   * @param options As local.
   * @returns How it ended.
   */
  async run(command: string, options: RunOptions = {}): Promise<RunResult> {
    const cwd = this.#path(options.cwd ?? this.#settings.roots[0]!, "run the command in");
    const sandbox = await this.#ready();
    const env = cleanEnv(this.#settings.env, options.env);
    const result = await runInSandbox(command, { link: this.#link, sandbox, cwd, env }, options);
    await this.#pull();
    return result;
  }

  /**
   * Starts `program` in the sandbox in its own process group (`setsid -w`), output piped.
   *
   * @param program The program.
   * @param options As local.
   * @returns The child; `kill` signals its group.
   */
  async spawn(program: string, options: SpawnOptions = {}): Promise<ExecChild> {
    const cwd = this.#path(options.cwd ?? this.#settings.roots[0]!, "start a program in");
    options.signal?.throwIfAborted();
    const sandbox = await this.#ready();
    const name = this.#link.name;
    const env = options.clearEnv
      ? cleanEnv(options.env)
      : cleanEnv(this.#settings.env, options.env);
    const child = await sandbox.spawn("setsid", {
      args: ["-w", program, ...options.args ?? []],
      cwd,
      env,
      clearEnv: options.clearEnv === true,
      stdin: options.stdin ?? "null",
      stdout: "piped",
      stderr: "piped",
    }).catch((error) => {
      throw isConnectionLoss(error)
        ? disconnected(`start "${program}"`, name, error)
        : unavailable(`start "${program}"`, name, error);
    });
    // The group (`setsid` made the child its leader), then the child itself through the SDK
    // (which never signals a pid the sandbox reaped), in case `setsid` had to fork.
    const kill = async (signal = "SIGKILL") => {
      await signalGroup(sandbox, signal, child.pid);
      await child.kill(signal as Signal).catch(() => {});
    };
    options.signal?.addEventListener("abort", () => void kill(), { once: true });
    const status = child.status.then(
      async (s): Promise<ExecStatus> => {
        await this.#pull().catch(() => {});
        return { success: s.success, code: s.code, signal: s.signal ?? null };
      },
      (error) => {
        throw isConnectionLoss(error)
          ? disconnected(`wait for "${program}"`, name, error, "the next call reconnects")
          : unavailable(`wait for "${program}"`, name, error);
      },
    );
    status.catch(() => {});
    return {
      pid: child.pid,
      stdin: options.stdin === "piped" && child.stdin !== null
        ? safeStdin(child.stdin, status)
        : null,
      stdout: safeStream(child.stdout!, status),
      stderr: safeStream(child.stderr!, status),
      status,
      kill,
    };
  }

  /** Reads a whole file in the sandbox. */
  async readFile(path: string): Promise<Uint8Array> {
    const checked = this.#path(path, "read");
    return await readRemote(await this.#ready(), checked, this.#link.name);
  }

  /** Creates or overwrites a file in the sandbox (parents created), then syncs back. */
  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    const checked = this.#path(path, "write");
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    await writeRemote(await this.#ready(), checked, bytes, this.#link.name);
    await this.#pull();
  }

  /** Metadata in the sandbox, or `undefined`. */
  async stat(path: string): Promise<FileStat | undefined> {
    const checked = this.#path(path, "read");
    return await statRemote(await this.#ready(), checked, this.#link.name);
  }

  /** A directory's entries in the sandbox, sorted. */
  async readDir(path: string): Promise<DirEntry[]> {
    const checked = this.#path(path, "read");
    return await readDirRemote(await this.#ready(), checked, this.#link.name);
  }

  /** Removes a file or tree in the sandbox (missing is fine), then syncs back. */
  async remove(path: string, options: { readonly recursive?: boolean } = {}): Promise<void> {
    const checked = this.#path(path, "write");
    await removeRemote(await this.#ready(), checked, options.recursive === true, this.#link.name);
    await this.#pull();
  }

  /** Another session's executor (the provider's). */
  forSession(sessionId: string): Executor {
    return this.#settings.forSession(sessionId);
  }

  /** Creates the sandbox now or reattaches `resume` (a gone one is replaced: `replaced`). */
  async open(resume?: ExecutorRecord): Promise<ExecutorRecord> {
    const record = await this.#link.open(resume);
    await this.#ready();
    return record;
  }

  /** Closes the connection; the sandbox lives on until its timeout. */
  async detach(): Promise<void> {
    await this.#link.detach();
  }

  /** Destroys the sandbox. */
  async destroy(): Promise<void> {
    await this.#link.destroy();
    this.#synced = -1;
  }

  /** Starts `command` so it survives this process (files under `/tmp/dsh-jobs/<id>`). */
  async startDetached(
    command: string,
    options: { readonly id: string; readonly cwd?: string; readonly env?: Record<string, string> },
  ): Promise<DetachedRun> {
    const cwd = this.#path(options.cwd ?? this.#settings.roots[0]!, "run the command in");
    const sandbox = await this.#ready();
    const environment: ExecutorRecord = { provider: PROVIDER, id: this.#link.id! };
    const env = cleanEnv(this.#settings.env, options.env);
    return await startRemote(
      sandbox,
      environment,
      command,
      { id: options.id, cwd, env },
      this.#link.name,
    );
  }

  /** Reads a detached run's output (reattaching its sandbox first when needed). */
  async readDetached(run: DetachedRun, cursor: number, maxBytes: number): Promise<DetachedRead> {
    const sandbox = await this.#forRun(run, "read the detached run's output");
    const read = await readRemoteRun(sandbox, run, cursor, maxBytes, this.#link.name);
    if (read.exit !== undefined && !this.#pulledRuns.has(run.exitPath)) {
      this.#pulledRuns.add(run.exitPath);
      await this.#pull();
    }
    return read;
  }

  /** Signals a detached run's process group. */
  async killDetached(run: DetachedRun, signal: string): Promise<void> {
    const sandbox = await this.#forRun(run, "signal the detached run");
    await signalGroup(sandbox, signal, run.pid);
  }

  /** The live sandbox of `run`: the session's, reattached by the run's record when new. */
  async #forRun(run: DetachedRun, what: string): Promise<Sandbox> {
    const id = run.environment.id;
    if (run.environment.provider !== PROVIDER || typeof id !== "string") {
      throw new TypeError(
        `Cannot ${what}: it did not run in a Deno Sandbox (${JSON.stringify(run.environment)})`,
      );
    }
    if (this.#link.id === undefined) await this.open(run.environment);
    if (this.#link.id !== id) {
      throw gone(what, `Deno Sandbox ${id} (session ${this.sessionId}) the run was started in`);
    }
    try {
      return await this.#link.sandbox();
    } catch (error) {
      if (error instanceof HarnessError) throw error;
      throw unavailable(what, this.#link.name, new Error(errorMessage(error)));
    }
  }
}
