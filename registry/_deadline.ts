/**
 * Cheap per-call deadlines: one timer per distinct duration instead of one per call (private).
 *
 * Calls with the same `timeoutMs` expire in arrival order, so each duration keeps a FIFO set and
 * arms a single timer for its oldest entry. Adding and cancelling are set operations; the timer
 * is cleared as soon as a bucket is empty, so nothing outlives the calls that needed it.
 *
 * @module
 */

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
