/**
 * Private: `Deno.Command` behind {@linkcode ExecChild}, for the local executor's `spawn`.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import { errorMessage } from "../core/error_message.ts";
import { permissionHint } from "../core/permission_hint.ts";
import type { ExecChild, SpawnOptions } from "../tools/executor.ts";

/**
 * Spawns `program` with piped stdout and stderr and exactly `env` (the caller merged it).
 *
 * @param program The program.
 * @param options Arguments, cwd, stdin, abort.
 * @param env The whole environment.
 * @returns The child.
 * @throws {HarnessError} `PERMISSION_DENIED` (naming `--allow-run`) or `SPAWN_FAILED`.
 */
export function spawnChild(
  program: string,
  options: SpawnOptions,
  env: Record<string, string>,
): ExecChild {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(program, {
      args: [...options.args ?? []],
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      clearEnv: true,
      env,
      stdin: options.stdin ?? "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    const what = `Cannot start "${program}"`;
    if (error instanceof Deno.errors.NotCapable) {
      throw new HarnessError(
        "PERMISSION_DENIED",
        `${what}: ${permissionHint(`--allow-run=${program}`)}`,
        {
          cause: error,
        },
      );
    }
    throw new HarnessError("SPAWN_FAILED", `${what}: ${errorMessage(error)}`, { cause: error });
  }
  const kill = (signal = "SIGKILL"): Promise<void> => {
    try {
      child.kill(signal as Deno.Signal);
    } catch { /* already gone */ }
    return Promise.resolve();
  };
  options.signal?.addEventListener("abort", () => void kill(), { once: true });
  const status = child.status.then((s) => ({
    success: s.success,
    code: s.code,
    signal: s.signal ?? null,
  }));
  return {
    pid: child.pid,
    stdin: options.stdin === "piped" ? child.stdin : null,
    stdout: child.stdout,
    stderr: child.stderr,
    status,
    kill,
  };
}
