/**
 * Private: how the launcher starts the agent process so that no child of the agent inherits
 * what the editor gave the launcher:
 *
 * - **The API key** is not in the agent's environment (so not in `/proc/<agent>/environ`, which
 *   any process of the user outside a PID namespace could read): the agent starts from a copy of
 *   the launcher's environment without `DEEPSEEK_API_KEY`, and the key is the first line the
 *   launcher writes on the agent's stdin (`{"dsh/secrets":…}`, see `takeSecrets`).
 * - **Inherited file descriptors** (an editor or shell may leave descriptors open without
 *   close-on-exec; `Deno.Command` passes them on) are closed: the agent is started through
 *   `bash -p -c '<close every fd above 2>; exec "$@"'` (bash, because dash cannot name descriptors
 *   above 9; `-p` ignores `BASH_ENV` and exported functions). When the launcher may not run
 *   `bash` it starts the agent directly and warns.
 *
 * @module
 */
import { secretsLine } from "./_stdin_prefix.ts";

/** Environment variables the agent never gets in its environment (they come on stdin). */
export const STDIN_SECRETS: readonly string[] = ["DEEPSEEK_API_KEY"];

/** Closes every descriptor above 2, then runs the arguments. */
const CLOSE_FDS =
  'for fd in /proc/self/fd/* /dev/fd/*; do n=${fd##*/}; case $n in ""|*[!0-9]*|0|1|2) ;; *) eval "exec $n>&-";; esac; done; exec "$@"';

/** What {@linkcode agentSpawn} started. */
export interface SpawnedAgent {
  /** The agent process (stdio piped). */
  readonly child: Deno.ChildProcess;
  /** The first bytes to write on its stdin (the secrets line), if any. */
  readonly prefix: Uint8Array | undefined;
  /** Why a protection could not be applied (shown on stderr). */
  readonly warnings: readonly string[];
}

function mayRun(command: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "run", command }).state === "granted";
  } catch {
    return false;
  }
}

/**
 * Spawns `command argv` in `cwd` with stdio piped, the secrets (`STDIN_SECRETS` and `moved`:
 * a remote executor's token and secrets) moved to stdin and inherited descriptors closed.
 *
 * @throws {Error} Whatever `Deno.Command#spawn` throws (not found, permission).
 */
export function agentSpawn(
  command: string,
  argv: readonly string[],
  cwd: string,
  moved: readonly string[] = [],
): SpawnedAgent {
  const env = Deno.env.toObject();
  const secrets: Record<string, string> = {};
  for (const name of new Set([...STDIN_SECRETS, ...moved])) {
    if (env[name] !== undefined) secrets[name] = env[name];
    delete env[name];
  }
  const warnings: string[] = [];
  const wrap = mayRun("bash");
  if (!wrap) {
    warnings.push(
      "cannot close the file descriptors the editor left open before starting the agent: the launcher may not run bash (start it with --allow-run=deno,bash)",
    );
  }
  const child = new Deno.Command(wrap ? "bash" : command, {
    args: wrap ? ["-p", "-c", CLOSE_FDS, "dsh-agent", command, ...argv] : [...argv],
    cwd,
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const prefix = Object.keys(secrets).length > 0 ? secretsLine(secrets) : undefined;
  return { child, prefix, warnings };
}
