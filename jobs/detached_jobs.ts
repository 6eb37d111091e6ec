/**
 * Durable background jobs: a background command whose session's executor can run it detached
 * (`startDetached`, a remote sandbox) outlives the agent process. Its record goes to the session
 * log as `job/detached` and its end as `job/ended`; after `session/load` a new process adopts
 * every job that has not ended (`jobs.adoptFromLog`) and `job_output`, `job_kill` and `job_list`
 * work on it as before. Locally jobs still die with the agent: see the README of this folder.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import { errorMessage } from "../core/error_message.ts";
import type { JsonObject } from "../core/json.ts";
import type { AgentHandle, ExecuteReturn, OutputSink, ToolExecution } from "../tools/definition.ts";
import type { DetachedRun, Executor } from "../tools/executor.ts";
import { type DetachedExecutor, followDetached, isDetachedExecutor } from "./_detached_follow.ts";
import {
  type DurableState,
  type JobRecord,
  KIND_REGEXP,
  makeDurable,
  NOTICE_SOURCE,
  recordOfControl,
} from "./_job_record.ts";
import type { DetachedJobRecord, JobOutcome, JobStartOptions } from "./types.ts";

/** The session-log event of a durable job's start. */
export const JOB_DETACHED_EVENT = "job/detached";
/** The session-log event of a durable job's end (exit, kill or loss). */
export const JOB_ENDED_EVENT = "job/ended";

/** Options of {@linkcode runDetachedJob}. */
export interface RunDetachedOptions {
  /** Working directory in the executor's environment. */
  readonly cwd?: string;
  /** Extra environment variables. */
  readonly env?: Record<string, string>;
  /** Kill the run this long after the job started (SIGTERM, grace, SIGKILL). */
  readonly timeoutMs?: number;
}

/**
 * Runs a background body's command as a durable job when it can: the call is a job of this
 * service (`exec.job`), it has an agent (whose log keeps the record) and `executor` has the
 * detached trio. Starts the command detached, appends `job/detached`, then follows it: its output
 * file streams into the job's output, a kill signals its process group (SIGTERM, then SIGKILL
 * after the grace), and its end appends `job/ended`. Returns `undefined` (run it the usual way)
 * when the job cannot be durable.
 *
 * @param exec The body's execution (background mode).
 * @param executor The session's executor (`executorFor(executor, exec.agent?.sessionId)`).
 * @param command The shell command.
 * @param options Working directory, environment, timeout.
 * @returns The body's result (the output already streamed into the job), or `undefined`.
 * @throws {HarnessError} `JOB_NOT_RECORDED` when the log refused the record (the run is killed:
 *   a run nobody can adopt must not be left behind).
 *
 * @example Usage
 * ```ts
 * import { runDetachedJob } from "./detached_jobs.ts";
 * import { equal } from "node:assert/strict";
 * // A foreground call (no `exec.job`) is never durable.
 * equal(await runDetachedJob({} as never, {} as never, "sleep 1"), undefined);
 * ```
 */
export async function runDetachedJob(
  exec: ToolExecution,
  executor: Executor,
  command: string,
  options: RunDetachedOptions = {},
): Promise<ExecuteReturn | undefined> {
  const { job, agent } = exec;
  if (job === undefined || agent === undefined || !isDetachedExecutor(executor)) return undefined;
  const record = recordOfControl(job);
  if (record === undefined) return undefined;
  const durable = makeDurable(record);
  let run: DetachedRun;
  try {
    run = await executor.startDetached(command, {
      id: `${record.id}-${crypto.randomUUID().slice(0, 8)}`,
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      ...(options.env !== undefined ? { env: options.env } : {}),
    });
  } catch (error) {
    delete record.durable;
    throw error;
  }
  const entry: DetachedJobRecord = {
    jobId: record.id,
    label: record.label,
    kind: record.kind,
    run,
    startedAt: record.startedAt,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  };
  try {
    agent.appendEvent(JOB_DETACHED_EVENT, entry as unknown as JsonObject);
  } catch (error) {
    await executor.killDetached(run, "SIGKILL").catch(() => {});
    delete record.durable;
    throw new HarnessError(
      "JOB_NOT_RECORDED",
      `Cannot run job ${record.id} durably: the session log refused its record (${
        errorMessage(error)
      }); the detached run was killed`,
    );
  }
  const outcome = await followRecord(record, durable, executor, entry, {
    output: exec.output,
    agent,
    control: job,
  });
  // The body's way to fail its job (lost, or a kill that was not confirmed) is to throw.
  if (outcome?.status === "failed") throw new Error(outcome.error);
  return [];
}

/** Follows a durable record's run (the start above and an adopted job's producer share it). */
function followRecord(
  record: JobRecord,
  durable: DurableState,
  executor: DetachedExecutor,
  entry: DetachedJobRecord,
  where: {
    readonly output: OutputSink;
    readonly agent: AgentHandle | undefined;
    readonly control: { setExit(exit: { exitCode?: number; signal?: string }): void };
  },
): Promise<JobOutcome | void> {
  return followDetached({
    executor,
    run: entry.run,
    logId: durable.logId,
    signal: record.controller.signal,
    release: durable.release.signal,
    output: where.output,
    log: (type, data) => {
      try {
        where.agent?.appendEvent(type, data);
      } catch {
        // The agent is gone: the next session/load finds the run ended and reports it.
      }
    },
    setExit: (exit) => where.control.setExit(exit),
    startedAtMs: Date.parse(entry.startedAt),
    ...(entry.timeoutMs !== undefined ? { timeoutMs: entry.timeoutMs } : {}),
    ...record.follow,
    onFirstRead: () => durable.firstRead.resolve(),
  });
}

/** The producer of an adopted record: follows its run as a durable job. */
export function adoptedProducer(
  entry: DetachedJobRecord,
  executor: DetachedExecutor,
): JobStartOptions["run"] {
  return (control) => {
    const record = recordOfControl(control)!;
    return followRecord(record, makeDurable(record, entry.jobId), executor, entry, {
      output: control.output,
      control,
      agent: record.agent,
    });
  };
}

/** Why a logged job cannot be adopted through `executor` (none, or one without detached runs). */
export function adoptionProblem(
  entry: DetachedJobRecord,
  executor: Executor | undefined,
): string | undefined {
  const { provider, id } = entry.run.environment;
  const where = `it runs in ${provider}${id !== undefined ? ` ${id}` : ""}`;
  if (executor === undefined) {
    return `job ${entry.jobId}: no executor for ${entry.kind} jobs in this agent (${where})`;
  }
  if (!isDetachedExecutor(executor)) {
    return `job ${entry.jobId}: the ${executor.kind} executor of this agent cannot reach it (${where})`;
  }
  return undefined;
}

/** Tells the model an adopted job has a new id (its old one was taken in this process). */
export function tellRenamed(owner: AgentHandle, jobId: string, id: string): void {
  try {
    owner.inject(
      `background job ${jobId} from before the agent restarted is now job ${id}: use ${id} with job_output and job_kill.`,
      NOTICE_SOURCE,
    );
  } catch {
    // The owner is gone.
  }
}

/** What {@linkcode pendingDetachedJobs} found in a session's events. */
export interface PendingDetachedJobs {
  /** `job/detached` records without a `job/ended`, in log order. */
  readonly pending: readonly DetachedJobRecord[];
  /** Every job id a `job/detached` named (ended or not): a new process numbers its jobs past them. */
  readonly seen: readonly string[];
  /** Records that could not be read, each with the reason. */
  readonly invalid: readonly string[];
}

/**
 * The durable jobs of a session log that have not ended.
 *
 * @param events The session's events (`agent.events`).
 * @returns Pending records, every id seen, and unreadable records.
 *
 * @example Usage
 * ```ts
 * import { pendingDetachedJobs } from "./detached_jobs.ts";
 * import { equal } from "node:assert/strict";
 * const run = { environment: { provider: "p", id: "e1" }, pid: 7, outputPath: "/o", exitPath: "/x" };
 * const events = [
 *   { type: "job/detached", jobId: "bash-1", label: "make", kind: "bash", run, startedAt: "2026-01-01T00:00:00Z" },
 *   { type: "job/detached", jobId: "bash-2", label: "test", kind: "bash", run, startedAt: "2026-01-01T00:00:00Z" },
 *   { type: "job/ended", jobId: "bash-1", exitCode: 0, signal: null, finishedAt: "2026-01-01T00:01:00Z" },
 * ];
 * equal(pendingDetachedJobs(events).pending.map((job) => job.jobId).join(), "bash-2");
 * ```
 */
export function pendingDetachedJobs(
  events: readonly { readonly type: string; readonly [key: string]: unknown }[],
): PendingDetachedJobs {
  const pending = new Map<string, DetachedJobRecord>();
  const seen: string[] = [];
  const invalid: string[] = [];
  for (const event of events) {
    if (event.type === JOB_ENDED_EVENT && typeof event.jobId === "string") {
      pending.delete(event.jobId);
    } else if (event.type === JOB_DETACHED_EVENT) {
      const problem = recordProblem(event);
      const id = typeof event.jobId === "string" ? event.jobId : "(no id)";
      if (problem !== undefined) invalid.push(`job/detached ${id}: ${problem}`);
      else {
        pending.set(id, toRecord(event));
        seen.push(id);
      }
    }
  }
  return { pending: [...pending.values()], seen, invalid };
}

const JOB_ID = /^[A-Za-z0-9_.-]{1,64}-[1-9][0-9]{0,15}$/;

/** Why an event is not a usable `job/detached` record, or `undefined`. */
function recordProblem(event: { readonly [key: string]: unknown }): string | undefined {
  const { jobId, label, kind, startedAt, run, timeoutMs } = event;
  if (typeof jobId !== "string" || !JOB_ID.test(jobId)) return "'jobId' is not a job id";
  if (typeof label !== "string") return "'label' is not a string";
  if (typeof kind !== "string" || !KIND_REGEXP.test(kind)) return "'kind' is not a job kind";
  if (typeof startedAt !== "string" || Number.isNaN(Date.parse(startedAt))) {
    return "'startedAt' is not an ISO time";
  }
  if (timeoutMs !== undefined && (!Number.isSafeInteger(timeoutMs) || (timeoutMs as number) < 1)) {
    return "'timeoutMs' is not a positive integer";
  }
  if (typeof run !== "object" || run === null) return "'run' is missing";
  const { environment, pid, outputPath, exitPath } = run as Record<string, unknown>;
  if (typeof environment !== "object" || environment === null) {
    return "'run.environment' is missing";
  }
  if (typeof (environment as { provider?: unknown }).provider !== "string") {
    return "'run.environment.provider' is not a string";
  }
  if (!Number.isSafeInteger(pid) || (pid as number) < 1) return "'run.pid' is not a process id";
  if (typeof outputPath !== "string" || typeof exitPath !== "string") {
    return "'run.outputPath' and 'run.exitPath' must be paths";
  }
  return undefined;
}

function toRecord(event: { readonly [key: string]: unknown }): DetachedJobRecord {
  const { jobId, label, kind, startedAt, run, timeoutMs } = event as unknown as DetachedJobRecord;
  return { jobId, label, kind, startedAt, run, ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
}
