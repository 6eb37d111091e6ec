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
import {
  type CodeRunOptions,
  type CodeRunResult,
  type CodeRuntime,
  resolveCodeRunLimits,
} from "./runtime.ts";
import { errorMessage } from "../core/error_message.ts";
import { SANDBOX_LOADER, sandboxBootstrapSource } from "./_sandbox_main.ts";
import { permissionHint } from "../core/permission_hint.ts";
import { SandboxRun } from "./_sandbox_run.ts";
import { denoLookup, executorHost, localHost, type SandboxHost } from "./_sandbox_host.ts";
import { type ExecChild, type Executor, executorFor } from "../tools/executor.ts";

/** Options of {@linkcode subprocessRuntime}. */
export interface SubprocessRuntimeOptions {
  /**
   * The Deno binary. @default {Deno.execPath(), or `deno` on the executor's PATH when its files
   * are not this machine's}
   */
  readonly execPath?: string;
  /** Working directory of the sandbox (what `Deno.cwd()` shows it). @default {"/"} */
  readonly cwd?: string;
  /**
   * Where each program's sandbox process starts (`spawn`), per session (see `executorFor`): a
   * remote executor runs the sandbox in the session's own environment, its private directory
   * made there. @default {this machine, through `Deno.Command`}
   */
  readonly executor?: Executor;
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
  const cwd = options.cwd ?? (Deno.build.os === "windows" ? undefined : "/");
  const hostOf = sandboxHosts(options);
  return {
    name: "subprocess",
    run: async function runInSubprocess(run: CodeRunOptions): Promise<CodeRunResult> {
      const host = hostOf(run.sessionId);
      const dir = await host.makePrivateDir();
      try {
        // A remote environment starts programs only inside the workspace: the session's cwd.
        const where = host.remote ? run.cwd ?? cwd : cwd;
        return await runOnce(run, { host, cwd: where, dir });
      } finally {
        if (dir !== undefined) await host.removePrivateDir(dir);
      }
    },
  };
}

/**
 * Where each session's sandbox runs. A remote session's `deno` is looked up once: the lookup's
 * memory belongs to this runtime, not to the module.
 */
function sandboxHosts(
  { executor, execPath }: SubprocessRuntimeOptions,
): (sessionId: string | undefined) => SandboxHost {
  if (executor === undefined) {
    const local = localHost(execPath);
    return () => local;
  }
  const findDeno = denoLookup();
  return (sessionId) => {
    const session = executorFor(executor, sessionId);
    return executorHost(session, execPath, () => findDeno(session, sessionId));
  };
}

interface Spawn {
  readonly host: SandboxHost;
  readonly cwd: string | undefined;
  /** The private directory (`DENO_DIR`), or `undefined` when none could be made. */
  readonly dir: string | undefined;
}

/** Environment overrides of the sandbox: only its private directory, no host path. */
function isolationEnv(dir: string | undefined): Record<string, string> {
  const home = dir ?? NO_STORAGE_DIR;
  return { DENO_DIR: home, HOME: home, XDG_CACHE_HOME: home, PATH: "/usr/bin:/bin" };
}

async function runOnce(run: CodeRunOptions, spawn: Spawn): Promise<CodeRunResult> {
  const limits = resolveCodeRunLimits(run.limits);
  if (run.signal?.aborted) {
    return {
      logs: [],
      calls: 0,
      // Same words as a cancel mid-run: when the cancel lands is a race the caller cannot see.
      error: { kind: "abort", message: "the run was cancelled" },
    };
  }
  const child = await spawnSandbox(spawn, limits.heapMb);
  return await new SandboxRun(run, limits, child, BOOTSTRAP_LINE).result(
    sandboxMemoryMb(limits.heapMb),
  );
}

/** Starts the sandbox process; a missing `--allow-run` becomes an error that names it. */
async function spawnSandbox(spawn: Spawn, heapMb: number): Promise<ExecChild> {
  // POSIX: `sh` sets RLIMIT_DATA (and no core dumps) for the whole process, then execs Deno.
  const posix = Deno.build.os !== "windows";
  const deno = [...sandboxFlags(heapMb), SANDBOX_LOADER];
  const execPath = await spawn.host.execPath();
  const program = posix ? "sh" : execPath;
  const memoryKb = String(sandboxMemoryMb(heapMb) * 1024);
  try {
    return await spawn.host.spawn(program, {
      args: posix
        ? ["-c", LIMIT_SCRIPT, "dsh-sandbox", memoryKb, execPath, spawn.dir ?? "", ...deno]
        : deno,
      stdin: "piped",
      clearEnv: true,
      env: { ...scrubEnv(sandboxEnv()), ...isolationEnv(spawn.dir) },
      ...(spawn.cwd === undefined ? {} : { cwd: spawn.cwd }),
    });
  } catch (thrown) {
    // An executor wraps the spawn error: judge the original.
    const error = thrown instanceof HarnessError && thrown.cause !== undefined
      ? thrown.cause
      : thrown;
    const what = `Cannot start the Code Mode sandbox "${execPath}"`;
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
