/**
 * Private: `run` in a Deno Sandbox. The SDK kills one pid and has no group kill, so a small
 * wrapper does it: `bash -c WRAPPER` (not in the command's group) changes to the working
 * directory, starts the command as `setsid bash -c SCRIPT` (its own session and process group),
 * tells its group id on stderr, waits for it, then kills what is left of the group and every
 * process carrying the run's marker (a descendant that called `setsid` itself) before it exits
 * with the command's status. Abort and timeout signal the group from a second spawn
 * (`kill -TERM -- -<pgid>`, then `-KILL` after the grace).
 *
 * The wire has no flow control (the SDK buffers a stream in memory): `onOutput`'s backpressure
 * paces delivery, not the sandbox.
 *
 * @module
 */
import type { ChildProcessStatus, Sandbox } from "@deno/sandbox";
import { HarnessError } from "../core/errors.ts";
import { mergedScript, type RunOptions, type RunResult } from "../tools/executor.ts";
import { initStatusSignal } from "../jobs/process_containment.ts";
import { disconnected, gone, isConnectionLoss, unavailable } from "./_errors.ts";
import type { Orphan, SandboxLink } from "./_connection.ts";
import { pumpOutput, readProtocol } from "./_streams.ts";
import { drained } from "../tools/pipe_drain.ts";

/** The marker's variable (as local: `DSH_EXEC_TREE`). */
const MARKER = "DSH_EXEC_TREE";

/** `$1` script, `$2` marker, `$3` working directory. */
const WRAPPER = [
  'cd -- "$3" 2>/dev/null || { printf "dsh:nocwd\\n" >&2; exit 97; }',
  `${MARKER}="$2" setsid bash -c "$1" </dev/null &`,
  "c=$!",
  'printf "dsh:pid %s\\n" "$c" >&2',
  'wait "$c"; s=$?',
  'kill -KILL -- "-$c" 2>/dev/null',
  `for f in $(grep -lsxzF "${MARKER}=$2" /proc/[0-9]*/environ 2>/dev/null); do`,
  '  p=${f#/proc/}; kill -KILL "${p%/environ}" 2>/dev/null',
  "done",
  'exit "$s"',
].join("\n");

/** What a run needs besides the command. */
export interface RunRequest {
  readonly link: SandboxLink;
  readonly sandbox: Sandbox;
  readonly cwd: string;
  readonly env: Record<string, string>;
}

/**
 * Signals a process group in the sandbox (errors ignored: a gone group or a lost link).
 *
 * @param sandbox The sandbox.
 * @param signal `TERM`, `KILL`, … (without `SIG`).
 * @param pgid The group.
 */
export async function signalGroup(sandbox: Sandbox, signal: string, pgid: number): Promise<void> {
  try {
    // Only the group: a pid alone may have been reused once its group is gone.
    const child = await sandbox.spawn("kill", {
      args: [`-${signal.replace(/^SIG/, "")}`, "--", `-${pgid}`],
      stdout: "piped",
      stderr: "piped",
    });
    await child.output();
  } catch { /* gone already, or the connection dropped: the status says */ }
}

/** Kills the run's group once: TERM, then KILL after the grace unless the wrapper returned. */
class GroupStop {
  stopping: Promise<void> | undefined;
  #exited = false;
  readonly #sandbox: Sandbox;
  readonly #pgid: Promise<number | undefined>;
  readonly #status: Promise<unknown>;
  readonly #graceMs: number;

  constructor(
    sandbox: Sandbox,
    pgid: Promise<number | undefined>,
    status: Promise<unknown>,
    graceMs: number,
  ) {
    this.#sandbox = sandbox;
    this.#pgid = pgid;
    this.#graceMs = graceMs;
    const done = () => void (this.#exited = true);
    this.#status = status.then(done, done);
  }

  stop(): Promise<void> {
    return this.stopping ??= this.#stop();
  }

  async #stop(): Promise<void> {
    const pgid = await this.#pgid;
    if (pgid === undefined || this.#exited) return;
    await signalGroup(this.#sandbox, "TERM", pgid);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise((resolve) => timer = setTimeout(resolve, this.#graceMs));
    await Promise.race([this.#status, grace]);
    clearTimeout(timer);
    if (!this.#exited) await signalGroup(this.#sandbox, "KILL", pgid);
  }
}

/** The exit code or signal: `128 + n` from the wrapper is signal `n` (as the local namespace). */
function outcome(status: ChildProcessStatus): Pick<RunResult, "exitCode" | "signal"> {
  if (status.signal !== null) return { exitCode: null, signal: status.signal };
  const name = initStatusSignal(status.code);
  if (name !== undefined) return { exitCode: null, signal: name };
  return { exitCode: status.code, signal: null };
}

/**
 * Runs `command` in the sandbox (see the module doc).
 *
 * @param command The user's command.
 * @param request The link, the live sandbox, the checked cwd and the environment.
 * @param options The run options (as local).
 * @returns How it ended; the group is gone.
 * @throws {HarnessError} `NOT_FOUND` (missing cwd), `REMOTE_DISCONNECTED`, `REMOTE_GONE`.
 */
export async function runInSandbox(
  command: string,
  request: RunRequest,
  options: RunOptions,
): Promise<RunResult> {
  const { signal, timeoutMs, onOutput } = options;
  const { link, sandbox, cwd } = request;
  signal?.throwIfAborted();
  const script = mergedScript(command);
  const marker = crypto.randomUUID();
  const child = await sandbox.spawn("bash", {
    args: ["-c", WRAPPER, "dsh-run", script, marker, cwd],
    env: request.env,
    stdout: "piped",
    stderr: "piped",
  }).catch((error) => {
    throw isConnectionLoss(error)
      ? disconnected("run the command", link.name, error)
      : unavailable("run the command", link.name, error);
  });
  const protocol = readProtocol(child.stderr!);
  const status = child.status;
  const pgid = protocol.first.then((first) => {
    if (typeof first !== "number") return undefined;
    try {
      options.onSpawn?.(first);
    } catch { /* the caller's bookkeeping; the run goes on */ }
    return first;
  });
  const stop = new GroupStop(sandbox, pgid, status, options.killGraceMs ?? 1000);
  let timedOut = false;
  let aborted = false;
  const onAbort = () => {
    aborted = true;
    stop.stop();
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
    timedOut = true;
    stop.stop();
  }, timeoutMs);
  const pump = pumpOutput(child.stdout!, onOutput, () => stop.stop());
  try {
    let final: ChildProcessStatus;
    try {
      final = await status;
    } catch (error) {
      await pump.stop();
      await protocol.stop();
      throw await lostDuringRun(link, {
        marker,
        ...await pgid.then((g) => g === undefined ? {} : { pgid: g }),
      }, error);
    }
    clearTimeout(timer);
    if (stop.stopping !== undefined) await stop.stopping;
    const pipeHeldOpen = !await drained(pump.done, pump.idleMs);
    if (pipeHeldOpen) await pump.stop();
    const extra = await protocol.rest(pipeHeldOpen);
    const first = await protocol.first;
    if (first === "nocwd") {
      throw new HarnessError(
        "NOT_FOUND",
        `Cannot run the command: working directory "${cwd}" is not an existing directory`,
      );
    }
    if (extra.length > 0 && onOutput && pump.error() === undefined) await onOutput(extra);
    if (pump.error() !== undefined) throw pump.error();
    return {
      pid: first ?? child.pid,
      ...outcome(final),
      timedOut,
      aborted,
      ...(pipeHeldOpen ? { pipeHeldOpen: true } : {}),
    };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

/** The error of a run whose connection dropped: reconnects, kills the group, says what is left. */
async function lostDuringRun(
  link: SandboxLink,
  run: Orphan,
  error: unknown,
): Promise<HarnessError> {
  if (!isConnectionLoss(error)) return unavailable("run the command", link.name, error);
  const name = link.name;
  link.orphan(run);
  const back = await link.recover().catch(() => undefined);
  if (back === false) return gone("finish the command", name, error);
  return disconnected(
    "finish the command",
    name,
    error,
    back
      ? "the connection is back and the command's process group was killed; run it again if needed"
      : "the sandbox cannot be reached now; its process group is killed once the next call reconnects",
  );
}
