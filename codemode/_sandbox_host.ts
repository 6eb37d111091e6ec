/**
 * Private: where a Code Mode sandbox process runs — this machine (`Deno.Command`, the default)
 * or an {@linkcode Executor} (its `spawn`). An executor whose files are this machine's
 * (`hostFiles`) uses this process's Deno binary and a local private directory; a remote one runs
 * `deno` from its own `PATH` and gets its private directory made by a command there.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import type { ExecChild, Executor, SpawnOptions } from "../tools/executor.ts";

/** What a run needs from the machine its sandbox process runs on. */
export interface SandboxHost {
  /** The Deno binary there. */
  execPath(): Promise<string>;
  /** A fresh private directory whose `location_data` is a file, or `undefined`. */
  makePrivateDir(): Promise<string | undefined>;
  /** Removes a private directory (errors ignored). */
  removePrivateDir(dir: string): Promise<void>;
  /** Whether the sandbox must start inside the session's working directory (remote). */
  readonly remote: boolean;
  /** Starts the process; rejects with the raw spawn error (a Deno error or a HarnessError). */
  spawn(program: string, options: SpawnOptions): Promise<ExecChild>;
}

/** The local private directory (see `subprocess_runtime.ts`): `location_data` read-only. */
async function makeLocalDir(): Promise<string | undefined> {
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

/** `Deno.Command` as an {@linkcode ExecChild} (the sandbox has no descendants: kill is per pid). */
function spawnHere(program: string, options: SpawnOptions): Promise<ExecChild> {
  const child = new Deno.Command(program, {
    args: [...options.args ?? []],
    stdin: options.stdin ?? "null",
    stdout: "piped",
    stderr: "piped",
    clearEnv: options.clearEnv === true,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  }).spawn();
  return Promise.resolve({
    pid: child.pid,
    stdin: options.stdin === "piped" ? child.stdin : null,
    stdout: child.stdout,
    stderr: child.stderr,
    status: child.status.then((s) => ({
      success: s.success,
      code: s.code,
      signal: s.signal ?? null,
    })),
    kill(signal = "SIGKILL") {
      try {
        child.kill(signal as Deno.Signal);
      } catch { /* already exited */ }
      return Promise.resolve();
    },
  });
}

/**
 * This machine, without an executor.
 *
 * @param execPath The Deno binary. @default {Deno.execPath()}
 * @returns The host.
 */
export function localHost(execPath?: string): SandboxHost {
  const path = execPath ?? Deno.execPath();
  return {
    execPath: () => Promise.resolve(path),
    makePrivateDir: makeLocalDir,
    removePrivateDir: (dir) => Deno.remove(dir, { recursive: true }).catch(() => {}),
    spawn: spawnHere,
    remote: false,
  };
}

/** Runs `script` and returns its exit code and trimmed output. */
async function capture(
  executor: Executor,
  script: string,
): Promise<{ exitCode: number | null; signal: string | null; text: string }> {
  const decoder = new TextDecoder();
  let text = "";
  const run = await executor.run(script, {
    onOutput: (chunk) => void (text += decoder.decode(chunk, { stream: true })),
  });
  return { exitCode: run.exitCode, signal: run.signal, text: (text + decoder.decode()).trim() };
}

async function lookUpDeno(executor: Executor): Promise<string> {
  const run = await capture(executor, "command -v deno");
  const path = run.text.split("\n").at(-1) ?? "";
  if (run.exitCode !== 0 || !path.startsWith("/")) {
    throw new HarnessError(
      "SPAWN_FAILED",
      `Cannot start the Code Mode sandbox in the ${executor.kind} environment: no "deno" on its PATH` +
        ` ("command -v deno" exited with ${run.exitCode ?? run.signal}); install Deno there`,
    );
  }
  return path;
}

/** Finds `deno` on a remote session's PATH: looked up there once, a failure tried again next time. */
export type DenoLookup = (executor: Executor, sessionId: string | undefined) => Promise<string>;

/**
 * A fresh {@linkcode DenoLookup} remembering each session's `deno`: the runtime that owns it
 * holds it (nothing is kept per executor in the module, so two runtimes share nothing).
 *
 * @returns The lookup.
 */
export function denoLookup(): DenoLookup {
  const found = new Map<string | undefined, Promise<string>>();
  return (executor, sessionId) => {
    let path = found.get(sessionId);
    if (path === undefined) {
      path = lookUpDeno(executor);
      const looked = path;
      looked.catch(() => {
        if (found.get(sessionId) === looked) found.delete(sessionId);
      });
      found.set(sessionId, path);
    }
    return path;
  };
}

/**
 * An executor's machine: its `spawn`; for a remote one (`hostFiles` false) its `deno` and a
 * private directory made (and removed) by commands there.
 *
 * @param executor The executor (already the session's).
 * @param execPath The Deno binary there. @default {Deno.execPath() locally, `deno` on its PATH remotely}
 * @param findDeno Finds `deno` on a remote executor's PATH when `execPath` is not given.
 *   @default {a lookup on every run}
 * @returns The host.
 */
export function executorHost(
  executor: Executor,
  execPath?: string,
  findDeno: () => Promise<string> = () => lookUpDeno(executor),
): SandboxHost {
  const spawn = (program: string, options: SpawnOptions) => executor.spawn(program, options);
  if (executor.hostFiles) return { ...localHost(execPath), spawn };
  return {
    execPath() {
      return execPath !== undefined ? Promise.resolve(execPath) : findDeno();
    },
    // Made by a command: a remote environment may refuse file calls outside the workspace.
    async makePrivateDir() {
      const script = "umask 077; dir=$(mktemp -d /tmp/dsh-code-XXXXXXXX) && " +
        ': > "$dir/location_data" && chmod 444 "$dir/location_data" && echo "$dir"';
      const made = await capture(executor, script).catch(() => undefined);
      const dir = made?.text.split("\n").at(-1);
      return made?.exitCode === 0 && dir?.startsWith("/tmp/dsh-code-") ? dir : undefined;
    },
    async removePrivateDir(dir) {
      await capture(executor, `rm -rf -- '${dir}'`).catch(() => {});
    },
    spawn,
    remote: true,
  };
}
