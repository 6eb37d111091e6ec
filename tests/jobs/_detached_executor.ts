/**
 * A real durable executor for the tests: a {@linkcode LocalExecutor} whose `startDetached`
 * starts the command with `setsid --fork` in its own session, outside the test's process tree,
 * writing its merged output and then its exit status to files under `root` (the "environment").
 * The run outlives the agent object and the process that started it; `readDetached` reads the
 * files, `killDetached` signals the run's process group. Removing `root` is a gone environment.
 */
import { HarnessError } from "../../core/errors.ts";
import { childEnv } from "../../core/env_policy.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import type { DetachedRead, DetachedRun, ExecutorRecord } from "../../tools/executor.ts";

// $1 command, $2 output file, $3 exit file, $4 cwd. The command runs as the leader of a new
// session (its pid is its process group id, printed for startDetached); the wrapper waits for it
// outside that group, so a group kill leaves the wrapper to record the status.
const WRAPPER = `
cd "$4" || exit 1
setsid bash -c "$1" </dev/null >"$2" 2>&1 &
pid=$!
echo "$pid"
exec >/dev/null 2>&1
wait "$pid"
status=$?
printf '%s' "$status" >"$3.tmp" && mv "$3.tmp" "$3"
`;

const SIGNALS: Readonly<Record<number, string>> = {
  1: "SIGHUP",
  2: "SIGINT",
  3: "SIGQUIT",
  6: "SIGABRT",
  9: "SIGKILL",
  13: "SIGPIPE",
  14: "SIGALRM",
  15: "SIGTERM",
};

/** The durable test executor. */
export class DetachedTestExecutor extends LocalExecutor {
  override readonly kind: string = "detached-test";
  /** The environment: every run's files live under it. */
  readonly root: string;
  /** Fault switch: reads and kills fail as a dropped connection would (the runs go on). */
  unreachable = false;
  #held: Promise<void> | undefined;

  /** Fault switch: reads wait until the returned function is called (calls stuck on the wire). */
  holdReads(): () => void {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#held = promise;
    return () => {
      this.#held = undefined;
      resolve();
    };
  }

  constructor(root: string) {
    super({ pidNamespace: false });
    this.root = root;
  }

  /** What the log records of this environment. */
  get environment(): ExecutorRecord {
    return { provider: "detached-test", id: this.root };
  }

  override open(_resume?: ExecutorRecord): Promise<ExecutorRecord> {
    return Promise.resolve(this.environment);
  }

  async startDetached(
    command: string,
    options: { readonly id: string; readonly cwd?: string; readonly env?: Record<string, string> },
  ): Promise<DetachedRun> {
    const dir = `${this.root}/${options.id}`;
    await Deno.mkdir(dir, { recursive: true });
    const outputPath = `${dir}/output`;
    const exitPath = `${dir}/exit`;
    await Deno.writeFile(outputPath, new Uint8Array());
    const { stdout, success } = await new Deno.Command("setsid", {
      args: [
        "--fork",
        "bash",
        "-c",
        WRAPPER,
        "dsh-detached",
        command,
        outputPath,
        exitPath,
        options.cwd ?? Deno.cwd(),
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
      clearEnv: true,
      env: { ...childEnv(), ...options.env },
    }).output();
    const pid = Number(new TextDecoder().decode(stdout).trim());
    if (!success || !Number.isSafeInteger(pid) || pid < 1) {
      throw new HarnessError("SPAWN_FAILED", `cannot start a detached run in ${dir}`);
    }
    return { environment: this.environment, pid, outputPath, exitPath };
  }

  async readDetached(run: DetachedRun, cursor: number, maxBytes: number): Promise<DetachedRead> {
    this.#check(run);
    if (this.#held !== undefined) await this.#held;
    // The exit file first: once it is there, the output is complete.
    let status: string | undefined;
    try {
      status = await Deno.readTextFile(run.exitPath);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    let output: Uint8Array;
    try {
      output = await Deno.readFile(run.outputPath);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw new HarnessError("EXECUTOR_GONE", `the run's output ${run.outputPath} is gone`);
    }
    return {
      bytes: output.subarray(cursor, cursor + maxBytes),
      total: output.length,
      ...(status !== undefined ? { exit: exitOf(Number(status)) } : {}),
    };
  }

  async killDetached(run: DetachedRun, signal: string): Promise<void> {
    this.#check(run);
    // An ended run's group id may belong to someone else by now.
    if (await Deno.stat(run.exitPath).then(() => true, () => false)) return;
    try {
      Deno.kill(-run.pid, signal as Deno.Signal);
    } catch {
      // The group is gone already.
    }
  }

  #check(run: DetachedRun): void {
    if (this.unreachable) {
      throw new HarnessError("REMOTE_DISCONNECTED", `cannot reach the environment ${this.root}`);
    }
    try {
      Deno.statSync(this.root);
    } catch {
      throw new HarnessError("EXECUTOR_GONE", `the environment ${this.root} is gone`);
    }
    if (run.environment.id !== this.root) {
      throw new HarnessError(
        "EXECUTOR_GONE",
        `run ${run.pid} belongs to environment ${run.environment.id}, not ${this.root}`,
      );
    }
  }
}

function exitOf(status: number): { exitCode: number | null; signal: string | null } {
  const signal = status > 128 ? SIGNALS[status - 128] : undefined;
  return signal !== undefined ? { exitCode: null, signal } : { exitCode: status, signal: null };
}
