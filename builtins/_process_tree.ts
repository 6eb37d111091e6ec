/**
 * Process-tree termination for executors: signal a process group plus every descendant of its
 * leader (descendants may have left the group with `setsid`), plus every process whose environment
 * carries the tree's marker variable (which catches daemons that double-forked away from both),
 * then confirm through `/proc` that nothing is left alive. Zombies count as gone.
 *
 * @module
 */

/** One `/proc/<pid>/stat` row, reduced to what the tree walk needs. */
interface ProcRow {
  readonly pid: number;
  readonly ppid: number;
  readonly pgrp: number;
  readonly state: string;
}

async function readRow(pid: number): Promise<ProcRow | undefined> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    // The command name may hold spaces and parentheses; fields resume after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      pid,
      state: fields[0] ?? "?",
      ppid: Number(fields[1]),
      pgrp: Number(fields[2]),
    };
  } catch {
    return undefined;
  }
}

async function hasMarker(pid: number, marker: string): Promise<boolean> {
  try {
    const environ = await Deno.readFile(`/proc/${pid}/environ`);
    return indexOf(environ, marker) >= 0;
  } catch {
    return false;
  }
}

const ENCODER = new TextEncoder();
const MARKERS = new Map<string, Uint8Array>();

function indexOf(haystack: Uint8Array, marker: string): number {
  let needle = MARKERS.get(marker);
  if (!needle) {
    needle = ENCODER.encode(marker);
    MARKERS.clear();
    MARKERS.set(marker, needle);
  }
  const first = needle[0];
  outer: for (
    let i = haystack.indexOf(first ?? 0);
    i >= 0;
    i = haystack.indexOf(first ?? 0, i + 1)
  ) {
    if (i + needle.length > haystack.length) return -1;
    for (let j = 1; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

async function scan(): Promise<ProcRow[]> {
  const rows: ProcRow[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    const pid = Number(entry.name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const row = await readRow(pid);
    if (row) rows.push(row);
  }
  return rows;
}

/**
 * Live members of the tree rooted at `leader`: the group `leader` plus every descendant of a
 * member, and every pid seen before (`known`) that is still alive.
 */
async function members(
  leader: number,
  known: Set<number>,
  marker: string | undefined,
): Promise<number[]> {
  const rows = await scan();
  const alive = new Map(rows.filter((r) => r.state !== "Z").map((r) => [r.pid, r]));
  const found = new Set<number>();
  for (const row of alive.values()) {
    if (row.pgrp === leader || row.pid === leader || known.has(row.pid)) found.add(row.pid);
    else if (marker !== undefined && await hasMarker(row.pid, marker)) found.add(row.pid);
  }
  // Close over descendants until stable.
  let grew = true;
  while (grew) {
    grew = false;
    for (const row of alive.values()) {
      if (!found.has(row.pid) && found.has(row.ppid)) {
        found.add(row.pid);
        grew = true;
      }
    }
  }
  for (const pid of found) known.add(pid);
  return [...found];
}

function signalAll(leader: number, pids: readonly number[], signal: Deno.Signal): void {
  try {
    Deno.kill(-leader, signal);
  } catch { /* the group may already be empty */ }
  for (const pid of pids) {
    try {
      Deno.kill(pid, signal);
    } catch { /* already gone */ }
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Options for {@linkcode killProcessTree}. */
export interface KillProcessTreeOptions {
  /** Time between SIGTERM and SIGKILL. @default {1000} */
  readonly graceMs?: number;
  /** How long to wait for the kernel after SIGKILL before giving up. @default {5000} */
  readonly confirmMs?: number;
  /** A `NAME=value` environment entry every process of the tree inherited. */
  readonly marker?: string;
}

/**
 * Terminates the process group led by `leader` and all descendants: SIGTERM, a grace period,
 * SIGKILL, then polls `/proc` until none is alive.
 *
 * @param leader The group leader pid (the spawned child, which called `setsid`).
 * @param options Timing.
 * @returns The pids that were signalled.
 * @throws {Error} When processes are still alive after SIGKILL and `confirmMs`.
 */
export async function killProcessTree(
  leader: number,
  options: KillProcessTreeOptions = {},
): Promise<number[]> {
  const { graceMs = 1000, confirmMs = 5000, marker } = options;
  const known = new Set<number>();
  let alive = await members(leader, known, marker);
  if (alive.length === 0) return [];
  signalAll(leader, alive, "SIGTERM");
  const termDeadline = Date.now() + graceMs;
  while (alive.length > 0 && Date.now() < termDeadline) {
    await pause(10);
    alive = await members(leader, known, marker);
  }
  if (alive.length > 0) {
    signalAll(leader, alive, "SIGKILL");
    const killDeadline = Date.now() + confirmMs;
    while (alive.length > 0 && Date.now() < killDeadline) {
      await pause(10);
      alive = await members(leader, known, marker);
      signalAll(leader, alive, "SIGKILL");
    }
  }
  if (alive.length > 0) {
    throw new Error(
      `Cannot confirm that process group ${leader} is gone: pids ${
        JSON.stringify(alive)
      } are still alive after SIGKILL`,
    );
  }
  return [...known];
}

/**
 * Live pids of the tree rooted at `leader` (its group and descendants).
 *
 * @param leader The group leader pid.
 * @param marker The tree's environment marker.
 * @returns Live pids, zombies excluded.
 */
export function processTree(leader: number, marker?: string): Promise<number[]> {
  return members(leader, new Set(), marker);
}
