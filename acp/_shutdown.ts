/**
 * The agent's lifetime: what makes it stop (SIGTERM, SIGINT, SIGHUP, the end of stdin, or its
 * parent exiting) and a shutdown that never outlives its deadline. The shutdown disposes the
 * root context (sessions, jobs, MCP servers, Code Mode) and, if that takes too long, kills every
 * tool process tree with SIGKILL (each lives in its own PID namespace, so nothing survives).
 *
 * @module
 */
import type { LiveTrees } from "../jobs/process_containment.ts";
import { errorMessage } from "../core/error_message.ts";

/** Why the agent stops. */
export type StopReason = "stdin closed" | "SIGTERM" | "SIGINT" | "SIGHUP" | "parent exited";

const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
const EXIT_CODES: Readonly<Record<StopReason, number>> = {
  "stdin closed": 0,
  "parent exited": 0,
  SIGHUP: 129,
  SIGINT: 130,
  SIGTERM: 143,
};

/** What {@linkcode watchLifetime} returns. */
export interface Lifetime extends Disposable {
  /** Resolves with the first signal received or when the parent process exited. */
  readonly stopRequested: Promise<StopReason>;
}

/**
 * Listens for SIGTERM, SIGINT and SIGHUP and watches the parent process (a changed parent pid
 * means the launcher or editor is gone). Dispose it to remove the listeners.
 *
 * @param pollMs How often the parent pid is checked. @default {250}
 * @returns The lifetime.
 */
export function watchLifetime(pollMs = 250): Lifetime {
  const { promise, resolve } = Promise.withResolvers<StopReason>();
  const listeners = SIGNALS.flatMap((signal) => {
    const listener = () => resolve(signal);
    try {
      Deno.addSignalListener(signal, listener);
    } catch {
      return []; // not supported on this platform
    }
    return [() => Deno.removeSignalListener(signal, listener)];
  });
  const parent = Deno.ppid;
  const timer = setInterval(() => {
    if (Deno.ppid !== parent) resolve("parent exited");
  }, pollMs);
  Deno.unrefTimer(timer);
  return {
    stopRequested: promise,
    [Symbol.dispose]() {
      clearInterval(timer);
      for (const remove of listeners) remove();
    },
  };
}

/**
 * The exit code for a stop reason: `128 + n` after signal `n`, else 0.
 *
 * @param reason The reason.
 * @returns The code.
 */
export function exitCodeFor(reason: StopReason): number {
  return EXIT_CODES[reason];
}

/** Options of {@linkcode shutdownWithin}. */
export interface ShutdownOptions {
  /** The whole budget: the shutdown returns by then whatever is still running. @default {1500} */
  readonly deadlineMs?: number;
  /** When every tool process tree is killed with SIGKILL if disposal has not ended. @default {800} */
  readonly hardKillMs?: number;
  /** Where a slow or failed disposal is reported. */
  readonly log?: (message: string) => void;
  /** The process trees killed with SIGKILL at `hardKillMs` and in the last sweep. @default {none} */
  readonly trees?: LiveTrees;
}

function delay(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<void>((resolve) => timer = setTimeout(resolve, ms));
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * Runs `dispose` (the root context's disposal: its SIGTERM to every job reaches the tools at
 * once), SIGKILLs every registered process tree at `hardKillMs` if it is still running, and
 * returns by `deadlineMs` in any case, after a last SIGKILL sweep.
 *
 * @param dispose Disposes the root context.
 * @param options Deadline, hard-kill time and a log sink.
 * @returns Resolves when disposal ended or the deadline passed.
 */
export async function shutdownWithin(
  dispose: () => Promise<void>,
  options: ShutdownOptions = {},
): Promise<void> {
  const { deadlineMs = 1500, hardKillMs = 800, log, trees } = options;
  const killAll = () => trees?.killAll() ?? Promise.resolve();
  let done = false;
  const disposing = Promise.resolve().then(dispose).then(
    () => void (done = true),
    (error) => {
      done = true;
      log?.(`Cannot dispose the agent cleanly: ${errorMessage(error)}`);
    },
  );
  const hard = delay(Math.min(hardKillMs, deadlineMs));
  const hardKill = hard.promise.then(async () => {
    if (done) return;
    log?.(`The agent did not stop within ${hardKillMs} ms: killing every tool process`);
    await killAll();
  });
  const deadline = delay(deadlineMs);
  await Promise.race([disposing, deadline.promise]);
  hard.cancel();
  deadline.cancel();
  if (!done) log?.(`The agent did not stop within ${deadlineMs} ms: exiting anyway`);
  // Whatever is left (a tree registered late, a kill still in flight) goes now.
  const sweep = delay(300);
  await Promise.race([Promise.all([killAll(), done ? undefined : hardKill]), sweep.promise]);
  sweep.cancel();
}
