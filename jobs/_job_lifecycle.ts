/**
 * Private: what happens to a job record on kill, settlement, abandonment and shutdown, and the
 * completion notice (the service's state changes, outside its class).
 *
 * @module
 */
import type { AgentHandle } from "../tools/definition.ts";
import { formatJobNotice } from "./job_status.ts";
import { OutputBuffer } from "./output_buffer.ts";
import {
  abandonRecord,
  controlOf,
  finishRecord,
  isTerminal,
  type JobRecord,
  killLeftoverGroups,
  NOTICE_SOURCE,
  reapProcesses,
  snapshotOf,
  waitUntil,
  wake,
} from "./_job_record.ts";
import type {
  JobKiller,
  JobOutcome,
  JobRead,
  JobServiceOptions,
  JobStartOptions,
} from "./types.ts";

/** Who a kill by `caller` is, for a job of `owner`. */
export function killerOf(caller: string | undefined, owner: string | undefined): JobKiller {
  return caller === undefined ? "embedder" : caller === owner ? "owner" : `session:${caller}`;
}

/** Requests a kill: `stopping`, the signal aborted, tracked trees reaped. */
export function stopRecord(
  record: JobRecord,
  killer: JobKiller,
  reason: string | undefined,
  options: JobServiceOptions,
): void {
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
  reapProcesses(record, options.killGraceMs ?? 2000);
  wake(record);
}

/** Finishes a record whose producer did not settle in time, and tells its owner. */
export function abandonWithNotice(record: JobRecord, waitedMs: number): void {
  if (!abandonRecord(record, waitedMs)) return;
  wake(record);
  if (record.ownerPolls === 0) notifyOwner(record);
}

/** Settles a record once its producer settled, and tells its owner. */
export async function settleRecord(
  record: JobRecord,
  outcome: JobOutcome | void,
  error: unknown,
): Promise<void> {
  if (!await finishRecord(record, outcome, error)) return;
  wake(record);
  if (record.ownerPolls === 0) notifyOwner(record);
}

/** The completion notice, once, unless the owner already saw the end. */
export function notifyOwner(record: JobRecord): void {
  if (record.reported || record.agent === undefined) return;
  record.reported = true;
  try {
    record.agent.inject(formatJobNotice(snapshotOf(record)), NOTICE_SOURCE);
  } catch {
    // The owner agent was disposed: nobody is left to tell.
  }
}

/**
 * Ends the records without notices: kills each running one (a durable one is released instead:
 * its follower stops and its run goes on, for a later load to adopt), waits up to `killWaitMs`
 * for each, abandons what did not settle and kills leftover process groups.
 */
export async function shutdownRecords(
  records: readonly JobRecord[],
  killer: JobKiller,
  reason: string,
  options: JobServiceOptions,
): Promise<void> {
  for (const record of records) {
    record.reported = true;
    if (record.durable !== undefined) record.durable.release.abort();
    else if (record.status === "running") stopRecord(record, killer, reason, options);
  }
  await Promise.all(records.map(async (record) => {
    // A producer that ignores its signal and tracks no process cannot hold disposal forever.
    const waitMs = options.killWaitMs ?? 10_000;
    await waitUntil(record, () => isTerminal(record.status), waitMs);
    if (record.status === "stopping") abandonWithNotice(record, waitMs);
    // Processes a finished job left behind in its group (for example `cmd &`) die with the owner.
    await killLeftoverGroups(record, options.killGraceMs ?? 2000);
  }));
}

/** The owner's session id and agent (a bare id is looked up); refuses a disposed agent. */
export function resolveOwner(
  owner: AgentHandle | string | undefined,
  agentFor: JobServiceOptions["agentFor"],
): { readonly ownerId: string | undefined; readonly agent: AgentHandle | undefined } {
  const ownerId = typeof owner === "string" ? owner : owner?.sessionId;
  const agent = typeof owner === "object"
    ? owner
    : ownerId !== undefined
    ? agentFor?.(ownerId)
    : undefined;
  if (agent?.disposed) {
    throw new TypeError(`Cannot start job: the owner agent of session ${ownerId} is disposed`);
  }
  return { ownerId, agent };
}

/** Calls the producer once, synchronously, and settles the record when it settles. */
export function runProducer(
  record: JobRecord,
  run: JobStartOptions["run"],
  options: JobServiceOptions,
): void {
  const control = controlOf(record, () => reapProcesses(record, options.killGraceMs ?? 2000));
  let produced: Promise<JobOutcome | void>;
  try {
    produced = Promise.resolve(run(control));
  } catch (error) {
    produced = Promise.reject(error);
  }
  record.settled = produced.then(
    (outcome) => settleRecord(record, outcome, undefined),
    (error) => settleRecord(record, undefined, error),
  );
}

/** Ends an owner's poll: a read to the end of a finished job reports it, else the notice goes out. */
export function finishOwnerPoll(record: JobRecord, read: JobRead | undefined): void {
  record.ownerPolls--;
  if (!isTerminal(record.status)) return;
  if (read !== undefined && isTerminal(read.job.status) && read.next === read.total) {
    record.reported = true;
  } else if (record.ownerPolls === 0) {
    notifyOwner(record);
  }
}

/** A job's output buffer, spilling to a fresh file in `spillDir`. */
export function outputBuffer(
  spillDir: string,
  id: string,
  windowBytes: number | undefined,
): OutputBuffer {
  return new OutputBuffer({
    spillPath: `${spillDir}/${id}-${crypto.randomUUID().slice(0, 8)}.out`,
    ...(windowBytes !== undefined ? { windowBytes: Math.max(1, windowBytes) } : {}),
  });
}

/** Job ids `<kind>-<n>`, numbered per kind. */
export class JobIds {
  #counters = new Map<string, number>();

  /** The next id of `kind`. */
  next(kind: string): string {
    const n = (this.#counters.get(kind) ?? 0) + 1;
    this.#counters.set(kind, n);
    return `${kind}-${n}`;
  }

  /** Later ids of its kind are numbered past `id` (one read from a log). */
  countPast(id: string): void {
    const dash = id.lastIndexOf("-");
    const kind = id.slice(0, dash);
    const n = Number(id.slice(dash + 1));
    if (Number.isSafeInteger(n) && n > (this.#counters.get(kind) ?? 0)) this.#counters.set(kind, n);
  }
}
