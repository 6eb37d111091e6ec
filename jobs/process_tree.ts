/**
 * Kill a process tree (its process group and every descendant) and confirm nothing survived.
 *
 * @module
 */

/** Options for {@linkcode killProcessTree}. */
export interface KillProcessTreeOptions {
  /** The process leads its own group (spawned with `detached: true`): signal the whole group. @default {false} */
  readonly group?: boolean;
  /** Time between SIGTERM and SIGKILL. @default {2000} */
  readonly graceMs?: number;
  /** How long to wait for the kernel after SIGKILL before reporting survivors. @default {2000} */
  readonly reapMs?: number;
  /**
   * The root's start time from {@linkcode processStartTime}, taken when it was spawned. If `pid`
   * now names a process with another start time, the id was reused (so nothing of the original
   * tree or group remains) and nothing is signalled.
   * @default {undefined}
   */
  readonly startTime?: number;
}

/** What {@linkcode killProcessTree} did. */
export interface KillProcessTreeResult {
  /** Processes that were alive and were signalled. */
  readonly targeted: readonly number[];
  /** The strongest signal that was needed. `undefined` when nothing was alive. */
  readonly signal?: "SIGTERM" | "SIGKILL";
  /** Processes still alive at the end (empty means the whole tree is gone). */
  readonly survivors: readonly number[];
}

interface ProcStat {
  readonly pid: number;
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly session: number;
  readonly startTime: number;
}

function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return {
    pid,
    state: fields[0] ?? "?",
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    startTime: Number(fields[19]),
  };
}

function allStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    const pid = Number(entry.name);
    if (!Number.isInteger(pid)) continue;
    const stat = readStat(pid);
    if (stat !== undefined) stats.push(stat);
  }
  return stats;
}

/** A process counts as gone once it no longer exists or is a zombie (dead, waiting for its parent). */
function isAlive(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== "Z" && stat.state !== "X";
}

/**
 * The start time of a process (clock ticks since boot, /proc/<pid>/stat field 22): with the pid
 * it identifies a process across pid reuse.
 *
 * @param pid The process id.
 * @returns The start time, or `undefined` when the process does not exist.
 *
 * @example Usage
 * ```ts
 * import { processStartTime } from "./process_tree.ts";
 * import { equal } from "node:assert/strict";
 * equal(typeof processStartTime(Deno.pid), "number");
 * ```
 */
export function processStartTime(pid: number): number | undefined {
  return readStat(pid)?.startTime;
}

/**
 * Lists `pid`, its living descendants and, with `group`, every living member of its process group
 * and session (which catches grandchildren re-parented to init).
 *
 * @param pid The root process.
 * @param group Include the process group and session led by `pid`.
 * @returns Living process ids, the root first.
 *
 * @example Usage
 * ```ts
 * import { processTree } from "./process_tree.ts";
 * import { equal } from "node:assert/strict";
 * equal(processTree(Deno.pid)[0], Deno.pid);
 * ```
 */
export function processTree(pid: number, group = false): number[] {
  const stats = allStats();
  const children = new Map<number, number[]>();
  for (const stat of stats) {
    const list = children.get(stat.ppid) ?? [];
    list.push(stat.pid);
    children.set(stat.ppid, list);
  }
  const found = new Set<number>();
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.pop()!;
    if (found.has(next)) continue;
    found.add(next);
    queue.push(...(children.get(next) ?? []));
  }
  if (group) {
    for (const stat of stats) if (stat.pgrp === pid || stat.session === pid) found.add(stat.pid);
  }
  return [...found].filter(isAlive).sort((a, b) => a === pid ? -1 : b === pid ? 1 : a - b);
}

function signalAll(
  pids: readonly number[],
  root: number,
  group: boolean,
  signal: Deno.Signal,
): void {
  if (group) {
    try {
      Deno.kill(-root, signal);
    } catch { /* the group may be gone already */ }
  }
  for (const pid of pids) {
    try {
      Deno.kill(pid, signal);
    } catch { /* exited between the scan and the signal */ }
  }
}

async function waitGone(pids: readonly number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    alive = alive.filter(isAlive);
  }
  return alive;
}

/**
 * Sends SIGTERM to a process tree (the group when `group`, plus every descendant found in /proc),
 * waits up to `graceMs`, then SIGKILLs whatever is left (re-scanning for new children) and waits
 * until every process is gone or a zombie. Linux only (reads /proc).
 *
 * @param pid The root process id.
 * @param options Group mode and timings.
 * @returns The processes targeted, the strongest signal used and any survivors.
 * @throws {RangeError} When `pid` is not a positive integer other than this process.
 *
 * @example Usage
 * ```ts ignore
 * import { killProcessTree } from "./process_tree.ts";
 * const child = new Deno.Command("sh", { args: ["-c", "sleep 60 & sleep 60"], detached: true }).spawn();
 * const result = await killProcessTree(child.pid, { group: true });
 * await child.status;
 * console.log(result.survivors); // []
 * ```
 */
export async function killProcessTree(
  pid: number,
  options: KillProcessTreeOptions = {},
): Promise<KillProcessTreeResult> {
  const { group = false, graceMs = 2000, reapMs = 2000, startTime } = options;
  if (!Number.isSafeInteger(pid) || pid <= 1 || pid === Deno.pid) {
    throw new RangeError(
      `Cannot kill process tree as 'pid' must be a child process id: current value is ${pid}`,
    );
  }
  const current = processStartTime(pid);
  if (startTime !== undefined && current !== undefined && current !== startTime) {
    return { targeted: [], survivors: [] };
  }
  const targeted = processTree(pid, group);
  if (targeted.length === 0) return { targeted, survivors: [] };
  signalAll(targeted, pid, group, "SIGTERM");
  let alive = await waitGone(targeted, graceMs);
  if (alive.length === 0) return { targeted, signal: "SIGTERM", survivors: [] };
  const late = [...new Set([...alive, ...processTree(pid, group)])];
  signalAll(late, pid, group, "SIGKILL");
  alive = await waitGone(late, reapMs);
  return { targeted: [...new Set([...targeted, ...late])], signal: "SIGKILL", survivors: alive };
}
