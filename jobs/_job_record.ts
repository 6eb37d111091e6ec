/**
 * Private: the job record the service keeps, its producer control, snapshot, reaping and
 * settlement, and the event-driven wait.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import { HarnessError } from "../core/errors.ts";
import type { AgentHandle } from "../tools/definition.ts";
import type { FollowSettings } from "./_detached_follow.ts";
import type { OutputBuffer } from "./output_buffer.ts";
import { killProcessTree, type KillProcessTreeResult, processStartTime } from "./process_tree.ts";
import type {
  JobControl,
  JobDetail,
  JobOutcome,
  JobServiceOptions,
  JobSnapshot,
  JobStatus,
} from "./types.ts";

/** One job as the service holds it. */
export interface JobRecord {
  readonly id: string;
  readonly kind: string;
  readonly label: string;
  readonly owner: string | undefined;
  readonly agent: AgentHandle | undefined;
  readonly startedAt: string;
  readonly buffer: OutputBuffer;
  readonly controller: AbortController;
  readonly processes: { pid: number; group: boolean; startTime: Promise<number | undefined> }[];
  readonly cursors: Map<string, number>;
  readonly waiters: Set<() => void>;
  status: JobStatus;
  detail: JobDetail;
  finishedAt?: string;
  reported: boolean;
  ownerPolls: number;
  settled: Promise<void>;
  reaping?: Promise<void>;
  /** Set for a durable job (a detached run): shutdown releases it instead of killing it. */
  durable?: DurableState;
  /** How a durable job's run is followed (the service's options). */
  readonly follow: FollowSettings;
}

/** The durable side of a record (a detached run followed by reads). */
export interface DurableState {
  /** The job's id in the session log (differs from `id` only when adopted under a new id). */
  readonly logId: string;
  /** Aborted at shutdown: the follower stops reading and leaves the run running. */
  readonly release: AbortController;
  /** Resolves after the follower's first read (adoption waits for it, so a notice is on time). */
  readonly firstRead: PromiseWithResolvers<void>;
}

/**
 * The record of a control handed to a producer, if a job service made it: the control carries
 * its record (a private field), so no table maps controls to records.
 */
export function recordOfControl(control: object): JobRecord | undefined {
  return RecordControl.recordOf(control);
}

/** Marks a record durable; returns its state. */
export function makeDurable(record: JobRecord, logId: string = record.id): DurableState {
  record.durable = {
    logId,
    release: new AbortController(),
    firstRead: Promise.withResolvers<void>(),
  };
  return record.durable;
}

/** A running record with no output, processes, readers or waiters yet. */
export function newRecord(
  init:
    & Pick<JobRecord, "id" | "kind" | "label" | "owner" | "agent" | "buffer" | "follow">
    & { readonly startedAt?: string },
): JobRecord {
  return {
    ...init,
    startedAt: init.startedAt ?? new Date().toISOString(),
    controller: new AbortController(),
    processes: [],
    cursors: new Map(),
    waiters: new Set(),
    status: "running",
    detail: {},
    reported: false,
    ownerPolls: 0,
    settled: Promise.resolve(),
  };
}

/** Throws a RangeError naming the first numeric service option that is not a non-negative integer. */
export function checkServiceOptions(options: JobServiceOptions): void {
  const keys = [
    "windowBytes",
    "killGraceMs",
    "killWaitMs",
    "detachedPollMs",
    "detachedMaxPollMs",
    "detachedReadFailures",
    "detachedCallTimeoutMs",
  ] as const;
  for (const key of keys) {
    const value = options[key];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
      throw new RangeError(
        `Cannot create job service as '${key}' must be a non-negative integer: current value is ${value}`,
      );
    }
  }
}

/** The follow settings of a service's durable jobs. */
export function followSettings(options: JobServiceOptions): FollowSettings {
  return {
    pollMs: Math.max(1, options.detachedPollMs ?? 200),
    maxPollMs: Math.max(1, options.detachedMaxPollMs ?? 2000),
    graceMs: options.killGraceMs ?? 2000,
    killWaitMs: options.killWaitMs ?? 10_000,
    maxFailures: Math.max(1, options.detachedReadFailures ?? 5),
    callTimeoutMs: Math.max(1, options.detachedCallTimeoutMs ?? 20_000),
  };
}

/** Valid job kinds (tool names and more). */
export const KIND_REGEXP: RegExp = /^[A-Za-z0-9_.-]{1,64}$/;
/** The inject source of completion notices. */
export const NOTICE_SOURCE = { source: { kind: "plugin", plugin: "jobs" } } as const;

/** Wakes every waiter of the record (each re-checks its condition). */
export function wake(record: JobRecord): void {
  for (const waiter of record.waiters) waiter();
}

/** Creates the configured spill directory, or a fresh temporary one, and returns its path. */
export function makeSpillDir(configured: string | undefined): string {
  if (configured === undefined) return Deno.makeTempDirSync({ prefix: "dsh_jobs_" });
  Deno.mkdirSync(configured, { recursive: true });
  return configured;
}

/** True for completed, failed and killed. */
export function isTerminal(status: JobStatus): boolean {
  return status === "completed" || status === "failed" || status === "killed";
}

/** A non-consuming snapshot of a record. */
export function snapshotOf(record: JobRecord): JobSnapshot {
  const path = record.buffer.path;
  return {
    id: record.id,
    kind: record.kind,
    label: record.label,
    ...(record.owner !== undefined ? { owner: record.owner } : {}),
    status: record.status,
    detail: { ...record.detail },
    startedAt: record.startedAt,
    ...(record.finishedAt !== undefined ? { finishedAt: record.finishedAt } : {}),
    outputBytes: record.buffer.total,
    ...(path !== undefined ? { outputPath: path } : {}),
    reported: record.reported,
  };
}

/** Waits until `done()` (checked on every wake), `ms` passes, or `signal` aborts (rejects with its reason). */
export async function waitUntil(
  record: JobRecord,
  done: () => boolean,
  ms: number,
  signal?: AbortSignal,
): Promise<void> {
  signal?.throwIfAborted();
  if (done() || ms <= 0) return;
  const { promise, resolve, reject } = Promise.withResolvers<void>();
  const check = (): void => {
    if (done()) resolve();
  };
  const onAbort = (): void => reject(signal?.reason);
  const timer = Number.isFinite(ms) ? setTimeout(resolve, ms) : undefined;
  record.waiters.add(check);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await promise;
  } finally {
    clearTimeout(timer);
    record.waiters.delete(check);
    signal?.removeEventListener("abort", onAbort);
  }
}

/** The producer's control of a record; `reap` kills its tracked trees. */
export function controlOf(record: JobRecord, reap: () => void): JobControl {
  return new RecordControl(record, reap);
}

/**
 * A producer's control: it holds its record privately, so a body reaches its job's record
 * through `exec.job` (see {@linkcode recordOfControl}). Members are own arrow functions, so a
 * producer may pass them around detached.
 */
class RecordControl implements JobControl {
  readonly #record: JobRecord;
  readonly id: string;
  readonly signal: AbortSignal;
  readonly output: JobControl["output"];
  readonly trackProcess: JobControl["trackProcess"];
  readonly setExit: JobControl["setExit"];

  constructor(record: JobRecord, reap: () => void) {
    this.#record = record;
    this.id = record.id;
    this.signal = record.controller.signal;
    this.output = {
      write: (chunk) => {
        if (record.buffer.closed) return;
        record.buffer.write(chunk);
        wake(record);
      },
    };
    this.trackProcess = (pid, options) => {
      // Probed in the background; a kill awaits it (the table may be a `ps` subprocess).
      const startTime = processStartTime(pid).catch(() => undefined);
      record.processes.push({ pid, group: options?.group === true, startTime });
      if (record.status === "stopping") reap();
    };
    this.setExit = (exit) => {
      record.detail = { ...record.detail, ...exit };
    };
  }

  /** The record of `control` when it is a {@linkcode RecordControl}. */
  static recordOf(control: object): JobRecord | undefined {
    return #record in control ? (control as RecordControl).#record : undefined;
  }
}

/** Kills one tracked tree; `undefined` when the kill failed. */
async function killTracked(
  process: JobRecord["processes"][number],
  graceMs: number,
): Promise<KillProcessTreeResult | undefined> {
  const startTime = await process.startTime;
  return killProcessTree(process.pid, {
    group: process.group,
    graceMs,
    ...(startTime !== undefined ? { startTime } : {}),
  }).catch(() => undefined);
}

/**
 * Kills every tracked process tree (SIGTERM, grace, SIGKILL), chained after any earlier reaping,
 * and records survivors and the strongest signal used in the detail.
 */
export function reapProcesses(record: JobRecord, graceMs: number): void {
  const previous = record.reaping ?? Promise.resolve();
  const processes = [...record.processes];
  record.reaping = previous.then(async () => {
    const results = await Promise.all(processes.map((p) => killTracked(p, graceMs)));
    const survivors = results.flatMap((result) => result?.survivors ?? []);
    const signal = results.find((result) => result?.signal === "SIGKILL")?.signal ??
      results.find((result) => result?.signal !== undefined)?.signal;
    record.detail = {
      ...record.detail,
      ...(survivors.length > 0 ? { survivors } : {}),
      ...(signal !== undefined && record.detail.signal === undefined ? { signal } : {}),
    };
  });
}

/** Kills what a finished job left in its process groups (for example `cmd &`). */
export async function killLeftoverGroups(record: JobRecord, graceMs: number): Promise<void> {
  await Promise.all(record.processes.filter((p) => p.group).map((p) => killTracked(p, graceMs)));
}

/**
 * Settles a record once its producer settled: waits until every reaping confirmed its trees
 * gone (a killed job is final only then), closes the output and sets the terminal status.
 * Returns false when the record was abandoned meanwhile (first settlement wins).
 */
export async function finishRecord(
  record: JobRecord,
  outcome: JobOutcome | void,
  error: unknown,
): Promise<boolean> {
  while (record.reaping !== undefined) {
    const reaping = record.reaping;
    await reaping;
    if (record.reaping === reaping) break;
  }
  // Abandoned at the kill deadline: that settlement stands.
  if (isTerminal(record.status)) return false;
  record.buffer.close();
  const exit: JobDetail = {
    ...(outcome?.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}),
    ...(outcome?.signal !== undefined ? { signal: outcome.signal } : {}),
  };
  if (record.controller.signal.aborted) {
    record.status = "killed";
    record.detail = { ...record.detail, ...exit };
  } else if (error !== undefined || outcome?.status === "failed") {
    record.status = "failed";
    const message = error !== undefined ? errorMessage(error) : outcome?.error;
    record.detail = {
      ...record.detail,
      ...exit,
      ...(message !== undefined ? { error: message } : {}),
    };
  } else {
    record.status = "completed";
    record.detail = { ...record.detail, ...exit };
  }
  record.finishedAt = new Date().toISOString();
  return true;
}

/**
 * Finishes a killed record whose producer did not settle within `waitedMs`: `killed`, with the
 * reason in `detail.abandoned`; its output is closed, so later writes are dropped.
 *
 * @returns False when the record had already settled.
 */
export function abandonRecord(record: JobRecord, waitedMs: number): boolean {
  if (isTerminal(record.status)) return false;
  record.buffer.close();
  record.status = "killed";
  record.detail = {
    ...record.detail,
    abandoned: `gave up waiting for its producer after ${waitedMs} ms; later output is dropped`,
  };
  record.finishedAt = new Date().toISOString();
  return true;
}

/** The record of `id` if `caller` may see it (`undefined` is the embedder, which sees all). */
export function accessRecord(
  jobs: ReadonlyMap<string, JobRecord>,
  id: string,
  caller: string | undefined,
): JobRecord {
  const record = jobs.get(id);
  if (record === undefined) {
    throw new HarnessError(
      "JOB_NOT_FOUND",
      `unknown job ${JSON.stringify(id)}: expected an id listed by job_list`,
    );
  }
  if (caller !== undefined && record.owner !== undefined && record.owner !== caller) {
    throw new HarnessError("JOB_FORBIDDEN", `job ${id} belongs to another session`);
  }
  return record;
}
