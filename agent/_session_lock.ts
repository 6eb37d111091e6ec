/**
 * Private: the `<log>.lock` file that keeps two processes from appending to one session log.
 *
 * The lock holds `{ pid, startTime, token }` and is published atomically (written to a private
 * temp file, then hard-linked into place, which fails when a lock exists). A lock whose process
 * is gone, or whose pid now belongs to a process started at another time (pid reuse), is stale
 * and taken over: the holder crashed, so nothing else appends. A live holder, this process
 * included, is refused with `session <id> in use by pid <n>`.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import { errorMessage } from "../core/error_message.ts";
import { processStartTime } from "../core/process_table.ts";

// This process's start time never changes: read once (without /proc it costs a `ps` spawn).
// `null` when the process table is out of reach (no `--allow-run=ps`): taking a free lock needs
// no permission beyond the log's folder, and a `null` record only loses pid-reuse detection, so
// a later opener errs on the side of "in use".
let ownStart: Promise<number | null> | undefined;
function ownStartTime(): Promise<number | null> {
  ownStart ??= processStartTime(Deno.pid).then((time) => time ?? null, () => null);
  return ownStart;
}

interface LockRecord {
  readonly pid: number;
  readonly startTime: number | null;
  readonly token: string;
}

/** A held lock; `release()` removes the file if it is still ours. Idempotent. */
export interface SessionLock {
  readonly path: string;
  release(): void;
}

const ATTEMPTS = 3;

/**
 * The longest suffix a lock adds to the log's file name: `.lock.<uuid>.stale` (the temp file is
 * `.lock.<uuid>.tmp`).
 */
export const LOCK_SUFFIX_BYTES: number = ".lock.".length + 36 + ".stale".length;

/** Takes the lock of the log at `logPath` for session `sessionId`. */
export async function acquireSessionLock(
  logPath: string,
  sessionId: string,
): Promise<SessionLock> {
  const path = `${logPath}.lock`;
  const mine: LockRecord = {
    pid: Deno.pid,
    startTime: await ownStartTime(),
    token: crypto.randomUUID(),
  };
  const temp = `${path}.${mine.token}.tmp`;
  // Synchronous on the uncontended path: a few small calls, no trip through the thread pool each.
  Deno.writeTextFileSync(temp, JSON.stringify(mine) + "\n", { createNew: true, mode: 0o600 });
  try {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        Deno.linkSync(temp, path);
        return heldLock(path, mine.token);
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      }
      const text = await readOrUndefined(path);
      if (text === undefined) continue; // released meanwhile: try again
      const holder = parseRecord(text);
      if (holder !== undefined && await isRunning(holder)) {
        throw new HarnessError(
          "SESSION_IN_USE",
          `session ${sessionId} in use by pid ${holder.pid}${
            holder.pid === Deno.pid ? " (this process)" : ""
          }: another agent has its log "${logPath}" open; close that agent first (the lock file is "${path}")`,
        );
      }
      await takeOver(path, text);
    }
    throw new HarnessError(
      "SESSION_IN_USE",
      `session ${sessionId} is being opened by another process at the same time: its lock file "${path}" changed ${ATTEMPTS} times`,
    );
  } finally {
    try {
      Deno.removeSync(temp);
    } catch { /* already gone */ }
  }
}

function heldLock(path: string, token: string): SessionLock {
  let held = true;
  return {
    path,
    release(): void {
      if (!held) return;
      held = false;
      try {
        if (parseRecord(Deno.readTextFileSync(path))?.token === token) Deno.removeSync(path);
      } catch { /* already gone */ }
    },
  };
}

/**
 * Moves a stale lock aside. If another process replaced it between our read and the rename,
 * the fresh lock is put back (`link` fails only if a third lock appeared, which then wins).
 */
async function takeOver(path: string, staleText: string): Promise<void> {
  const aside = `${path}.${crypto.randomUUID()}.stale`;
  try {
    await Deno.rename(path, aside);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  const moved = await readOrUndefined(aside);
  if (moved !== staleText) await Deno.link(aside, path).catch(() => {});
  await Deno.remove(aside).catch(() => {});
}

async function isRunning(holder: LockRecord): Promise<boolean> {
  let startTime: number | undefined;
  try {
    startTime = await processStartTime(holder.pid);
  } catch (error) {
    // Cannot tell: refusing is the safe choice (appending twice corrupts the log).
    throw new HarnessError(
      "SESSION_IN_USE",
      `Cannot tell whether pid ${holder.pid}, which holds the session lock, is running: ${
        errorMessage(error)
      }`,
      { cause: error },
    );
  }
  if (startTime === undefined) return false;
  return holder.startTime === null || startTime === holder.startTime;
}

function parseRecord(text: string): LockRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockRecord>;
    if (
      typeof value.pid === "number" && Number.isInteger(value.pid) && value.pid > 0 &&
      typeof value.token === "string"
    ) {
      return {
        pid: value.pid,
        startTime: typeof value.startTime === "number" ? value.startTime : null,
        token: value.token,
      };
    }
  } catch { /* not a lock we wrote */ }
  return undefined;
}

async function readOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}
