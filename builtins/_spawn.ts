/**
 * Spawns a command in its own process group (through `setsid`), streams its merged output,
 * and on abort, timeout or exit terminates the whole tree and confirms it is gone.
 *
 * @module
 */
import {
  killProcessTree,
  type KillProcessTreeOptions,
  type ProcessMarker,
  processStartTime,
} from "../jobs/process_tree.ts";
import { describeRunError } from "./_fs_errors.ts";
import type { RunOptions, RunResult } from "./executor.ts";

/** Size of the reused pipe read buffer. */
const READ_BUFFER_BYTES = 1 << 18;

/** How long to wait for the kernel after SIGKILL before reporting survivors as an error. */
const CONFIRM_MS = 5000;

/** The environment variable that tags every process of a run (inherited by descendants). */
export const MARKER_NAME = "DSH_EXEC_TREE";

/**
 * Runs `argv` under `setsid`. The caller's script merges the shell's stderr into stdout; what
 * still arrives on stderr (wrapper diagnostics from `setsid` or `bwrap`) is passed on after stdout.
 *
 * @param argv The program and its arguments.
 * @param options Run options.
 * @returns How the process ended.
 */
export async function spawnTree(argv: readonly string[], options: RunOptions): Promise<RunResult> {
  const { signal, timeoutMs, onOutput, cwd, env, killGraceMs = 1000 } = options;
  signal?.throwIfAborted();
  const marker: ProcessMarker = { name: MARKER_NAME, value: crypto.randomUUID() };
  let child: Deno.ChildProcess;
  try {
    const spawnOptions: Deno.CommandOptions = {
      args: ["--", ...argv],
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
  options.onSpawn?.(child.pid);
  const killOptions: KillProcessTreeOptions = {
    group: true,
    graceMs: killGraceMs,
    reapMs: CONFIRM_MS,
    marker,
  };
  // Guards the leader's pid against reuse once it has exited and been reaped; probed in the
  // background so a `ps` fallback never delays the command.
  const leaderStart = processStartTime(child.pid).catch(() => undefined);
  let timedOut = false;
  let aborted = false;
  let stopping: Promise<unknown> | undefined;
  let killError: unknown;
  const stop = () =>
    stopping ??= leaderStart.then((startTime) =>
      killProcessTree(
        child.pid,
        startTime === undefined ? killOptions : { ...killOptions, startTime },
      )
    ).then(({ survivors }) => {
      if (survivors.length === 0) return;
      killError = new Error(
        `Cannot confirm that process group ${child.pid} is gone: pids ${
          JSON.stringify(survivors)
        } are still alive after SIGKILL`,
      );
    }, (error) => {
      killError = error;
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
  const pump = (async () => {
    // BYOB reads into one reused buffer keep memory flat for huge outputs.
    const reader = child.stdout.getReader({ mode: "byob" });
    let buffer = new Uint8Array(READ_BUFFER_BYTES);
    for (;;) {
      const { value, done } = await reader.read(buffer);
      if (done || value === undefined) break;
      if (onOutput) await onOutput(value);
      buffer = new Uint8Array(value.buffer);
    }
  })().catch((error) => {
    pumpError = error;
    stop();
  });
  const diagnostics = new Response(child.stderr).bytes();
  try {
    const status = await child.status;
    clearTimeout(timer);
    // The leader is done; background stragglers would hold the pipe open, so they go too.
    await stop();
    await pump;
    const extra = await diagnostics;
    if (extra.length > 0 && onOutput && pumpError === undefined) await onOutput(extra);
    if (pumpError !== undefined) throw pumpError;
    if (killError !== undefined) throw killError;
    return {
      pid: child.pid,
      exitCode: status.signal === null ? status.code : null,
      signal: status.signal,
      timedOut,
      aborted,
    };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}
