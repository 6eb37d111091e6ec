/**
 * `ctx.jobs`: long-running work with ids, honest statuses, cursor reads, process-tree kill,
 * completion notices, an owner fence and no orphans.
 *
 * @module
 */
import { formatJobNotice } from "./job_status.ts";
import { OutputBuffer } from "./output_buffer.ts";
import { withBackground, type WithBackgroundOptions } from "./with_background.ts";
import type { ToolDefinition } from "../tools/definition.ts";
import {
  abandonRecord,
  accessRecord,
  controlOf,
  finishRecord,
  isTerminal,
  type JobRecord,
  killLeftoverGroups,
  KIND_REGEXP,
  makeSpillDir,
  newRecord,
  NOTICE_SOURCE,
  reapProcesses,
  snapshotOf,
  waitUntil,
  wake,
} from "./_job_record.ts";
import type {
  JobKiller,
  JobKillResult,
  JobOutcome,
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
  #jobs = new Map<string, JobRecord>();
  #counters = new Map<string, number>();
  #spillDir: string | undefined;
  #disposed = false;

  /**
   * Creates a service.
   *
   * @param options Spill directory, window size, kill timings, agent lookup.
   * @throws {RangeError} When a numeric option is negative or not an integer.
   */
  constructor(options: JobServiceOptions = {}) {
    for (const key of ["windowBytes", "killGraceMs", "killWaitMs"] as const) {
      const value = options[key];
      if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
        throw new RangeError(
          `Cannot create job service as '${key}' must be a non-negative integer: current value is ${value}`,
        );
      }
    }
    this.#options = options;
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
    if (this.#disposed) throw new TypeError("Cannot start job: the job service is disposed");
    const ownerId = typeof owner === "string" ? owner : owner?.sessionId;
    const agent = typeof owner === "object"
      ? owner
      : ownerId !== undefined
      ? this.#options.agentFor?.(ownerId)
      : undefined;
    if (agent?.disposed) {
      throw new TypeError(`Cannot start job: the owner agent of session ${ownerId} is disposed`);
    }
    const n = (this.#counters.get(kind) ?? 0) + 1;
    this.#counters.set(kind, n);
    const id = `${kind}-${n}`;
    const record = newRecord({
      id,
      kind,
      label: String(label),
      owner: ownerId,
      agent,
      buffer: new OutputBuffer({
        spillPath: this.#spillPath(id),
        ...(this.#options.windowBytes !== undefined
          ? { windowBytes: Math.max(1, this.#options.windowBytes) }
          : {}),
      }),
    });
    this.#jobs.set(id, record);
    const control = controlOf(record, () => this.#reap(record));
    let produced: Promise<JobOutcome | void>;
    try {
      produced = Promise.resolve(run(control));
    } catch (error) {
      produced = Promise.reject(error);
    }
    record.settled = produced.then(
      (outcome) => this.#settle(record, outcome, undefined),
      (error) => this.#settle(record, undefined, error),
    );
    return id;
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
      if (isOwner) {
        record.ownerPolls--;
        if (isTerminal(record.status)) {
          if (read !== undefined && isTerminal(read.job.status) && read.next === read.total) {
            record.reported = true;
          } else if (record.ownerPolls === 0) {
            this.#notify(record);
          }
        }
      }
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
    const killer: JobKiller = caller === undefined
      ? "embedder"
      : caller === record.owner
      ? "owner"
      : `session:${caller}`;
    this.#stop(record, killer, reason);
    const waitMs = this.#options.killWaitMs ?? 10_000;
    await waitUntil(record, () => isTerminal(record.status), waitMs);
    // No job stays in `stopping`: past the deadline the producer is abandoned.
    this.#abandon(record, waitMs);
    const job = snapshotOf(record);
    return { outcome: isTerminal(job.status) ? "killed" : "stopping", job };
  }

  /**
   * Kills every job of a session (running ones and leftover process groups of finished ones) and
   * forgets them. No notices are sent. Call it when the session or its agent is disposed. Waits
   * up to `killWaitMs` per job for its producer to settle.
   *
   * @param sessionId The owner session.
   * @param reason Recorded in each job's detail. @default {"owner session disposed"}
   * @returns Resolves once every job settled.
   */
  async disposeOwner(sessionId: string, reason = "owner session disposed"): Promise<void> {
    const records = [...this.#jobs.values()].filter((job) => job.owner === sessionId);
    await this.#shutdown(records, "owner-disposed", reason);
    for (const record of records) this.#jobs.delete(record.id);
  }

  /**
   * Kills every job and refuses new ones (waits up to `killWaitMs` per job). Idempotent.
   *
   * @returns Resolves once every job settled.
   */
  async dispose(): Promise<void> {
    this.#disposed = true;
    await this.#shutdown([...this.#jobs.values()], "service-disposed", "job service disposed");
  }

  /** Same as {@linkcode JobService.dispose}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  async #shutdown(records: JobRecord[], killer: JobKiller, reason: string): Promise<void> {
    for (const record of records) {
      record.reported = true;
      if (record.status === "running") this.#stop(record, killer, reason);
    }
    await Promise.all(records.map(async (record) => {
      // A producer that ignores its signal and tracks no process cannot hold disposal forever.
      const waitMs = this.#options.killWaitMs ?? 10_000;
      await waitUntil(record, () => isTerminal(record.status), waitMs);
      if (record.status === "stopping") this.#abandon(record, waitMs);
      // Processes a finished job left behind in its group (for example `cmd &`) die with the owner.
      await killLeftoverGroups(record, this.#options.killGraceMs ?? 2000);
    }));
  }

  #stop(record: JobRecord, killer: JobKiller, reason: string | undefined): void {
    if (record.status !== "running") return;
    record.status = "stopping";
    record.detail = {
      ...record.detail,
      killedBy: killer,
      ...(reason !== undefined ? { reason } : {}),
    };
    if (killer === "owner") record.reported = true;
    record.controller.abort(
      new DOMException(`job ${record.id} was killed${reason ? `: ${reason}` : ""}`, "AbortError"),
    );
    this.#reap(record);
    wake(record);
  }

  #reap(record: JobRecord): void {
    reapProcesses(record, this.#options.killGraceMs ?? 2000);
  }

  #abandon(record: JobRecord, waitedMs: number): void {
    if (!abandonRecord(record, waitedMs)) return;
    wake(record);
    if (record.ownerPolls === 0) this.#notify(record);
  }

  async #settle(
    record: JobRecord,
    outcome: JobOutcome | void,
    error: unknown,
  ): Promise<void> {
    if (!await finishRecord(record, outcome, error)) return;
    wake(record);
    if (record.ownerPolls === 0) this.#notify(record);
  }

  #notify(record: JobRecord): void {
    if (record.reported || record.agent === undefined) return;
    record.reported = true;
    try {
      record.agent.inject(formatJobNotice(snapshotOf(record)), NOTICE_SOURCE);
    } catch {
      // The owner agent was disposed: nobody is left to tell.
    }
  }

  #spillPath(id: string): string {
    this.#spillDir ??= makeSpillDir(this.#options.spillDir);
    return `${this.#spillDir}/${id}-${crypto.randomUUID().slice(0, 8)}.out`;
  }
}
