/**
 * How an executor stops reading a command's output once the command has ended: a descendant that
 * escaped the process tree may hold the pipe open, so reading ends after an idle window and the
 * run reports `pipeHeldOpen` (see {@linkcode RunResult}). Shared by the local and remote executors.
 *
 * @module
 */
/**
 * After the command ended and its tree was killed, reading stops once the output has been idle
 * this long: only an escaped descendant can still hold it open.
 */
export const DRAIN_IDLE_MS: number = 300;

/**
 * Waits for the output pump to end; false when it stayed idle for {@linkcode DRAIN_IDLE_MS}
 * (counted from the call at the earliest, so the pump always gets a full window for the EOF).
 *
 * @param pump Resolves when the output stream ended.
 * @param idleMs How long the pump has been idle, in ms.
 * @returns True when the stream ended, false when it was still held open.
 *
 * @example Usage
 * ```ts
 * import { drained } from "./pipe_drain.ts";
 * import { equal } from "node:assert/strict";
 * equal(await drained(Promise.resolve(), () => 0), true);
 * ```
 */
export async function drained(pump: Promise<void>, idleMs: () => number): Promise<boolean> {
  let done = false;
  const ended = pump.then(() => done = true);
  const start = Date.now();
  for (;;) {
    const idle = Math.min(idleMs(), Date.now() - start);
    if (idle >= DRAIN_IDLE_MS) return done;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const wait = new Promise((resolve) => timer = setTimeout(resolve, DRAIN_IDLE_MS - idle));
    await Promise.race([ended, wait]);
    clearTimeout(timer);
    if (done) return true;
  }
}
