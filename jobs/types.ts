/**
 * Types of the `ctx.jobs` service: statuses, snapshots, producers and reads.
 *
 * @module
 */
import type { AgentHandle, OutputSink } from "../tools/definition.ts";
import type { DetachedRun } from "../tools/executor.ts";

/** A job's lifecycle state. `stopping` means a kill was requested and the producer has not settled yet. */
export type JobStatus = "running" | "stopping" | "completed" | "failed" | "killed";

/** Who ended a job: the owner session, another session (unowned jobs), the embedder, or the harness. */
export type JobKiller =
  | "owner"
  | "embedder"
  | "owner-disposed"
  | "service-disposed"
  | `session:${string}`;

/** Why a job is in its state. Every field is optional; terminal states fill what they know. */
export interface JobDetail {
  /** Process exit code. */
  readonly exitCode?: number;
  /** Signal that ended the process. */
  readonly signal?: string;
  /** Who requested the kill. */
  readonly killedBy?: JobKiller;
  /** The kill reason given. */
  readonly reason?: string;
  /** The producer's error message (`failed`). */
  readonly error?: string;
  /** Process ids still alive after a process-tree kill (empty or absent means all reaped). */
  readonly survivors?: readonly number[];
  /**
   * Set when a killed job's producer did not settle within the kill deadline: the job was
   * finished without it and anything it writes later is dropped.
   */
  readonly abandoned?: string;
}

/** A non-consuming snapshot of one job. */
export interface JobSnapshot {
  /** `<kind>-<n>`. */
  readonly id: string;
  /** Producer kind, for example a tool name. */
  readonly kind: string;
  /** Human label, for example the command. */
  readonly label: string;
  /** Owner session id; absent for unowned jobs. */
  readonly owner?: string;
  /** Current state. */
  readonly status: JobStatus;
  /** State details. */
  readonly detail: JobDetail;
  /** ISO start time. */
  readonly startedAt: string;
  /** ISO settle time. */
  readonly finishedAt?: string;
  /** Bytes of output produced. */
  readonly outputBytes: number;
  /** Path of the file holding the full output, once it has any. */
  readonly outputPath?: string;
  /** True once the owner has seen the end (notice sent, terminal read, or own kill). */
  readonly reported: boolean;
}

/** The producer's view of its job, passed to `run`. */
export interface JobControl {
  /** The job id. */
  readonly id: string;
  /** Job-owned cancellation: aborts on kill, owner disposal or service disposal only. */
  readonly signal: AbortSignal;
  /** Appends output. */
  readonly output: OutputSink;
  /**
   * Registers a process so a kill takes its whole tree down and confirms reaping.
   * Pass `group: true` when it was spawned with `detached: true` (its own process group).
   */
  trackProcess(pid: number, options?: { readonly group?: boolean }): void;
  /** Records the exit code or signal as soon as they are known. */
  setExit(exit: { readonly exitCode?: number; readonly signal?: string }): void;
}

/** What a producer may settle with. Returning nothing means `completed`; throwing means `failed`. */
export interface JobOutcome {
  /** Terminal status. @default {"completed"} */
  readonly status?: "completed" | "failed";
  /** Process exit code. */
  readonly exitCode?: number;
  /** Signal that ended the process. */
  readonly signal?: string;
  /** Failure message. */
  readonly error?: string;
}

/** Input of {@linkcode JobService.start}. */
export interface JobStartOptions {
  /** Producer kind (a tool name); the id prefix. Must match `^[A-Za-z0-9_.-]{1,64}$`. */
  readonly kind: string;
  /** Human label. */
  readonly label: string;
  /** The owning agent (notices go to it) or a bare session id. Unowned jobs are open to anyone. */
  readonly owner?: AgentHandle | string;
  /** The producer; called exactly once, synchronously inside `start`. */
  readonly run: (job: JobControl) => Promise<JobOutcome | void> | JobOutcome | void;
}

/** Options of {@linkcode JobService.read}. */
export interface JobReadOptions {
  /** Byte offset to read from. @default {0} */
  readonly cursor?: number;
  /** Most bytes to return. @default {65536} */
  readonly maxBytes?: number;
  /** Wait up to this long for output past the cursor or for the job to settle. @default {0} */
  readonly waitMs?: number;
  /** The reading session (`undefined` is the embedder, which may read anything). */
  readonly caller?: string;
  /** Stops waiting (the job is unaffected). */
  readonly signal?: AbortSignal;
}

/** The result of a read. */
export interface JobRead {
  /** The new output. */
  readonly text: string;
  /** Offset of the first returned byte. */
  readonly start: number;
  /** The cursor for the next read. */
  readonly next: number;
  /** Bytes produced so far. */
  readonly total: number;
  /** Bytes skipped because they are no longer available (no spill file); exact. */
  readonly dropped: number;
  /** The job at the time of the read. */
  readonly job: JobSnapshot;
}

/** The result of {@linkcode JobService.kill}. */
export interface JobKillResult {
  /**
   * `killed` once the producer settled or was abandoned at the deadline (`detail.abandoned`),
   * `already-finished` for a terminal job. (`stopping` is no longer returned: no job stays in it.)
   */
  readonly outcome: "killed" | "stopping" | "already-finished";
  /** The job after the kill. */
  readonly job: JobSnapshot;
}

/** Options for `JobService`. */
export interface JobServiceOptions {
  /** Directory for the per-job output files. @default {a fresh `Deno.makeTempDir` directory, made on first use} */
  readonly spillDir?: string;
  /** Newest output bytes kept in memory per job. @default {1048576} */
  readonly windowBytes?: number;
  /** SIGTERM → SIGKILL grace for tracked process trees. @default {2000} */
  readonly killGraceMs?: number;
  /**
   * How long `kill()` and disposal wait for a producer to settle; past it the job is finished as
   * `killed` with `detail.abandoned` and its later output is dropped. @default {10000}
   */
  readonly killWaitMs?: number;
  /** Finds the agent of a bare session-id owner, for notices. @default {() => undefined} */
  readonly agentFor?: (sessionId: string) => AgentHandle | undefined;
  /** First pause between two reads of a detached (durable) job's output. @default {200} */
  readonly detachedPollMs?: number;
  /** Longest pause between two reads of an idle detached job (the pause doubles up to it). @default {2000} */
  readonly detachedMaxPollMs?: number;
  /**
   * Failed reads in a row after which a detached job whose environment cannot be reached is
   * reported lost in this process (not logged as ended: a later load tries again). A gone
   * environment (`NotFound`, a `*_GONE` or `*NOT_FOUND` code) is lost at once, and logged. @default {5}
   */
  readonly detachedReadFailures?: number;
  /**
   * The longest one read or kill of a detached run may take; one that takes longer counts as a
   * failed read (the job is not held by a call that never answers). @default {20000}
   */
  readonly detachedCallTimeoutMs?: number;
}

/**
 * A durable job as the session log records it (the `job/detached` event's data): enough for a
 * later agent process to adopt it with `jobs.adopt(record, executor, owner)`.
 */
export interface DetachedJobRecord {
  /** The job id in the process that started it, for example `bash-3` (the log's identity of the job). */
  readonly jobId: string;
  /** Human label (the command). */
  readonly label: string;
  /** Producer kind (the tool name, `bash`). */
  readonly kind: string;
  /** Where it runs: environment, process group, output and exit files. */
  readonly run: DetachedRun;
  /** ISO start time. */
  readonly startedAt: string;
  /** Kill it this long after `startedAt` (the call's `timeout_ms`), if set. */
  readonly timeoutMs?: number;
}

/** What `jobs.adoptFromLog` did. */
export interface AdoptReport {
  /** Each adopted job: its id in this process (`id`) and in the log (`jobId`; they differ only on a clash). */
  readonly adopted: readonly { readonly id: string; readonly jobId: string }[];
  /** `job/detached` events that could not be read, each with the reason. */
  readonly invalid: readonly string[];
}
