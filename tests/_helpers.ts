/** Shared test helpers (real resources, no mocking library). */

/** A temp dir removed on dispose: `await using dir = await tempDir();`. */
export async function tempDir(prefix = "dsh_test_"): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

/** True while `pid` exists and is not a zombie (reads `/proc`, so the test needs `--allow-all`). */
export function isAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** A token unique to this test run, to mark processes in their argv. */
export function uniqueToken(prefix = "dsh-mark"): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 12)}`;
}

/**
 * A shell snippet that runs `sleep <seconds>` with `token` as its argv[0], so the host `/proc`
 * finds it (pids printed inside a PID namespace mean nothing on the host).
 */
export function markedSleep(token: string, seconds = 300): string {
  return `bash -c 'exec -a ${token} sleep ${seconds}'`;
}

/** Living (non-zombie) processes with `token` as one of their argv elements (reads host `/proc`). */
export function processesWithArg(token: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    const pid = Number(entry.name);
    if (!Number.isInteger(pid)) continue;
    try {
      const argv = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0");
      if (argv.includes(token) && isAlive(pid)) found.push(pid);
    } catch { /* gone */ }
  }
  return found;
}

/**
 * Polls (every 20 ms) until no living process carries `token`, or `ms` passed (a failure guard,
 * not a timing assertion). Returns the survivors.
 */
export async function waitGone(token: string, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const alive = processesWithArg(token);
    if (alive.length === 0 || Date.now() >= deadline) return alive;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Polls until `count` living processes carry `token` (a failure guard of `ms`). */
export async function waitMarked(token: string, count: number, ms = 30_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const alive = processesWithArg(token);
    if (alive.length >= count) return alive;
    if (Date.now() >= deadline) {
      throw new Error(`expected ${count} processes marked ${token}, found ${alive.length}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
