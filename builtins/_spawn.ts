/**
 * Spawns a command in its own process group (through `setsid`), streams its merged output,
 * and on abort, timeout or exit terminates the whole tree and confirms it is gone.
 *
 * @module
 */
import { killProcessTree } from "./_process_tree.ts";
import { describeRunError } from "./_fs_errors.ts";
import type { RunOptions, RunResult } from "./executor.ts";

/** Size of the reused pipe read buffer. */
const READ_BUFFER_BYTES = 1 << 18;

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
  const markerValue = crypto.randomUUID();
  const marker = `${MARKER_NAME}=${markerValue}`;
  let child: Deno.ChildProcess;
  try {
    const spawnOptions: Deno.CommandOptions = {
      args: ["--", ...argv],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    };
    if (cwd !== undefined) spawnOptions.cwd = cwd;
    spawnOptions.env = { ...env, [MARKER_NAME]: markerValue };
    child = new Deno.Command("setsid", spawnOptions).spawn();
  } catch (error) {
    throw describeRunError("setsid", argv[0] ?? "", error);
  }
  options.onSpawn?.(child.pid);
  let timedOut = false;
  let aborted = false;
  let stopping: Promise<unknown> | undefined;
  let killError: unknown;
  const stop = () =>
    stopping ??= killProcessTree(child.pid, { graceMs: killGraceMs, marker }).catch((error) => {
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
