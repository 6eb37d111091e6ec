/**
 * Private: follows a detached (durable) run. Reads its output file through the executor into the
 * job's output (so cursors, spill and notices are those of every job), kills it on the job's kill
 * (SIGTERM, grace, SIGKILL) or timeout, and logs `job/ended` once its exit file is there. A
 * release (the agent shutting down) stops the reads and leaves the run running.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import { HarnessError } from "../core/errors.ts";
import type { JsonObject } from "../core/json.ts";
import type { OutputSink } from "../tools/definition.ts";
import type { DetachedRead, DetachedRun, Executor } from "../tools/executor.ts";
import type { JobOutcome } from "./types.ts";

/** An executor with the durable trio. */
export type DetachedExecutor =
  & Executor
  & Required<Pick<Executor, "startDetached" | "readDetached" | "killDetached">>;

/** True when `executor` can run detached commands. */
export function isDetachedExecutor(executor: Executor): executor is DetachedExecutor {
  return typeof executor.startDetached === "function" &&
    typeof executor.readDetached === "function" && typeof executor.killDetached === "function";
}

/** How a detached run is followed: read pauses, kill grace and deadline, reads that may fail. */
export interface FollowSettings {
  readonly pollMs: number;
  readonly maxPollMs: number;
  readonly graceMs: number;
  readonly killWaitMs: number;
  readonly maxFailures: number;
  /** The longest an executor call may take before it counts as failed. */
  readonly callTimeoutMs: number;
}

/** What {@linkcode followDetached} needs. */
export interface FollowOptions extends FollowSettings {
  readonly executor: DetachedExecutor;
  readonly run: DetachedRun;
  /** The job's id in the session log. */
  readonly logId: string;
  /** The job's own signal: aborted on kill. */
  readonly signal: AbortSignal;
  /** Aborted when the agent stops watching (shutdown): return, leave the run running. */
  readonly release: AbortSignal;
  readonly output: OutputSink;
  /** Appends a session-log event (errors are the caller's to swallow). */
  readonly log: (type: string, data: JsonObject) => void;
  readonly setExit: (exit: { readonly exitCode?: number; readonly signal?: string }) => void;
  readonly startedAtMs: number;
  readonly timeoutMs?: number;
  /** Called once, after the first read attempt (success or failure). */
  readonly onFirstRead: () => void;
}

const CHUNK_BYTES = 1 << 20;

type KillPhase = { readonly step: "none" } | {
  readonly step: "term" | "kill";
  readonly at: number;
  readonly why: "kill" | "timeout";
};

/**
 * Follows a detached run until it ends, is lost or released. A kill is sent the moment the job's
 * signal aborts (not after a read in flight), and every executor call has a deadline, so a call
 * that never answers counts as a failed read instead of holding the job.
 *
 * @returns The outcome of the job's producer.
 */
export async function followDetached(options: FollowOptions): Promise<JobOutcome | void> {
  const { executor, run, signal, release, pollMs } = options;
  let cursor = 0;
  let delay = pollMs;
  let failures = 0;
  let lastByte = 10;
  let first = true;
  const kill = { phase: { step: "none" } as KillPhase };
  const onKill = (): void => void advanceKill(options, kill);
  signal.addEventListener("abort", onKill, { once: true });
  if (signal.aborted) onKill();
  try {
    while (!release.aborted) {
      await advanceKill(options, kill);
      const { phase } = kill;
      if (phase.step === "kill" && Date.now() - phase.at > options.killWaitMs) {
        return { status: "failed", error: unconfirmedKill(run, options.killWaitMs) };
      }
      let read: DetachedRead;
      try {
        read = await deadline(
          executor.readDetached(run, cursor, CHUNK_BYTES),
          options.callTimeoutMs,
          "read the run's output",
        );
        failures = 0;
      } catch (error) {
        if (isGone(error)) return lost(options, error, lastByte, true);
        if (++failures >= options.maxFailures) return lost(options, error, lastByte, false);
        await pause(Math.min(pollMs * 2 ** failures, options.maxPollMs), signal, release);
        continue;
      } finally {
        if (first) options.onFirstRead();
        first = false;
      }
      if (read.bytes.length > 0) {
        options.output.write(read.bytes.slice());
        lastByte = read.bytes[read.bytes.length - 1]!;
        cursor += read.bytes.length;
        delay = pollMs;
        if (cursor < read.total) continue;
      }
      if (read.exit !== undefined && cursor >= read.total) {
        return ended(options, read.exit, kill.phase, lastByte);
      }
      const wait = kill.phase.step === "none" ? delay : pollMs;
      await pause(wait, signal, release, untilStep(options, kill.phase));
      if (read.bytes.length === 0) delay = Math.min(delay * 2, options.maxPollMs);
    }
    return { status: "failed", error: "the agent stopped following it; the run goes on" };
  } finally {
    signal.removeEventListener("abort", onKill);
    // Released before any read: whoever waits for the first read must not wait forever.
    if (first) options.onFirstRead();
  }
}

/** Starts (on kill or timeout) or escalates (after the grace) the kill; one signal per step. */
async function advanceKill(options: FollowOptions, kill: { phase: KillPhase }): Promise<void> {
  const now = Date.now();
  const { phase } = kill;
  if (phase.step === "none") {
    const timedOut = options.timeoutMs !== undefined &&
      now >= options.startedAtMs + options.timeoutMs;
    if (!options.signal.aborted && !timedOut) return;
    kill.phase = { step: "term", at: now, why: options.signal.aborted ? "kill" : "timeout" };
    await signalRun(options, "SIGTERM");
  } else if (phase.step === "term" && now - phase.at >= options.graceMs) {
    kill.phase = { step: "kill", at: now, why: phase.why };
    await signalRun(options, "SIGKILL");
  }
}

/** Rejects with a `REMOTE_TIMEOUT` HarnessError when `promise` takes longer than `ms`. */
function deadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new HarnessError("REMOTE_TIMEOUT", `Cannot ${what}: no answer within ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** How long until the kill has to escalate (or the timeout strikes). */
function untilStep(options: FollowOptions, phase: KillPhase): number {
  if (phase.step === "term") return Math.max(0, phase.at + options.graceMs - Date.now());
  if (phase.step === "none" && options.timeoutMs !== undefined) {
    return Math.max(0, options.startedAtMs + options.timeoutMs - Date.now());
  }
  return Infinity;
}

async function signalRun(options: FollowOptions, name: "SIGTERM" | "SIGKILL"): Promise<void> {
  try {
    await deadline(
      options.executor.killDetached(options.run, name),
      options.callTimeoutMs,
      `send ${name} to the run`,
    );
  } catch {
    // An environment that cannot be reached also fails the next read: that reports it lost.
  }
}

/** The run's exit file is there and every byte is read: markers, the exit, `job/ended`. */
function ended(
  options: FollowOptions,
  exit: NonNullable<DetachedRead["exit"]>,
  phase: KillPhase,
  lastByte: number,
): JobOutcome {
  const timedOut = phase.step !== "none" && phase.why === "timeout";
  const markers = [
    timedOut ? `[timed out after ${options.timeoutMs} ms]` : undefined,
    exit.signal !== null ? `[killed by signal: ${exit.signal}]` : undefined,
    exit.exitCode !== null && exit.exitCode !== 0 ? `[exit code: ${exit.exitCode}]` : undefined,
  ].filter((marker) => marker !== undefined);
  if (markers.length > 0) {
    options.output.write(`${lastByte === 10 ? "" : "\n"}${markers.join("\n")}`);
  }
  const result = {
    ...(exit.exitCode !== null ? { exitCode: exit.exitCode } : {}),
    ...(exit.signal !== null ? { signal: exit.signal } : {}),
  };
  options.setExit(result);
  options.log("job/ended", {
    jobId: options.logId,
    exitCode: exit.exitCode,
    signal: exit.signal,
    finishedAt: new Date().toISOString(),
    ...(phase.step !== "none" ? { killed: phase.why } : {}),
  });
  return result;
}

/**
 * The environment is gone (`final`: logged as ended, so no later load waits on it) or could not
 * be reached `maxFailures` times in a row (not logged: a later load tries again). A clear `failed`.
 */
function lost(
  options: FollowOptions,
  error: unknown,
  lastByte: number,
  final: boolean,
): JobOutcome {
  const { environment } = options.run;
  const where = `its ${environment.provider} environment${
    environment.id !== undefined ? ` ${environment.id}` : ""
  }`;
  const reason = final
    ? `lost: ${where} is gone (${errorMessage(error)}); the output read so far is all there is`
    : `lost: ${where} could not be reached ${options.maxFailures} times in a row (${
      errorMessage(error)
    }); it may still run: load the session again to reconnect`;
  options.output.write(`${lastByte === 10 ? "" : "\n"}[${reason}]`);
  if (final) {
    options.log("job/ended", {
      jobId: options.logId,
      exitCode: null,
      signal: null,
      finishedAt: new Date().toISOString(),
      lost: reason,
    });
  }
  return { status: "failed", error: reason };
}

function unconfirmedKill(run: DetachedRun, waitedMs: number): string {
  return `sent SIGKILL to process group ${run.pid} but its exit file ${run.exitPath} did not appear within ${waitedMs} ms`;
}

/** A `NotFound` or a `*_GONE` / `*NOT_FOUND` code (`REMOTE_GONE`): the environment or its files are gone for good. */
function isGone(error: unknown): boolean {
  if (error instanceof Deno.errors.NotFound) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /(_GONE|NOT_FOUND)$/.test(code);
}

/** Waits `ms` (capped by `cap`), or less when a signal that is not yet aborted aborts. */
function pause(
  ms: number,
  signal: AbortSignal,
  release: AbortSignal,
  cap = Infinity,
): Promise<void> {
  const { promise, resolve } = Promise.withResolvers<void>();
  const wake = (): void => resolve();
  const live = [signal, release].filter((s) => !s.aborted);
  const timer = setTimeout(wake, Math.min(ms, cap));
  for (const s of live) s.addEventListener("abort", wake, { once: true });
  return promise.finally(() => {
    clearTimeout(timer);
    for (const s of live) s.removeEventListener("abort", wake);
  });
}
