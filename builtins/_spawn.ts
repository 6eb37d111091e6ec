/**
 * Spawns a command in its own session and process group (through `setsid`), contained in a PID
 * namespace when the host allows it (see jobs/process_containment.ts), streams its merged output,
 * and on abort, timeout or exit terminates the whole tree and confirms it is gone.
 *
 * Contained runs are killed through their process group: SIGTERM, then after the grace SIGKILL,
 * which ends the namespace and with it every descendant (`setsid`, double-forked, cleared
 * environment). Without a namespace the tree is found by group, descendants and an environment
 * marker (jobs/process_tree.ts). Either way a descendant that keeps the output pipe open cannot
 * hold the call: reading stops once the pipe stays idle for a short while after the command ended.
 *
 * @module
 */
import {
  killProcessTree,
  type KillProcessTreeOptions,
  type ProcessMarker,
  processStartTime,
  signalProcesses,
} from "../jobs/process_tree.ts";
import {
  type Containment,
  ownsPidNamespace,
  probeContainment,
  registerTree,
} from "../jobs/process_containment.ts";
import { describeRunError } from "./_fs_errors.ts";
import type { RunOptions, RunResult } from "./executor.ts";
import { concatBytes } from "../core/bytes.ts";

/** Size of the reused pipe read buffer. */
const READ_BUFFER_BYTES = 1 << 18;

/** How long to wait for the kernel after SIGKILL before reporting survivors as an error. */
const CONFIRM_MS = 5000;

/**
 * After the command ended and its tree was killed, reading stops once the output pipe has been
 * idle this long: only an escaped descendant can still hold it open.
 */
export const DRAIN_IDLE_MS = 300;

/** The environment variable that tags every process of a run (inherited by descendants). */
export const MARKER_NAME = "DSH_EXEC_TREE";

/** Linux signal numbers, for statuses the namespace init reports as `128 + n`. */
const SIGNALS: readonly string[] = [
  "",
  "SIGHUP",
  "SIGINT",
  "SIGQUIT",
  "SIGILL",
  "SIGTRAP",
  "SIGABRT",
  "SIGBUS",
  "SIGFPE",
  "SIGKILL",
  "SIGUSR1",
  "SIGSEGV",
  "SIGUSR2",
  "SIGPIPE",
  "SIGALRM",
  "SIGTERM",
  "SIGSTKFLT",
  "SIGCHLD",
  "SIGCONT",
  "SIGSTOP",
  "SIGTSTP",
  "SIGTTIN",
  "SIGTTOU",
  "SIGURG",
  "SIGXCPU",
  "SIGXFSZ",
  "SIGVTALRM",
  "SIGPROF",
  "SIGWINCH",
  "SIGIO",
  "SIGPWR",
  "SIGSYS",
];

/** How a run is contained: by a PID namespace (ours or the argv's own) or by tracking. */
type Mode = "namespace" | "tracked";

/**
 * Runs `argv` under `setsid`. The caller's script merges the shell's stderr into stdout; what
 * still arrives on stderr (wrapper diagnostics from `setsid`, `unshare` or `bwrap`) is passed on
 * after stdout.
 *
 * @param argv The program and its arguments.
 * @param options Run options.
 * @param pidNamespace Contain the run in a PID namespace when the host allows it.
 * @returns How the process ended.
 */
export async function spawnTree(
  argv: readonly string[],
  options: RunOptions,
  pidNamespace = true,
): Promise<RunResult> {
  const { signal, timeoutMs, onOutput, cwd, env, killGraceMs = 1000 } = options;
  signal?.throwIfAborted();
  const containment: Containment | undefined = ownsPidNamespace(argv)
    ? undefined
    : pidNamespace
    ? await probeContainment()
    : { kind: "none", prefix: [] };
  signal?.throwIfAborted();
  const mode: Mode = containment === undefined || containment.kind !== "none"
    ? "namespace"
    : "tracked";
  const marker: ProcessMarker = { name: MARKER_NAME, value: crypto.randomUUID() };
  let child: Deno.ChildProcess;
  try {
    const spawnOptions: Deno.CommandOptions = {
      args: ["--", ...(containment?.prefix ?? []), ...argv],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    };
    if (cwd !== undefined) spawnOptions.cwd = cwd;
    // The caller passes the complete (scrubbed) environment: nothing else is inherited.
    spawnOptions.clearEnv = true;
    spawnOptions.env = { ...env, [MARKER_NAME]: marker.value };
    child = new Deno.Command("setsid", spawnOptions).spawn();
  } catch (error) {
    throw describeRunError("setsid", argv[0] ?? "", error);
  }
  const pid = child.pid;
  options.onSpawn?.(pid);
  let exited = false;
  const status = child.status.finally(() => exited = true);
  const killOptions: KillProcessTreeOptions = {
    group: true,
    graceMs: killGraceMs,
    reapMs: CONFIRM_MS,
    marker,
  };
  // Guards the leader's pid against reuse once it has exited and been reaped; probed in the
  // background so a `ps` fallback never delays the command.
  const leaderStart = mode === "tracked"
    ? processStartTime(pid).catch(() => undefined)
    : Promise.resolve(undefined);
  let timedOut = false;
  let aborted = false;
  let stopping: Promise<unknown> | undefined;
  let killError: unknown;
  /** Waits until the leader exited or `ms` passed; true when it exited. */
  const exitWithin = async (ms: number): Promise<boolean> => {
    if (exited) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([status, new Promise((resolve) => timer = setTimeout(resolve, ms))]);
    clearTimeout(timer);
    return exited;
  };
  const stopNamespace = async () => {
    // The group holds the leader, the init and the command (pid 1 ignores SIGTERM).
    await signalProcesses([-pid], "SIGTERM");
    if (await exitWithin(killGraceMs)) return;
    await signalProcesses([-pid], "SIGKILL");
    if (!await exitWithin(CONFIRM_MS)) {
      killError = new Error(
        `Cannot confirm that process group ${pid} is gone: it is still alive after SIGKILL`,
      );
    }
  };
  const stopTracked = () =>
    leaderStart.then((startTime) =>
      killProcessTree(pid, startTime === undefined ? killOptions : { ...killOptions, startTime })
    ).then(({ survivors }) => {
      if (survivors.length === 0) return;
      killError = new Error(
        `Cannot confirm that process group ${pid} is gone: pids ${
          JSON.stringify(survivors)
        } are still alive after SIGKILL`,
      );
    });
  const stop = () =>
    stopping ??= (mode === "namespace" ? stopNamespace() : stopTracked()).catch((error) => {
      killError = error;
    });
  const release = registerTree({
    kill: async () => {
      if (mode === "namespace") await signalProcesses([-pid], "SIGKILL");
      else await killProcessTree(pid, { ...killOptions, graceMs: 0, reapMs: 500 });
    },
  });
  const onAbort = () => {
    aborted = true;
    stop();
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
    timedOut = true;
    stop();
  }, timeoutMs);
  let pumpError: unknown;
  let lastRead = Date.now();
  let delivering = false;
  // BYOB reads into one reused buffer keep memory flat for huge outputs.
  const reader = child.stdout.getReader({ mode: "byob" });
  const pump = (async () => {
    let buffer = new Uint8Array(READ_BUFFER_BYTES);
    for (;;) {
      const { value, done } = await reader.read(buffer);
      lastRead = Date.now();
      if (done || value === undefined) break;
      delivering = true;
      try {
        if (onOutput) await onOutput(value);
      } finally {
        delivering = false;
        lastRead = Date.now();
      }
      buffer = new Uint8Array(value.buffer);
    }
  })().catch((error) => {
    pumpError = error;
    stop();
  });
  const errReader = child.stderr.getReader();
  const diagnostics = (async () => {
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { value, done } = await errReader.read();
      if (done) return chunks;
      chunks.push(value);
    }
  })().then((chunks) => concatBytes(chunks), () => new Uint8Array());
  try {
    const final = await status;
    clearTimeout(timer);
    // The leader is done; without a namespace, background stragglers would hold the pipe open,
    // so they go too (a namespace ended with its init).
    if (mode === "tracked") await stop();
    else if (stopping !== undefined) await stopping;
    const pipeHeldOpen = !await drained(pump, () => delivering ? 0 : Date.now() - lastRead);
    // Stop reading what the escaped descendant holds (a pending read would keep us alive).
    if (pipeHeldOpen) await reader.cancel().catch(() => {});
    let late: ReturnType<typeof setTimeout> | undefined;
    const extra = await Promise.race([
      diagnostics,
      new Promise<Uint8Array>((resolve) => {
        const cut = () => errReader.cancel().catch(() => {}).then(() => resolve(diagnostics));
        if (pipeHeldOpen) cut();
        else late = setTimeout(cut, DRAIN_IDLE_MS);
      }),
    ]);
    clearTimeout(late);
    if (extra.length > 0 && onOutput && pumpError === undefined) await onOutput(extra);
    if (pumpError !== undefined) throw pumpError;
    if (killError !== undefined) throw killError;
    const { exitCode, signal: ended } = outcome(final, mode);
    return {
      pid,
      exitCode,
      signal: ended,
      timedOut,
      aborted,
      ...(pipeHeldOpen ? { pipeHeldOpen: true } : {}),
    };
  } finally {
    clearTimeout(timer);
    release();
    signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * Waits for the pump to end; false when the pipe stayed idle for {@linkcode DRAIN_IDLE_MS}
 * (counted from the call at the earliest, so the pump always gets a full window for the EOF).
 */
async function drained(pump: Promise<void>, idleMs: () => number): Promise<boolean> {
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

/**
 * The exit code or signal. A namespace init cannot die of a signal sent to the command, so it
 * exits with `128 + n` (as a shell reports it): that is read back as signal `n`.
 */
function outcome(status: Deno.CommandStatus, mode: Mode): Pick<RunResult, "exitCode" | "signal"> {
  if (status.signal !== null) return { exitCode: null, signal: status.signal };
  const name = SIGNALS[status.code - 128];
  if (mode === "namespace" && status.code > 128 && name) return { exitCode: null, signal: name };
  return { exitCode: status.code, signal: null };
}
