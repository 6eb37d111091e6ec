/**
 * Private: the job record the service keeps, its snapshot, and the event-driven wait.
 *
 * @module
 */
import type { AgentHandle } from "../tools/definition.ts";
import type { OutputBuffer } from "./output_buffer.ts";
import type { JobDetail, JobSnapshot, JobStatus } from "./types.ts";

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
  readonly processes: { pid: number; group: boolean; startTime?: number }[];
  readonly cursors: Map<string, number>;
  readonly waiters: Set<() => void>;
  status: JobStatus;
  detail: JobDetail;
  finishedAt?: string;
  reported: boolean;
  ownerPolls: number;
  settled: Promise<void>;
  reaping?: Promise<void>;
}

/** Valid job kinds (tool names and more). */
export const KIND_REGEXP: RegExp = /^[A-Za-z0-9_.-]{1,64}$/;
/** The inject source of completion notices. */
export const NOTICE_SOURCE = { source: { kind: "plugin", plugin: "jobs" } } as const;

/** True for completed, failed and killed. */
export function isTerminal(status: JobStatus): boolean {
  return status === "completed" || status === "failed" || status === "killed";
}

/** The message of a thrown value. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return "<unprintable thrown value>";
  }
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
