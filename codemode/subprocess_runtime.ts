/**
 * The default Code Mode executor: a fresh `deno run` subprocess per program, with no
 * `--allow-*` flags, an empty environment, a heap cap and a JSON-lines bridge on its stdio.
 *
 * Isolation beyond Deno's permissions (issue 13):
 * - *Storage*: each run gets a private `DENO_DIR` in a fresh temp directory, deleted after the
 *   run, whose `location_data` is a plain file. So `caches`, `localStorage` and
 *   `sessionStorage` fail in every realm (Workers included) and nothing reaches the host's
 *   Deno cache or a later run.
 * - *Memory*: the process runs `--jitless` under `ulimit -d` (RLIMIT_DATA, set by `sh` before
 *   `exec`), so all its writable memory (every Worker's heap, ArrayBuffers) stays within
 *   {@linkcode sandboxMemoryMb}.
 * - *Paths*: the main module is a `data:` loader that evaluates the bootstrap sent on stdin,
 *   the cwd is `/`, and the Deno binary is hard-linked into the private directory when the
 *   file system allows it, so `Deno.mainModule`, `import.meta.url`, stack traces and
 *   `Deno.execPath()` name no host file.
 *
 * @module
 */
import { scrubEnv } from "../core/env_policy.ts";
import { HarnessError } from "../core/errors.ts";
import type { JsonValue } from "../core/json.ts";
import {
  type CodeRunFailureKind,
  type CodeRunOptions,
  type CodeRunResult,
  type CodeRuntime,
  resolveCodeRunLimits,
} from "./runtime.ts";
import { errorMessage } from "../core/error_message.ts";
import { SANDBOX_LOADER, sandboxBootstrapSource } from "./_sandbox_main.ts";
import { permissionHint } from "../core/permission_hint.ts";
import { LineTooLongError, readLines } from "../core/lines.ts";

/** Options of {@linkcode subprocessRuntime}. */
export interface SubprocessRuntimeOptions {
  /** The Deno binary. @default {Deno.execPath()} */
  readonly execPath?: string;
  /** Working directory of the sandbox (what `Deno.cwd()` shows it). @default {"/"} */
  readonly cwd?: string;
}

const BOOTSTRAP_LINE = JSON.stringify(sandboxBootstrapSource()) + "\n";
/** Writable memory the sandbox process may use beyond its V8 heap cap, in MB. */
const PROCESS_OVERHEAD_MB = 256;
/** Sets the limits, hard-links the binary into the private directory when it can, then execs. */
const LIMIT_SCRIPT = [
  "ulimit -c 0 2>/dev/null",
  'ulimit -d "$1" || { echo "dsh: cannot limit the Code Mode sandbox memory" >&2; exit 125; }',
  "exe=$2; dir=$3; shift 3",
  'if [ -n "$dir" ] && ln -- "$exe" "$dir/deno" 2>/dev/null; then exe=$dir/deno; fi',
  'exec "$exe" "$@"',
].join("\n");
/** `DENO_DIR` when no private directory could be made: nothing can be created under a file. */
const NO_STORAGE_DIR = "/dev/null/dsh-no-storage";
const STDERR_KEEP = 16 * 1024;
const MAX_ERROR_CHARS = 8000;

/**
 * The command-line flags of a sandbox process (before the main module).
 *
 * @param heapMb The V8 heap cap in MB.
 * @returns The flags.
 *
 * @example Usage
 * ```ts
 * import { sandboxFlags } from "./subprocess_runtime.ts";
 * import { ok } from "node:assert/strict";
 * const flags = sandboxFlags(64);
 * ok(flags.includes("--no-npm") && !flags.some((f) => f.startsWith("--allow")));
 * ```
 */
export function sandboxFlags(heapMb: number): string[] {
  return [
    "run",
    "--no-prompt",
    "--no-remote",
    "--no-npm",
    "--no-config",
    "--no-lock",
    "--cached-only",
    "--no-code-cache",
    // Without a JIT V8 reserves no code range, so RLIMIT_DATA can be tight (see sandboxMemoryMb).
    `--v8-flags=--jitless,--max-old-space-size=${heapMb}`,
  ];
}

/**
 * The cap on all writable memory of a sandbox process (RLIMIT_DATA): the V8 heap cap plus
 * 256 MB for the runtime, Worker heaps, ArrayBuffers and thread stacks together.
 *
 * @param heapMb The V8 heap cap in MB.
 * @returns The process cap in MB.
 *
 * @example Usage
 * ```ts
 * import { sandboxMemoryMb } from "./subprocess_runtime.ts";
 * import { equal } from "node:assert/strict";
 * equal(sandboxMemoryMb(256), 512);
 * ```
 */
export function sandboxMemoryMb(heapMb: number): number {
  return heapMb + PROCESS_OVERHEAD_MB;
}

function sandboxEnv(): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  // Only what deno itself needs to find its cache; the program cannot read env anyway.
  for (const name of ["DENO_DIR", "XDG_CACHE_HOME", "HOME"]) {
    try {
      const value = Deno.env.get(name);
      if (value !== undefined) env[name] = value;
    } catch { /* no env permission: deno falls back to the user's home */ }
  }
  return env;
}

/**
 * Creates the subprocess executor. The host needs `--allow-run` for the Deno binary; the
 * program gets no permission at all (denials are `NotCapable` errors inside the program). Without
 * that permission `run` rejects with a `HarnessError` (`PERMISSION_DENIED`) naming it.
 *
 * Frames: host → sandbox `run {program}`, `result {id, ok, value | name+message}`;
 * sandbox → host `call {id, name, args}`, `log {text}`, `done {ok, value? | error}`. Every frame
 * from the sandbox is untrusted: a malformed one fails the run (`invalid-output`).
 *
 * @param options Binary, bootstrap and cwd overrides.
 * @returns The runtime.
 *
 * @example Usage
 * ```ts ignore
 * import { subprocessRuntime } from "./subprocess_runtime.ts";
 * const runtime = subprocessRuntime();
 * const result = await runtime.run({
 *   program: "return await tools.echo({ text: 'hi' });",
 *   callTool: (call) => Promise.resolve(JSON.stringify(call.args)),
 * });
 * ```
 */
export function subprocessRuntime(options: SubprocessRuntimeOptions = {}): CodeRuntime {
  const execPath = options.execPath ?? Deno.execPath();
  const cwd = options.cwd ?? (Deno.build.os === "windows" ? undefined : "/");
  return {
    name: "subprocess",
    run: async function runInSubprocess(run: CodeRunOptions): Promise<CodeRunResult> {
      const dir = await makePrivateDir();
      try {
        return await runOnce(run, { execPath, cwd, dir });
      } finally {
        if (dir !== undefined) await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  };
}

interface Spawn {
  readonly execPath: string;
  readonly cwd: string | undefined;
  /** The private directory (`DENO_DIR`), or `undefined` when none could be made. */
  readonly dir: string | undefined;
}

/**
 * A fresh private directory for one run whose `location_data` is a file, so Deno can store no
 * origin data (Cache API, localStorage) in it. `undefined` without write access to the temp dir.
 */
async function makePrivateDir(): Promise<string | undefined> {
  let dir: string;
  try {
    dir = await Deno.makeTempDir({ prefix: "dsh-code-" });
  } catch {
    return undefined;
  }
  try {
    await Deno.writeFile(`${dir}/location_data`, new Uint8Array(), { mode: 0o444 });
    return dir;
  } catch {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    return undefined;
  }
}

/** Environment overrides of the sandbox: only its private directory, no host path. */
function isolationEnv(dir: string | undefined): Record<string, string> {
  const home = dir ?? NO_STORAGE_DIR;
  return { DENO_DIR: home, HOME: home, XDG_CACHE_HOME: home, PATH: "/usr/bin:/bin" };
}

type Failure = { kind: CodeRunFailureKind; message: string };

async function runOnce(run: CodeRunOptions, spawn: Spawn): Promise<CodeRunResult> {
  const limits = resolveCodeRunLimits(run.limits);
  const logs: string[] = [];
  if (run.signal?.aborted) {
    return {
      logs,
      calls: 0,
      error: { kind: "abort", message: "the run was cancelled before it started" },
    };
  }
  const runAbort = new AbortController();
  const encoder = new TextEncoder();
  let outputBytes = 0;
  let calls = 0;
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  const started = new Set<Promise<void>>();
  let settled: { value?: JsonValue; error?: Failure } | undefined;
  const { promise: finished, resolve: finish } = Promise.withResolvers<void>();

  const child = spawnSandbox(spawn, limits.heapMb);

  function settle(outcome: { value?: JsonValue; error?: Failure }): void {
    if (settled) return;
    settled = outcome;
    runAbort.abort(new DOMException("the code run settled", "AbortError"));
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
    finish();
  }
  const fail = (kind: CodeRunFailureKind, message: string) => settle({ error: { kind, message } });

  // Host → sandbox writes, batched per tick; a dead child just drops them.
  const writer = child.stdin.getWriter();
  // The loader evaluates the first line: the bootstrap source.
  writer.write(encoder.encode(BOOTSTRAP_LINE)).catch(() => {});
  let outgoing: string[] = [];
  function send(frame: unknown): void {
    if (settled) return;
    if (outgoing.length === 0) {
      queueMicrotask(() => {
        const data = encoder.encode(outgoing.join(""));
        outgoing = [];
        writer.write(data).catch(() => {});
      });
    }
    outgoing.push(JSON.stringify(frame) + "\n");
  }

  function dispatch(id: number, name: string, args: JsonValue, index: number): void {
    inFlight++;
    const task = (async () => {
      try {
        const value = await run.callTool({ name, args, index, signal: runAbort.signal });
        send({ t: "result", id, ok: true, value: String(value) });
      } catch (error) {
        const message = errorMessage(error);
        send({ t: "result", id, ok: false, name, message });
      } finally {
        inFlight--;
        waiting.shift()?.();
      }
    })();
    started.add(task);
    task.finally(() => started.delete(task));
  }

  function addOutput(text: string): boolean {
    outputBytes += encoder.encode(text).length;
    if (outputBytes > limits.maxOutputBytes) {
      fail(
        "output-limit",
        `the program produced more than ${limits.maxOutputBytes} bytes of output`,
      );
      return false;
    }
    return true;
  }

  function onFrame(line: string): void {
    if (settled) return;
    let frame: Record<string, unknown>;
    try {
      frame = JSON.parse(line);
      if (frame === null || typeof frame !== "object" || Array.isArray(frame)) {
        throw new TypeError();
      }
    } catch {
      return fail(
        "invalid-output",
        `the sandbox wrote a line that is not a bridge frame: ${clip(line, 200)}`,
      );
    }
    switch (frame.t) {
      case "log": {
        const text = String(frame.text);
        if (addOutput(text + "\n")) logs.push(text);
        return;
      }
      case "call": {
        const { id, name, args } = frame;
        if (typeof id !== "number" || typeof name !== "string" || args === undefined) {
          return fail(
            "invalid-output",
            `the sandbox sent a malformed call frame: ${clip(line, 200)}`,
          );
        }
        calls++;
        if (calls > limits.maxCalls) {
          return fail("call-limit", `the program made more than ${limits.maxCalls} tool calls`);
        }
        const index = calls;
        if (inFlight < limits.maxInFlight) dispatch(id, name, args as JsonValue, index);
        else waiting.push(() => settled || dispatch(id, name, args as JsonValue, index));
        return;
      }
      case "done":
        return onDone(frame);
      default:
        return fail("invalid-output", `the sandbox sent an unknown frame: ${clip(line, 200)}`);
    }
  }

  function onDone(frame: Record<string, unknown>): void {
    if (frame.ok === true) {
      if (typeof frame.value !== "string") return settle({});
      if (!addOutput(frame.value)) return;
      try {
        return settle({ value: JSON.parse(frame.value) });
      } catch {
        return fail("invalid-output", "the returned value is not valid JSON");
      }
    }
    const error = (frame.error ?? {}) as Record<string, unknown>;
    const name = typeof error.name === "string" ? error.name : "Error";
    let message = typeof error.message === "string" ? error.message : "";
    if (name === "InvalidOutput") return fail("invalid-output", message);
    if (!(name === "TypeError" && /^SyntaxError: /.test(message))) message = `${name}: ${message}`;
    if (typeof error.line === "number") message += ` (line ${error.line})`;
    fail("exception", clip(message, MAX_ERROR_CHARS));
  }

  const timer = setTimeout(
    () => fail("timeout", `the program did not finish within ${limits.timeoutMs} ms`),
    limits.timeoutMs,
  );
  const onAbort = () => fail("abort", "the run was cancelled");
  run.signal?.addEventListener("abort", onAbort, { once: true });

  const stderrTail = readStderr(child.stderr);
  const stdoutDone = readFrames(child.stdout, limits.maxFrameBytes, onFrame, () => {
    fail(
      "output-limit",
      `the sandbox sent a bridge frame larger than ${limits.maxFrameBytes} bytes`,
    );
  });

  send({ t: "run", program: run.program });
  const status = child.status;
  // Exit before `done` (crash, OOM, Deno.exit in the program) settles the run too.
  status.then(async (s) => {
    await stdoutDone;
    if (settled) return;
    const stderr = await stderrTail;
    if (/Fatal process out of memory|Failed to reserve/i.test(stderr)) {
      fail(
        "out-of-memory",
        `the program exceeded the sandbox's ${sandboxMemoryMb(limits.heapMb)} MB memory limit`,
      );
    } else if (/out of memory/i.test(stderr)) {
      fail("out-of-memory", `the program exceeded the ${limits.heapMb} MB heap limit`);
    } else {
      const how = s.signal ? `signal ${s.signal}` : `code ${s.code}`;
      fail("exit", `the sandbox process exited with ${how} before the program finished`);
    }
  });

  await finished;
  clearTimeout(timer);
  run.signal?.removeEventListener("abort", onAbort);
  // Settlement drains the calls in flight; queued ones never start.
  waiting.length = 0;
  while (started.size > 0) await Promise.allSettled([...started]);
  await status;
  await stdoutDone;
  await stderrTail;
  await writer.close().catch(() => {});
  const result: { value?: JsonValue; logs: string[]; error?: Failure; calls: number } = {
    logs,
    calls: Math.min(calls, limits.maxCalls),
  };
  if (settled?.error) result.error = settled.error;
  else if (settled?.value !== undefined) result.value = settled.value;
  return result;
}

/** Starts the sandbox process; a missing `--allow-run` becomes an error that names it. */
function spawnSandbox(spawn: Spawn, heapMb: number): Deno.ChildProcess {
  // POSIX: `sh` sets RLIMIT_DATA (and no core dumps) for the whole process, then execs Deno.
  const posix = Deno.build.os !== "windows";
  const deno = [...sandboxFlags(heapMb), SANDBOX_LOADER];
  const program = posix ? "sh" : spawn.execPath;
  const memoryKb = String(sandboxMemoryMb(heapMb) * 1024);
  try {
    return new Deno.Command(program, {
      args: posix
        ? ["-c", LIMIT_SCRIPT, "dsh-sandbox", memoryKb, spawn.execPath, spawn.dir ?? "", ...deno]
        : deno,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      clearEnv: true,
      env: { ...scrubEnv(sandboxEnv()), ...isolationEnv(spawn.dir) },
      ...(spawn.cwd === undefined ? {} : { cwd: spawn.cwd }),
    }).spawn();
  } catch (error) {
    const what = `Cannot start the Code Mode sandbox "${spawn.execPath}"`;
    if (error instanceof Deno.errors.NotCapable) {
      const why = posix ? " (it applies the sandbox's memory limit)" : "";
      throw new HarnessError(
        "PERMISSION_DENIED",
        `${what}: ${permissionHint(`--allow-run=${program}`)}${why}`,
        { cause: error },
      );
    }
    const message = errorMessage(error);
    throw new HarnessError("SPAWN_FAILED", `${what}: ${message}`, { cause: error });
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters]` : text;
}

/**
 * Hands each whole line of the sandbox's stdout to `onLine` (a line cut by the sandbox's exit is
 * no frame); a line over the cap calls `onOversize` and ends the reading.
 */
async function readFrames(
  stream: ReadableStream<Uint8Array>,
  maxLineBytes: number,
  onLine: (line: string) => void,
  onOversize: () => void,
): Promise<void> {
  try {
    for await (const line of readLines(stream, { maxLineBytes, unterminated: "drop" })) {
      onLine(line);
    }
  } catch (error) {
    if (error instanceof LineTooLongError) onOversize();
  }
}

async function readStderr(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let tail = "";
  for await (const chunk of stream) {
    tail = (tail + decoder.decode(chunk, { stream: true })).slice(-STDERR_KEEP);
  }
  return tail;
}
