/**
 * The stand-in's process and environment methods: `spawn` (in the bwrap box, stdout/stderr
 * streamed, stdin from a client stream), `processWait`, `processKill` (per pid, as the real
 * service: no group kill), and `envGet` / `envSet` / `envToObject` / `envDelete`.
 *
 * @module
 */
import {
  BASE_PATH,
  denoBinary,
  denoBinDir,
  remotePath,
  resolveCommand,
  SANDBOX_HOME,
  startBoxProcess,
} from "./_sandbox_box.ts";
import { type FsContext, hostPath } from "./_sandbox_fs.ts";
import type { StandInSandbox } from "./_sandbox_state.ts";
import { optionalParam, stringParam, WireFailure } from "./_sandbox_wire.ts";

type Params = Record<string, unknown>;
type ProcessMethod = (sandbox: StandInSandbox, conn: FsContext, params: Params) => Promise<unknown>;

/** The environment a spawn starts with: base, then the sandbox's `envSet`s, then its own. */
function spawnEnv(
  sandbox: StandInSandbox,
  own: Record<string, string>,
  clearEnv: boolean,
): Record<string, string> {
  if (clearEnv) return { ...own };
  const base: Record<string, string> = {
    PATH: `${BASE_PATH}:${denoBinDir()}`,
    HOME: SANDBOX_HOME,
    DENO_NO_UPDATE_CHECK: "1",
  };
  return { ...base, ...Object.fromEntries(sandbox.env), ...own };
}

function stringRecord(value: unknown): Record<string, string> {
  if (value === null || value === undefined) return {};
  if (typeof value !== "object") throw new WireFailure("TypeError", "env must be an object");
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, String(item)]));
}

async function spawn(sandbox: StandInSandbox, conn: FsContext, params: Params) {
  const command = stringParam(params, "command");
  const args = Array.isArray(params.args) ? params.args.map(String) : [];
  const cwd = remotePath(optionalParam<string>(params, "cwd", "string") ?? SANDBOX_HOME);
  const info = await Deno.stat(await hostPath(sandbox.root, cwd)).catch(() => null);
  if (info === null || !info.isDirectory) {
    throw new WireFailure(
      "NotFound",
      `Failed to spawn '${command}': cwd '${cwd}' is not a directory (os error 2)`,
      "ENOENT",
    );
  }
  const env = spawnEnv(sandbox, stringRecord(params.env), params.clearEnv === true);
  await resolveCommand(sandbox.root, command, cwd, env.PATH);
  const stdinStreamId = optionalParam<number>(params, "stdinStreamId", "number");
  const process = await startBoxProcess({
    root: sandbox.root,
    command,
    args,
    cwd,
    env,
    stdin: stdinStreamId !== undefined,
    stdout: params.stdout === "piped",
    stderr: params.stderr === "piped",
    network: sandbox.network,
  });
  sandbox.track(process);
  sandbox.spawns.push({ pid: process.pid, command, args, cwd, env });
  if (stdinStreamId !== undefined) {
    conn.takeInbound(stdinStreamId).pipeTo(process.child.stdin).catch(() => {});
  }
  return {
    pid: process.pid,
    stdoutStreamId: params.stdout === "piped" ? conn.sendStream(process.child.stdout) : null,
    stderrStreamId: params.stderr === "piped" ? conn.sendStream(process.child.stderr) : null,
  };
}

const DENO_EXTENSIONS = new Set(["js", "cjs", "mjs", "ts", "cts", "mts", "jsx", "tsx"]);

/** `deno.run({ code | entrypoint })`: `deno run -A` in the box (no watch, no HTTP routing). */
async function spawnDeno(sandbox: StandInSandbox, conn: FsContext, params: Params) {
  let entry = optionalParam<string>(params, "entrypoint", "string");
  if (entry === undefined) {
    const extension = stringParam(params, "extension");
    if (!DENO_EXTENSIONS.has(extension)) {
      throw new WireFailure("TypeError", `Invalid extension: ${extension}`);
    }
    entry = `/tmp/.stand-in-deno-${crypto.randomUUID()}.${extension}`;
    await Deno.writeTextFile(`${sandbox.root}${entry}`, stringParam(params, "code"));
  }
  const scriptArgs = Array.isArray(params.scriptArgs) ? params.scriptArgs.map(String) : [];
  const started = await spawn(sandbox, conn, {
    ...params,
    command: denoBinary(),
    args: ["run", "-A", entry, ...scriptArgs],
  });
  return { ...started, watcherId: null };
}

/** `httpReady`: the stand-in routes no HTTP, so it answers `false` when the process ends. */
async function denoHttpWait(sandbox: StandInSandbox, _conn: FsContext, params: Params) {
  const process = sandbox.processes.get(Number(params.pid));
  if (process !== undefined) await process.status;
  return false;
}

function noProcess(pid: number): WireFailure {
  return new WireFailure("NotFound", `No such process: ${pid} (os error 3)`, "ENOENT");
}

async function processWait(sandbox: StandInSandbox, _conn: FsContext, params: Params) {
  const pid = Number(params.pid);
  const process = sandbox.processes.get(pid);
  if (process === undefined) throw noProcess(pid);
  return await process.status;
}

async function processKill(sandbox: StandInSandbox, _conn: FsContext, params: Params) {
  const pid = Number(params.pid);
  const signal = optionalParam<string>(params, "signal", "string") ?? "SIGTERM";
  if (!/^SIG[A-Z0-9]+$/.test(signal)) {
    throw new WireFailure("TypeError", `Invalid signal: ${signal}`);
  }
  // A spawn still running, or any live process under this sandbox's root (a detached job); an
  // ended spawn's pid may belong to someone else by now.
  const spawned = sandbox.processes.get(pid);
  const running = spawned !== undefined && !spawned.exited.done;
  if (!running && !await sandbox.ownsPid(pid)) throw noProcess(pid);
  try {
    Deno.kill(pid, signal as Deno.Signal);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw noProcess(pid);
    throw error;
  }
  return null;
}

/** The process and env methods by JSON-RPC name. */
export const PROCESS_METHODS: Readonly<Record<string, ProcessMethod>> = {
  spawn,
  spawnDeno,
  denoHttpWait,
  processWait,
  processKill,
  envGet: (sandbox, _conn, params) =>
    Promise.resolve(sandbox.env.get(stringParam(params, "key")) ?? null),
  envSet: (sandbox, _conn, params) => {
    const key = stringParam(params, "key");
    const value = stringParam(params, "value");
    sandbox.env.set(key, value);
    sandbox.envSets.push({ key, value });
    return Promise.resolve(null);
  },
  envToObject: (sandbox) => Promise.resolve(Object.fromEntries(sandbox.env)),
  envDelete: (sandbox, _conn, params) => {
    sandbox.env.delete(stringParam(params, "key"));
    return Promise.resolve(null);
  },
};
