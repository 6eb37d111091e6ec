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
  initStatusSignal,
  type LiveTrees,
  ownsPidNamespace,
  probeContainment,
} from "../jobs/process_containment.ts";
import { describeRunError } from "./_fs_errors.ts";
import type { RunOptions, RunResult } from "../tools/executor.ts";
import { concatBytes } from "../core/bytes.ts";
import { DRAIN_IDLE_MS, drained } from "../tools/pipe_drain.ts";

/** Size of the reused pipe read buffer. */
const READ_BUFFER_BYTES = 1 << 18;

/** How long to wait for the kernel after SIGKILL before reporting survivors as an error. */
const CONFIRM_MS = 5000;

/** The environment variable that tags every process of a run (inherited by descendants). */
export const MARKER_NAME = "DSH_EXEC_TREE";

/** How a run is contained: by a PID namespace (ours or the argv's own) or by tracking. */
type Mode = "namespace" | "tracked";

/** Picks the containment: none needed (the argv owns a namespace), a namespace, or tracking. */
async function containmentOf(
  argv: readonly string[],
  pidNamespace: boolean,
): Promise<{ containment: Containment | undefined; mode: Mode }> {
  const containment: Containment | undefined = ownsPidNamespace(argv)
    ? undefined
    : pidNamespace
    ? await probeContainment()
    : { kind: "none", prefix: [] };
  const mode: Mode = containment === undefined || containment.kind !== "none"
    ? "namespace"
    : "tracked";
  return { containment, mode };
}

/** Spawns `setsid [containment] argv` with exactly the caller's environment plus the marker. */
function startChild(
  argv: readonly string[],
  containment: Containment | undefined,
  options: RunOptions,
  marker: ProcessMarker,
  input: Uint8Array | undefined,
): Deno.ChildProcess {
  let child: Deno.ChildProcess;
  try {
    const spawnOptions: Deno.CommandOptions = {
      args: ["--", ...(containment?.prefix ?? []), ...argv],
      stdin: input === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    };
    if (options.cwd !== undefined) spawnOptions.cwd = options.cwd;
    // The caller passes the complete (scrubbed) environment: nothing else is inherited.
    spawnOptions.clearEnv = true;
    spawnOptions.env = { ...options.env, [MARKER_NAME]: marker.value };
    child = new Deno.Command("setsid", spawnOptions).spawn();
  } catch (error) {
    throw describeRunError("setsid", argv[0] ?? "", error);
  }
  if (input !== undefined) {
    // A launcher that died early closes the pipe: its exit status says why, not this write.
    const writer = child.stdin.getWriter();
    writer.write(input).then(() => writer.close()).catch(() => {});
  }
  return child;
}

/** Terminates a run's process tree once, by its group (namespace) or by tracking. */
class TreeStop {
  /** The failure to confirm the tree is gone, if any. */
  error: unknown;
  /** The stop in progress, once started. */
  stopping: Promise<unknown> | undefined;
  readonly #pid: number;
  readonly #mode: Mode;
  readonly #status: Promise<Deno.CommandStatus>;
  readonly #graceMs: number;
  readonly #killOptions: KillProcessTreeOptions;
  readonly #leaderStart: Promise<number | undefined>;
  #exited = false;

  constructor(
    child: Deno.ChildProcess,
    mode: Mode,
    graceMs: number,
    marker: ProcessMarker,
  ) {
    this.#pid = child.pid;
    this.#mode = mode;
    this.#graceMs = graceMs;
    this.#status = child.status.finally(() => this.#exited = true);
    this.#killOptions = { group: true, graceMs, reapMs: CONFIRM_MS, marker };
    // Guards the leader's pid against reuse once it has exited and been reaped; probed in the
    // background so a `ps` fallback never delays the command.
    this.#leaderStart = mode === "tracked"
      ? processStartTime(this.#pid).catch(() => undefined)
      : Promise.resolve(undefined);
  }

  /** The leader's status. */
  get status(): Promise<Deno.CommandStatus> {
    return this.#status;
  }

  /** Starts the stop (once); failures land in {@linkcode TreeStop.error}. */
  stop(): Promise<unknown> {
    return this.stopping ??=
      (this.#mode === "namespace" ? this.#stopNamespace() : this.#stopTracked())
        .catch((error) => {
          this.error = error;
        });
  }

  /** Registers the tree in `trees` for the shutdown kill; returns the release. */
  register(trees: LiveTrees): () => void {
    return trees.register({
      kill: async () => {
        if (this.#mode === "namespace") await signalProcesses([-this.#pid], "SIGKILL");
        else await killProcessTree(this.#pid, { ...this.#killOptions, graceMs: 0, reapMs: 500 });
      },
    });
  }

  /** Waits until the leader exited or `ms` passed; true when it exited. */
  async #exitWithin(ms: number): Promise<boolean> {
    if (this.#exited) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.#status, new Promise((resolve) => timer = setTimeout(resolve, ms))]);
    clearTimeout(timer);
    return this.#exited;
  }

  async #stopNamespace(): Promise<void> {
    // The group holds the leader, the init and the command (pid 1 ignores SIGTERM).
    await signalProcesses([-this.#pid], "SIGTERM");
    if (await this.#exitWithin(this.#graceMs)) return;
    await signalProcesses([-this.#pid], "SIGKILL");
    if (!await this.#exitWithin(CONFIRM_MS)) {
      this.error = new Error(
        `Cannot confirm that process group ${this.#pid} is gone: it is still alive after SIGKILL`,
      );
    }
  }

  async #stopTracked(): Promise<void> {
    const startTime = await this.#leaderStart;
    const { survivors } = await killProcessTree(
      this.#pid,
      startTime === undefined ? this.#killOptions : { ...this.#killOptions, startTime },
    );
    if (survivors.length === 0) return;
    this.error = new Error(
      `Cannot confirm that process group ${this.#pid} is gone: pids ${
        JSON.stringify(survivors)
      } are still alive after SIGKILL`,
    );
  }
}

/** The stdout pump: BYOB reads into one reused buffer keep memory flat for huge outputs. */
interface OutputPump {
  readonly done: Promise<void>;
  readonly reader: ReadableStreamBYOBReader;
  /** How long the pipe has been idle (0 while a chunk is being delivered). */
  idleMs(): number;
  /** The pump's failure, if any. */
  error(): unknown;
}

function pumpOutput(
  stdout: ReadableStream<Uint8Array>,
  onOutput: RunOptions["onOutput"],
  onError: () => void,
): OutputPump {
  let failure: unknown;
  let lastRead = Date.now();
  let delivering = false;
  const reader = stdout.getReader({ mode: "byob" });
  const done = (async () => {
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
    failure = error;
    onError();
  });
  return {
    done,
    reader,
    idleMs: () => delivering ? 0 : Date.now() - lastRead,
    error: () => failure,
  };
}

/** Collects stderr (wrapper diagnostics) until it closes or is cut short. */
function collectStderr(stderr: ReadableStream<Uint8Array>): {
  readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly bytes: Promise<Uint8Array>;
} {
  const reader = stderr.getReader();
  const bytes = (async () => {
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return chunks;
      chunks.push(value);
    }
  })().then((chunks) => concatBytes(chunks), () => new Uint8Array());
  return { reader, bytes };
}

/**
 * The diagnostics on stderr: all of them when the pipe closes, else what came before the cut
 * (at once when an escaped descendant holds the output pipe, else after {@linkcode DRAIN_IDLE_MS}).
 */
async function lateDiagnostics(
  stderr: ReturnType<typeof collectStderr>,
  pipeHeldOpen: boolean,
): Promise<Uint8Array> {
  let late: ReturnType<typeof setTimeout> | undefined;
  const extra = await Promise.race([
    stderr.bytes,
    new Promise<Uint8Array>((resolve) => {
      const cut = () => stderr.reader.cancel().catch(() => {}).then(() => resolve(stderr.bytes));
      if (pipeHeldOpen) cut();
      else late = setTimeout(cut, DRAIN_IDLE_MS);
    }),
  ]);
  clearTimeout(late);
  return extra;
}

/**
 * Runs `argv` under `setsid`. The caller's script merges the shell's stderr into stdout; what
 * still arrives on stderr (wrapper diagnostics from `setsid`, `unshare` or `bwrap`) is passed on
 * after stdout.
 *
 * @param argv The program and its arguments.
 * @param options Run options.
 * @param pidNamespace Contain the run in a PID namespace when the host allows it.
 * @param input Bytes for the launcher's stdin (closed after them). @default {stdin is /dev/null}
 * @param trees Where the running tree is registered for the shutdown kill. @default {nowhere}
 * @returns How the process ended.
 */
export async function spawnTree(
  argv: readonly string[],
  options: RunOptions,
  pidNamespace = true,
  input?: Uint8Array,
  trees?: LiveTrees,
): Promise<RunResult> {
  const { signal, timeoutMs, onOutput } = options;
  signal?.throwIfAborted();
  const { containment, mode } = await containmentOf(argv, pidNamespace);
  signal?.throwIfAborted();
  const marker: ProcessMarker = { name: MARKER_NAME, value: crypto.randomUUID() };
  const child = startChild(argv, containment, options, marker, input);
  const pid = child.pid;
  options.onSpawn?.(pid);
  const tree = new TreeStop(child, mode, options.killGraceMs ?? 1000, marker);
  const release = trees === undefined ? () => {} : tree.register(trees);
  let timedOut = false;
  let aborted = false;
  const onAbort = () => {
    aborted = true;
    tree.stop();
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
    timedOut = true;
    tree.stop();
  }, timeoutMs);
  const pump = pumpOutput(child.stdout, onOutput, () => tree.stop());
  const stderr = collectStderr(child.stderr);
  try {
    const final = await tree.status;
    clearTimeout(timer);
    // The leader is done; without a namespace, background stragglers would hold the pipe open,
    // so they go too (a namespace ended with its init).
    if (mode === "tracked") await tree.stop();
    else if (tree.stopping !== undefined) await tree.stopping;
    const pipeHeldOpen = !await drained(pump.done, pump.idleMs);
    // Stop reading what the escaped descendant holds (a pending read would keep us alive).
    if (pipeHeldOpen) await pump.reader.cancel().catch(() => {});
    const extra = await lateDiagnostics(stderr, pipeHeldOpen);
    if (extra.length > 0 && onOutput && pump.error() === undefined) await onOutput(extra);
    if (pump.error() !== undefined) throw pump.error();
    if (tree.error !== undefined) throw tree.error;
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
 * The exit code or signal. A namespace init cannot die of a signal sent to the command, so it
 * exits with `128 + n` (as a shell reports it): that is read back as signal `n`.
 */
function outcome(status: Deno.CommandStatus, mode: Mode): Pick<RunResult, "exitCode" | "signal"> {
  if (status.signal !== null) return { exitCode: null, signal: status.signal };
  const name = initStatusSignal(status.code);
  if (mode === "namespace" && name !== undefined) return { exitCode: null, signal: name };
  return { exitCode: status.code, signal: null };
}
