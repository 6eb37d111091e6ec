/**
 * Shared test helpers (real resources, no mocking library).
 *
 * Time in the tests: no test asserts how long something takes (timings go in `deno bench`).
 * Tests wait on events; where a wait needs a limit, it is a hang guard ({@linkcode HANG_GUARD_MS},
 * {@linkcode within}) that fails only when something hangs, and a kill grace is long enough
 * ({@linkcode TERM_GRACE_MS}) that a process honouring SIGTERM always dies of it, even on a
 * loaded machine. Every such limit is multiplied by one factor, `DSH_TEST_TIME_SCALE`
 * (default 1): raise it on a machine slower than a loaded 2-core runner.
 */

function timeScale(): number {
  let raw: string | undefined;
  try {
    raw = Deno.env.get("DSH_TEST_TIME_SCALE");
  } catch {
    return 1; // no --allow-env
  }
  const scale = Number(raw);
  return raw === undefined || raw === "" || !Number.isFinite(scale) || scale <= 0 ? 1 : scale;
}

/** The one factor of every time limit in the tests: `DSH_TEST_TIME_SCALE`, default 1. */
export const TIME_SCALE: number = timeScale();

/** `ms` multiplied by {@linkcode TIME_SCALE}. */
export function scaled(ms: number): number {
  return Math.ceil(ms * TIME_SCALE);
}

/** The limit of a wait that only guards against a hang: 60 s (scaled). */
export const HANG_GUARD_MS: number = scaled(60_000);

/**
 * A SIGTERM-to-SIGKILL grace for tests that assert SIGTERM ended a process: 20 s (scaled), so a
 * process starved of CPU still dies of SIGTERM; one that dies at once does not wait for it.
 */
export const TERM_GRACE_MS: number = scaled(20_000);

/** Resolves with `promise`, or rejects after `ms` (a hang guard, not a timing). */
export function within<T>(promise: Promise<T>, what: string, ms = HANG_GUARD_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)
    ),
  ]).finally(() => clearTimeout(timer));
}

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
 * Polls (every 20 ms) until no living process carries `token`, or `ms` passed (a hang guard,
 * not a timing assertion). Returns the survivors.
 */
export async function waitGone(token: string, ms = HANG_GUARD_MS): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const alive = processesWithArg(token);
    if (alive.length === 0 || Date.now() >= deadline) return alive;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Polls until `count` living processes carry `token` (a failure guard of `ms`). */
export async function waitMarked(
  token: string,
  count: number,
  ms = HANG_GUARD_MS,
): Promise<number[]> {
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
