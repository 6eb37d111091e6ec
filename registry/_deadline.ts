/**
 * Cheap per-call deadlines: one timer per distinct duration instead of one per call (private).
 *
 * Calls with the same `timeoutMs` expire in arrival order, so each duration keeps a FIFO set and
 * arms a single timer for its oldest entry. Adding and cancelling are set operations; the timer
 * is cleared as soon as a bucket is empty, so nothing outlives the calls that needed it.
 * {@linkcode settle} bounds how long a body may ignore its aborted signal.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import type { Logger } from "../core/logger.ts";

interface Entry {
  readonly due: number;
  readonly fire: () => void;
}

interface Bucket {
  readonly entries: Set<Entry>;
  timer: ReturnType<typeof setTimeout> | undefined;
}

const buckets = new Map<number, Bucket>();

/** Calls `fire` after `ms` unless the returned cancel runs first. */
export function addDeadline(ms: number, fire: () => void): () => void {
  let bucket = buckets.get(ms);
  if (bucket === undefined) {
    bucket = { entries: new Set(), timer: undefined };
    buckets.set(ms, bucket);
  }
  const entry: Entry = { due: performance.now() + ms, fire };
  bucket.entries.add(entry);
  if (bucket.timer === undefined) arm(ms, bucket, ms);
  const owner = bucket;
  return function cancelDeadline() {
    if (!owner.entries.delete(entry) || owner.entries.size > 0) return;
    clearTimeout(owner.timer);
    owner.timer = undefined;
    buckets.delete(ms);
  };
}

function arm(ms: number, bucket: Bucket, delay: number): void {
  if (bucket.timer !== undefined) clearTimeout(bucket.timer);
  bucket.timer = setTimeout(() => expire(ms, bucket), Math.max(0, delay));
}

function expire(ms: number, bucket: Bucket): void {
  bucket.timer = undefined;
  const now = performance.now();
  for (const entry of bucket.entries) {
    if (entry.due > now + 0.5) {
      arm(ms, bucket, entry.due - now);
      return;
    }
    bucket.entries.delete(entry);
    try {
      entry.fire();
    } catch {
      // fire() only aborts a controller; a listener's throw is the signal's business.
    }
  }
  if (bucket.entries.size === 0 && buckets.get(ms) === bucket) buckets.delete(ms);
}

/** What {@linkcode settle} resolves to when the body outlived its grace period. */
export const ABANDONED: unique symbol = Symbol("abandoned");

/** Options of {@linkcode settle}. */
export interface SettleOptions {
  /** The tool name, for the log lines. */
  readonly name: string;
  /** How long the body may ignore its aborted signal. */
  readonly graceMs: number;
  /** Where the abandonment is reported. */
  readonly logger: Logger;
}

/** Awaits the body; once `signal` aborts, waits at most the grace period, then {@linkcode ABANDONED}. */
export function settle(
  promise: Promise<unknown>,
  signal: AbortSignal,
  options: SettleOptions,
): Promise<unknown> {
  const { name, graceMs, logger } = options;
  const { promise: result, resolve, reject } = Promise.withResolvers<unknown>();
  let grace: ReturnType<typeof setTimeout> | undefined;
  let settled = false;
  const onAbort = () => {
    // Deno may run microtasks between a timeout signal's abort listeners, so the body can have
    // settled (and the finally below run) before this listener is reached…
    if (settled) return;
    const timer = setTimeout(() => {
      logger.warn(
        `tool "${name}" ignored its aborted signal for ${graceMs} ms; its promise is left to settle in the background`,
      );
      promise.then(
        () => logger.info(`abandoned tool "${name}" settled after all`),
        (error) => logger.info(`abandoned tool "${name}" failed after all: ${errorMessage(error)}`),
      );
      resolve(ABANDONED);
    }, graceMs);
    // …and setTimeout() itself may run them: the body can settle while the timer is created.
    if (settled) clearTimeout(timer);
    else grace = timer;
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  promise.then(resolve, reject);
  return result.finally(() => {
    settled = true;
    signal.removeEventListener("abort", onAbort);
    if (grace !== undefined) clearTimeout(grace);
  });
}
