/**
 * Private: the bash executor of the agent, chosen when a session first needs it. Probing the
 * sandbox (classifying the hidden paths, a trial `bwrap` run) costs subprocesses: start-up and
 * `session/new` no longer pay for it. The first prompt of a session waits for the probe (see
 * `SafetyState.probe`), so the permission rules know whether bash is sandboxed before any tool
 * runs; a command run before that waits for it too.
 *
 * @module
 */
import type {
  DirEntry,
  ExecChild,
  Executor,
  ExecutorRecord,
  FileStat,
  OpenedFile,
  OpenFileOptions,
  RunOptions,
  RunResult,
  SpawnOptions,
} from "../tools/executor.ts";
import { openFileOf } from "../tools/exec_file.ts";

/** An {@linkcode Executor} that creates the real one on first use. */
export class LazyExecutor implements Executor {
  readonly #create: () => Promise<Executor>;
  #pending: Promise<Executor> | undefined;
  #executor: Executor | undefined;

  /** @param create Probes and returns the executor; called once (again after a failure). */
  constructor(create: () => Promise<Executor>) {
    this.#create = create;
  }

  /** The real executor's kind, or `"pending"` before the probe. */
  get kind(): string {
    return this.#executor?.kind ?? "pending";
  }

  /** Local until probed (the agent's lazily chosen executors are all local). */
  get hostFiles(): boolean {
    return this.#executor?.hostFiles ?? true;
  }

  /** Whether the probe ran (an executor was chosen). */
  get probed(): boolean {
    return this.#executor !== undefined;
  }

  /** Runs the probe once; a failed probe is tried again at the next call. */
  ready(): Promise<Executor> {
    this.#pending ??= this.#create().then((executor) => {
      this.#executor = executor;
      return executor;
    }, (error) => {
      this.#pending = undefined;
      throw error;
    });
    return this.#pending;
  }

  /** Runs `command` on the real executor. */
  async run(command: string, options?: RunOptions): Promise<RunResult> {
    return await (await this.ready()).run(command, options);
  }

  /** Reads a file through the real executor. */
  async readFile(path: string): Promise<Uint8Array> {
    return await (await this.ready()).readFile(path);
  }

  /** Writes a file through the real executor. */
  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    await (await this.ready()).writeFile(path, data);
  }

  /** Stats a path through the real executor. */
  async stat(path: string): Promise<FileStat | undefined> {
    return await (await this.ready()).stat(path);
  }

  /** Opens a file through the real executor (its verified handle when it has one). */
  async openFile(path: string, options: OpenFileOptions): Promise<OpenedFile> {
    return await openFileOf(await this.ready(), path, options);
  }

  /** Spawns through the real executor. */
  async spawn(program: string, options?: SpawnOptions): Promise<ExecChild> {
    return await (await this.ready()).spawn(program, options);
  }

  /** Lists a directory through the real executor. */
  async readDir(path: string): Promise<DirEntry[]> {
    return await (await this.ready()).readDir(path);
  }

  /** Removes through the real executor. */
  async remove(path: string, options?: { readonly recursive?: boolean }): Promise<void> {
    await (await this.ready()).remove(path, options);
  }

  /**
   * The real executor's session executor (a local one is itself); before the probe, a lazy one
   * that probes first.
   */
  forSession(sessionId: string): Executor {
    const executor = this.#executor;
    if (executor !== undefined) return executor.forSession(sessionId);
    return new LazyExecutor(async () => (await this.ready()).forSession(sessionId));
  }

  /** Probes, then opens the real executor. */
  async open(resume?: ExecutorRecord): Promise<ExecutorRecord> {
    return await (await this.ready()).open(resume);
  }

  /** Detaches the real executor, if one was chosen. */
  async detach(): Promise<void> {
    await this.#executor?.detach();
  }

  /** Destroys the real executor's environment, if one was chosen. */
  async destroy(): Promise<void> {
    await this.#executor?.destroy();
  }
}
