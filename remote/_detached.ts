/**
 * Private: durable detached runs in a Deno Sandbox. A supervisor in its own session
 * (`setsid nohup bash -c …`, outside the job's group, so a group kill leaves it alive) starts the
 * job as `setsid bash -c SCRIPT` with its merged output in `<dir>/out`, writes its group id to
 * `<dir>/pid`, waits, kills what is left of the group and writes the status to `<dir>/exit`
 * (atomically, after the output is complete). Nothing of it depends on our connection: a later
 * process reattaches by sandbox id and reads the files.
 *
 * @module
 */
import type { Sandbox } from "@deno/sandbox";
import { HarnessError } from "../core/errors.ts";
import {
  type DetachedRead,
  type DetachedRun,
  type ExecutorRecord,
  mergedScript,
} from "../tools/executor.ts";
import { initStatusSignal } from "../jobs/process_containment.ts";
import { disconnected, fsError, isConnectionLoss, isNotFound, unavailable } from "./_errors.ts";

/** Where job folders live in the sandbox. */
const JOBS_DIR = "/tmp/dsh-jobs";

/** `$1` script, `$2` job folder; runs in the background and writes the files. */
const SUPERVISOR = [
  'setsid bash -c "$1" > "$2/out" 2>&1 < /dev/null &',
  "c=$!",
  'printf "%s\\n" "$c" > "$2/pid"',
  'printf "%s\\n" "$c"',
  "exec > /dev/null 2>&1",
  'wait "$c"; s=$?',
  'kill -KILL -- "-$c" 2>/dev/null',
  'printf "%s\\n" "$s" > "$2/exit.tmp" && mv -f -- "$2/exit.tmp" "$2/exit"',
].join("\n");

/** `$1` script, `$2` job folder, `$3` cwd, `$4` the supervisor; prints `dsh:pid N`. */
const LAUNCH = [
  'mkdir -p -- "$2" || exit 98',
  'cd -- "$3" 2>/dev/null || { printf "dsh:nocwd\\n"; exit 97; }',
  'rm -f -- "$2/exit" "$2/exit.tmp" "$2/pid"',
  'pid=$(setsid nohup bash -c "$4" dsh-job "$1" "$2" 2>/dev/null < /dev/null &)',
  'printf "dsh:pid %s\\n" "$pid"',
].join("\n");

/**
 * Starts `command` detached.
 *
 * @param sandbox The live sandbox.
 * @param environment The sandbox's record (kept in the run).
 * @param command The command.
 * @param options The job id (its folder's name), the checked cwd and the environment.
 * @param name The sandbox's name for messages.
 * @returns The run (JSON).
 */
export async function startRemote(
  sandbox: Sandbox,
  environment: ExecutorRecord,
  command: string,
  options: { readonly id: string; readonly cwd: string; readonly env: Record<string, string> },
  name: string,
): Promise<DetachedRun> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(options.id)) {
    throw new TypeError(
      `Cannot start the detached run as 'id' must be 1-128 letters, digits, ".", "_" or "-": current value is ${
        JSON.stringify(options.id)
      }`,
    );
  }
  const dir = `${JOBS_DIR}/${options.id}`;
  let text: string;
  try {
    const child = await sandbox.spawn("bash", {
      args: ["-c", LAUNCH, "dsh-launch", mergedScript(command), dir, options.cwd, SUPERVISOR],
      env: options.env,
      stdout: "piped",
      stderr: "piped",
    });
    const output = await child.output();
    text = output.stdoutText ?? "";
  } catch (error) {
    throw isConnectionLoss(error)
      ? disconnected("start the detached run", name, error)
      : unavailable("start the detached run", name, error);
  }
  if (text.startsWith("dsh:nocwd")) {
    throw new HarnessError(
      "NOT_FOUND",
      `Cannot run the command: working directory "${options.cwd}" is not an existing directory`,
    );
  }
  const match = /^dsh:pid (\d+)$/m.exec(text);
  if (match === null) {
    throw new HarnessError(
      "SPAWN_FAILED",
      `Cannot start the detached run in the ${name}: the launcher printed ${JSON.stringify(text)}`,
    );
  }
  return {
    environment,
    pid: Number(match[1]),
    outputPath: `${dir}/out`,
    exitPath: `${dir}/exit`,
  };
}

/** The exit file's status, or `undefined` while the run goes on. */
async function exitOf(
  sandbox: Sandbox,
  run: DetachedRun,
  name: string,
): Promise<DetachedRead["exit"]> {
  let text: string;
  try {
    text = new TextDecoder().decode(await sandbox.fs.readFile(run.exitPath));
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw fsError("read", run.exitPath, name, error);
  }
  const code = Number.parseInt(text.trim(), 10);
  const signal = Number.isNaN(code) ? undefined : initStatusSignal(code);
  if (signal !== undefined) return { exitCode: null, signal };
  return { exitCode: Number.isNaN(code) ? null : code, signal: null };
}

/**
 * Reads a run's output from `cursor` and whether it ended (the exit file is read first: once it
 * is there, the output is complete).
 *
 * @param sandbox The live sandbox.
 * @param run The run.
 * @param cursor The first byte.
 * @param maxBytes At most this many bytes.
 * @param name The sandbox's name for messages.
 * @returns What was read.
 */
export async function readRemoteRun(
  sandbox: Sandbox,
  run: DetachedRun,
  cursor: number,
  maxBytes: number,
  name: string,
): Promise<DetachedRead> {
  const exit = await exitOf(sandbox, run, name);
  let total: number;
  try {
    total = (await sandbox.fs.stat(run.outputPath)).size;
  } catch (error) {
    throw fsError("read", run.outputPath, name, error);
  }
  const want = Math.max(0, Math.min(maxBytes, total - cursor));
  const bytes = want === 0 ? new Uint8Array() : await readRange(sandbox, run, cursor, want, name);
  return { bytes, total, ...(exit === undefined ? {} : { exit }) };
}

async function readRange(
  sandbox: Sandbox,
  run: DetachedRun,
  cursor: number,
  want: number,
  name: string,
): Promise<Uint8Array> {
  const out = new Uint8Array(want);
  let filled = 0;
  try {
    const file = await sandbox.fs.open(run.outputPath, { read: true });
    try {
      await file.seek(cursor, 0);
      while (filled < want) {
        const part = new Uint8Array(Math.min(want - filled, 1 << 20));
        const read = await file.read(part);
        if (read === null) break;
        out.set(part.subarray(0, read), filled);
        filled += read;
      }
    } finally {
      await file.close().catch(() => {});
    }
  } catch (error) {
    throw fsError("read", run.outputPath, name, error);
  }
  return out.subarray(0, filled);
}
