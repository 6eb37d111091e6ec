/**
 * `ctx.jobs`: long-running work with ids, honest statuses, cursor reads, process-tree kill,
 * completion notices, an owner fence and no orphans.
 *
 * @module
 */
import { withBackground, type WithBackgroundOptions } from "./with_background.ts";
import type { AgentHandle, ToolDefinition } from "../tools/definition.ts";
import { type Executor, executorFor } from "../tools/executor.ts";
import { type FollowSettings, isDetachedExecutor } from "./_detached_follow.ts";
import {
  adoptedProducer,
  adoptionProblem,
  pendingDetachedJobs,
  tellRenamed,
} from "./detached_jobs.ts";
import {
  accessRecord,
  checkServiceOptions,
  followSettings,
  isTerminal,
  type JobRecord,
  KIND_REGEXP,
  makeSpillDir,
  newRecord,
  snapshotOf,
  waitUntil,
} from "./_job_record.ts";
import {
  abandonWithNotice,
  finishOwnerPoll,
  JobIds,
  killerOf,
  outputBuffer,
  resolveOwner,
  runProducer,
  shutdownRecords,
  stopRecord,
} from "./_job_lifecycle.ts";
import type {
  AdoptReport,
  DetachedJobRecord,
  JobKillResult,
  JobRead,
  JobReadOptions,
  JobServiceOptions,
  JobSnapshot,
  JobStartOptions,
} from "./types.ts";

/**
 * The jobs service. One instance per harness (the `jobsPlugin` provides it as `ctx.jobs`).
 *
 * @example Usage
 * ```ts
 * import { JobService } from "./job_service.ts";
 * import { equal } from "node:assert/strict";
 * await using jobs = new JobService();
 * const id = jobs.start({ kind: "demo", label: "count", run: (job) => job.output.write("1 2 3") });
 * await jobs.wait(id);
 * const read = await jobs.read(id);
 * equal(read.text, "1 2 3");
 * equal(read.job.status, "completed");
 * ```
 */
export class JobService implements AsyncDisposable {
  #options: JobServiceOptions;
  #follow: FollowSettings;
  #jobs = new Map<string, JobRecord>();
  #ids = new JobIds();
  #spillDir: string | undefined;
  #disposed = false;
  #detachedExecutors = new Map<string, Executor>();

  /**
   * Creates a service.
   *
   * @param options Spill directory, window size, kill timings, agent lookup.
   * @throws {RangeError} When a numeric option is negative or not an integer.
   */
  constructor(options: JobServiceOptions = {}) {
    checkServiceOptions(options);
    this.#options = options;
    this.#follow = followSettings(options);
  }

  /**
   * Starts a job: calls `run` once, synchronously, with a job-owned signal and output sink.
   *
   * @param options Kind, label, owner and producer.
   * @returns The job id, `<kind>-<n>`.
   * @throws {TypeError} When the kind is invalid, the owner agent is disposed or the service is disposed.
   */
  start(options: JobStartOptions): string {
    const { kind, label, owner, run } = options;
    if (typeof kind !== "string" || !KIND_REGEXP.test(kind)) {
      throw new TypeError(
        `Cannot start job as 'kind' must match ${KIND_REGEXP}: current value is ${
          JSON.stringify(kind)
        }`,
      );
    }
    return this.#create({ kind, label: String(label), owner, run }).id;
  }

  /**
   * Adopts a durable job another agent process started (a `job/detached` record of the session
   * log): follows its run through `executor` as a job owned by `owner`, so `job_output`,
   * `job_kill` and `job_list` work on it and its end (even one that happened while no agent ran)
   * is the usual completion notice. A run whose environment is gone ends `failed` as lost.
   *
   * @param record The logged record.
   * @param executor The session's executor (it must have the detached trio).
   * @param owner The agent now running the session (notices go to it) or a session id.
   * @returns The job's id here: the record's own, or a fresh one when that id is taken.
   * @throws {TypeError} When the executor cannot read detached runs or the service is disposed.
   */
  adopt(record: DetachedJobRecord, executor: Executor, owner?: AgentHandle | string): string {
    if (!isDetachedExecutor(executor)) {
      throw new TypeError(
        `Cannot adopt job ${record.jobId}: the ${executor.kind} executor cannot read detached runs`,
      );
    }
    this.#ids.countPast(record.jobId);
    return this.#create({
      kind: record.kind,
      label: record.label,
      owner,
      startedAt: record.startedAt,
      ...(this.#jobs.has(record.jobId) ? {} : { id: record.jobId }),
      run: adoptedProducer(record, executor),
    }).id;
  }

  /**
   * Adopts every durable job of a session log that has not ended (see {@linkcode adopt}) through
   * the executor registered for its kind ({@linkcode useDetachedExecutor}) or the one given, and
   * waits for each first read (a job that ended meanwhile has its notice queued before the next
   * turn). Job ids seen in the log are not reused.
   *
   * @param events The session's events (`agent.events`).
   * @param owner The agent that loaded the session.
   * @param executor Overrides the registered executors (its session's is used).
   * @returns The adopted jobs and the records that could not be read.
   */
  async adoptFromLog(
    events: readonly { readonly type: string; readonly [key: string]: unknown }[],
    owner: AgentHandle,
    executor?: Executor,
  ): Promise<AdoptReport> {
    const { pending, seen, invalid } = pendingDetachedJobs(events);
    for (const id of seen) this.#ids.countPast(id);
    const adopted: { id: string; jobId: string }[] = [];
    const problems = [...invalid];
    const mine = [...this.#jobs.values()].filter((job) => job.owner === owner.sessionId);
    const live = new Set(mine.map((job) => job.durable?.logId));
    for (const record of pending.filter((record) => !live.has(record.jobId))) {
      const chosen = executor ?? this.#detachedExecutors.get(record.kind);
      const session = chosen && executorFor(chosen, owner.sessionId);
      const problem = adoptionProblem(record, session);
      if (problem !== undefined) {
        problems.push(problem);
        continue;
      }
      const id = this.adopt(record, session!, owner);
      if (id !== record.jobId) tellRenamed(owner, record.jobId, id);
      adopted.push({ id, jobId: record.jobId });
    }
    await Promise.all(adopted.map(({ id }) => this.#jobs.get(id)!.durable!.firstRead.promise));
    return { adopted, invalid: problems };
  }

  /**
   * Names the executor whose detached runs jobs of `kind` use, for {@linkcode adoptFromLog}
   * (the bash plugin registers its own for `bash`).
   *
   * @param kind The job kind (tool name).
   * @param executor Its executor (the session's is derived with `forSession`).
   */
  useDetachedExecutor(kind: string, executor: Executor): void {
    this.#detachedExecutors.set(kind, executor);
  }

  #create(init: {
    readonly kind: string;
    readonly label: string;
    readonly owner: AgentHandle | string | undefined;
    readonly run: JobStartOptions["run"];
    readonly id?: string;
    readonly startedAt?: string;
  }): JobRecord {
    if (this.#disposed) throw new TypeError("Cannot start job: the job service is disposed");
    const { ownerId, agent } = resolveOwner(init.owner, this.#options.agentFor);
    const id = init.id ?? this.#ids.next(init.kind);
    const record = newRecord({
      id,
      kind: init.kind,
      label: init.label,
      owner: ownerId,
      agent,
      ...(init.startedAt !== undefined ? { startedAt: init.startedAt } : {}),
      buffer: outputBuffer(
        this.#spillDir ??= makeSpillDir(this.#options.spillDir),
        id,
        this.#options.windowBytes,
      ),
      follow: this.#follow,
    });
    this.#jobs.set(id, record);
    runProducer(record, init.run, this.#options);
    return record;
  }

  /**
   * Makes a tool runnable in the background through this service (see {@linkcode withBackground}).
   *
   * @typeParam Args The tool's argument type.
   * @param definition The tool.
   * @param options The job label function.
   * @returns The wrapped definition with a `run_in_background` parameter.
   * @throws {TypeError} When the schema already declares `run_in_background`.
   */
  wrap<Args>(
    definition: ToolDefinition<Args>,
    options?: WithBackgroundOptions<Args>,
  ): ToolDefinition<Args> {
    return withBackground(definition, this, options);
  }

  /**
   * A snapshot of one job.
   *
   * @param id The job id.
   * @param caller The asking session (`undefined`: the embedder).
   * @returns The snapshot.
   * @throws {HarnessError} `JOB_NOT_FOUND` for an unknown id, `JOB_FORBIDDEN` for another session's job.
   */
  get(id: string, caller?: string): JobSnapshot {
    return snapshotOf(accessRecord(this.#jobs, id, caller));
  }

  /**
   * Snapshots of the caller's jobs and unowned jobs (every job for the embedder), oldest first.
   *
   * @param caller The asking session (`undefined`: the embedder).
   * @returns The snapshots.
   */
  list(caller?: string): JobSnapshot[] {
    return [...this.#jobs.values()]
      .filter((job) => caller === undefined || job.owner === undefined || job.owner === caller)
      .map((job) => snapshotOf(job));
  }

  /**
   * Reads output from an explicit cursor; any number of independent readers may do this.
   * With `waitMs`, waits (event-driven) for output past the cursor or for the job to stop running.
   *
   * @param id The job id.
   * @param options Cursor, size, wait, caller and a signal that stops the wait.
   * @returns The new output, the next cursor and a snapshot.
   * @throws {HarnessError} `JOB_NOT_FOUND` / `JOB_FORBIDDEN`.
   */
  async read(id: string, options: JobReadOptions = {}): Promise<JobRead> {
    const { cursor = 0, maxBytes = 65536, waitMs = 0, caller, signal } = options;
    const record = accessRecord(this.#jobs, id, caller);
    if (waitMs > 0) {
      await waitUntil(
        record,
        () => record.buffer.total > cursor || record.status !== "running",
        waitMs,
        signal,
      );
    }
    const job = snapshotOf(record);
    const slice = await record.buffer.read(cursor, maxBytes);
    return {
      text: slice.text,
      start: slice.start,
      next: slice.next,
      total: slice.total,
      dropped: slice.dropped,
      job,
    };
  }

  /**
   * The model-facing read: continues from the caller's own cursor and advances it. A read that
   * reaches the end of a finished job marks it reported for its owner (no notice follows).
   *
   * @param id The job id.
   * @param options Size, wait, caller and signal (`cursor` is ignored).
   * @returns The delta since the caller's previous poll.
   * @throws {HarnessError} `JOB_NOT_FOUND` / `JOB_FORBIDDEN`.
   */
  async poll(id: string, options: Omit<JobReadOptions, "cursor"> = {}): Promise<JobRead> {
    const record = accessRecord(this.#jobs, id, options.caller);
    const key = options.caller ?? "";
    const isOwner = record.owner !== undefined && options.caller === record.owner;
    // While the owner's poll is in flight, a settlement's notice waits for the poll's answer.
    if (isOwner) record.ownerPolls++;
    let read: JobRead | undefined;
    try {
      read = await this.read(id, { ...options, cursor: record.cursors.get(key) ?? 0 });
      record.cursors.set(key, Math.max(read.next, record.cursors.get(key) ?? 0));
    } finally {
      if (isOwner) finishOwnerPoll(record, read);
    }
    return read.job.reported === record.reported
      ? read
      : { ...read, job: { ...read.job, reported: record.reported } };
  }

  /**
   * Waits until the job settles or `timeoutMs` passes; the job is never affected.
   *
   * @param id The job id.
   * @param options Timeout (default: no limit), caller and a signal that stops the wait.
   * @returns The snapshot at the end of the wait.
   * @throws {HarnessError} `JOB_NOT_FOUND` / `JOB_FORBIDDEN`.
   */
  async wait(
    id: string,
    options: {
      readonly timeoutMs?: number;
      readonly caller?: string;
      readonly signal?: AbortSignal;
    } = {},
  ): Promise<JobSnapshot> {
    const record = accessRecord(this.#jobs, id, options.caller);
    await waitUntil(
      record,
      () => isTerminal(record.status),
      options.timeoutMs ?? Infinity,
      options.signal,
    );
    return snapshotOf(record);
  }

  /**
   * Kills a job: aborts its signal, takes every tracked process tree down (SIGTERM, grace, SIGKILL),
   * and waits for the producer to settle and the processes to be reaped.
   *
   * @param id The job id.
   * @param options The reason and the calling session (`undefined`: the embedder).
   * @returns `killed` (the producer settled, or was abandoned at `killWaitMs`: see
   *   `detail.abandoned`) or `already-finished`.
   * @throws {HarnessError} `JOB_NOT_FOUND` / `JOB_FORBIDDEN`.
   */
  async kill(
    id: string,
    options: { readonly reason?: string; readonly caller?: string } = {},
  ): Promise<JobKillResult> {
    const { reason, caller } = options;
    const record = accessRecord(this.#jobs, id, caller);
    if (isTerminal(record.status)) {
      return { outcome: "already-finished", job: snapshotOf(record) };
    }
    stopRecord(record, killerOf(caller, record.owner), reason, this.#options);
    const waitMs = this.#options.killWaitMs ?? 10_000;
    await waitUntil(record, () => isTerminal(record.status), waitMs);
    // No job stays in `stopping`: past the deadline the producer is abandoned.
    abandonWithNotice(record, waitMs);
    const job = snapshotOf(record);
    return { outcome: isTerminal(job.status) ? "killed" : "stopping", job };
  }

  /**
   * Kills every job of a session (running ones and leftover process groups of finished ones) and
   * forgets them; a durable job is released instead (its run goes on, a later load adopts it).
   * No notices are sent. Call it when the session or its agent is disposed. Waits up to
   * `killWaitMs` per job for its producer to settle.
   *
   * @param sessionId The owner session.
   * @param reason Recorded in each job's detail. @default {"owner session disposed"}
   * @returns Resolves once every job settled.
   */
  async disposeOwner(sessionId: string, reason = "owner session disposed"): Promise<void> {
    const records = [...this.#jobs.values()].filter((job) => job.owner === sessionId);
    await shutdownRecords(records, "owner-disposed", reason, this.#options);
    for (const record of records) this.#jobs.delete(record.id);
  }

  /**
   * Kills every job (releases every durable one) and refuses new ones (waits up to `killWaitMs`
   * per job). Idempotent.
   *
   * @returns Resolves once every job settled.
   */
  async dispose(): Promise<void> {
    this.#disposed = true;
    const records = [...this.#jobs.values()];
    await shutdownRecords(records, "service-disposed", "job service disposed", this.#options);
  }

  /** Same as {@linkcode JobService.dispose}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}
