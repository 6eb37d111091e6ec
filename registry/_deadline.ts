/**
 * The abort grace of a body (private): {@linkcode settle} bounds how long a body may ignore its
 * aborted signal. Deadlines themselves are `AbortSignal.timeout` composed with `AbortSignal.any`.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import type { Logger } from "../core/logger.ts";

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
