/**
 * The process table and process-tree termination, for every layer that spawns processes (the
 * jobs service, the shell executor, MCP stdio servers).
 *
 * The table comes from `/proc` when this process may read it. Deno 2 refuses `/proc` to anything
 * short of `--allow-all`, so under an explicit permission profile the table comes from a `ps`
 * subprocess instead (needs `--allow-run=ps`). Signals go through `Deno.kill`, which needs an
 * unrestricted `--allow-run`; under a restricted one they go through a `kill` subprocess
 * (needs `--allow-run=kill`). Each choice is probed once and kept for the life of the process.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import {
  type ProcessRow,
  processStartTime,
  processTable as table,
  processTableSync as tableSync,
} from "../core/process_table.ts";

export { processStartTime };

/** An environment entry every process of a tree inherited (`name=value`). */
export interface ProcessMarker {
  /** The variable name, for example `DSH_EXEC_TREE`. */
  readonly name: string;
  /** Its value, unique per tree (for example a random UUID). */
  readonly value: string;
}

/** Options for {@linkcode killProcessTree}. */
export interface KillProcessTreeOptions {
  /**
   * The process leads its own group (spawned with `detached: true` or through `setsid`): signal
   * the whole group and every member of its group and session.
   * @default {false}
   */
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
  /**
   * An environment entry the whole tree inherited: every living process carrying it is part of
   * the tree, which catches daemons that double-forked away from both the group and the tree.
   * @default {undefined}
   */
  readonly marker?: ProcessMarker;
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

/**
 * The living members of the tree rooted at `root`: the root, with `group` every member of its
 * process group and session, every process carrying `marker`, every process in `known` that kept
 * its start time, and all their descendants. Never this process nor init.
 */
function members(
  rows: readonly ProcessRow[],
  root: number,
  group: boolean,
  known: ReadonlyMap<number, number>,
): ProcessRow[] {
  const found = new Map<number, ProcessRow>();
  for (const row of rows) {
    if (
      row.pid === root || row.marked || known.get(row.pid) === row.startTime ||
      (group && (row.pgrp === root || row.session === root))
    ) found.set(row.pid, row);
  }
  const children = new Map<number, ProcessRow[]>();
  for (const row of rows) {
    const siblings = children.get(row.ppid);
    if (siblings === undefined) children.set(row.ppid, [row]);
    else siblings.push(row);
  }
  const queue = [...found.values()];
  for (let row = queue.pop(); row !== undefined; row = queue.pop()) {
    for (const child of children.get(row.pid) ?? []) {
      if (!found.has(child.pid)) {
        found.set(child.pid, child);
        queue.push(child);
      }
    }
  }
  found.delete(Deno.pid);
  found.delete(1);
  return [...found.values()];
}

function rootFirst(pids: Iterable<number>, root: number): number[] {
  return [...pids].sort((a, b) => a === root ? -1 : b === root ? 1 : a - b);
}

/**
 * Lists `pid`, its living descendants and, with `group`, every living member of its process group
 * and session (which catches grandchildren re-parented to init). Zombies count as gone.
 *
 * @param pid The root process.
 * @param group Include the process group and session led by `pid`.
 * @returns Living process ids, the root first.
 * @throws {Error} When neither `/proc` nor `ps` is available.
 *
 * @example Usage
 * ```ts
 * import { processTree } from "./process_tree.ts";
 * import { equal } from "node:assert/strict";
 * const child = new Deno.Command("sleep", { args: ["30"] }).spawn();
 * equal(processTree(child.pid)[0], child.pid);
 * child.kill();
 * await child.status;
 * ```
 */
export function processTree(pid: number, group = false): number[] {
  return rootFirst(members(tableSync(), pid, group, new Map()).map((row) => row.pid), pid);
}

function killFailure(error: unknown): Error {
  return new Error(
    `Cannot signal a process tree: Deno.kill requires an unrestricted --allow-run and "kill" cannot be run (grant --allow-run=kill): ${
      errorMessage(error)
    }`,
    { cause: error },
  );
}

/** How signals are sent: `Deno.kill`, or a `kill` subprocess once Deno refused (probed on first use). */
let signalSource: "deno" | "command" = "deno";

/** Signals `targets` (a negative id names a process group); gone processes are ignored. */
async function signalAll(targets: readonly number[], signal: Deno.Signal): Promise<void> {
  if (targets.length === 0) return;
  if (signalSource === "deno") {
    for (const target of targets) {
      try {
        Deno.kill(target, signal);
      } catch (error) {
        if (error instanceof Deno.errors.NotCapable) {
          signalSource = "command";
          break;
        }
        /* exited between the scan and the signal */
      }
    }
    if (signalSource === "deno") return;
  }
  try {
    await new Deno.Command("kill", {
      args: ["-s", signal.replace(/^SIG/, ""), "--", ...targets.map(String)],
      stdout: "null",
      stderr: "null",
    }).output();
  } catch (error) {
    throw killFailure(error);
  }
}

/**
 * Sends `signal` to each target: a positive id names a process, a negative one a process group.
 * Uses `Deno.kill`, or a `kill` subprocess under a restricted `--allow-run`; processes that are
 * already gone are ignored.
 *
 * @param targets Process ids, or negated process group ids.
 * @param signal The signal.
 * @throws {Error} When no signal can be sent (neither `Deno.kill` nor `kill` is allowed).
 *
 * @example Usage
 * ```ts
 * import { signalProcesses } from "./process_tree.ts";
 * const child = new Deno.Command("sleep", { args: ["30"], detached: true }).spawn();
 * await signalProcesses([-child.pid], "SIGKILL");
 * await child.status;
 * ```
 */
export function signalProcesses(targets: readonly number[], signal: Deno.Signal): Promise<void> {
  return signalAll(targets, signal);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Sends SIGTERM to a process tree (the group when `group`, every descendant, every process with
 * `marker`), re-scanning for newcomers until all are gone or `graceMs` passed, then SIGKILLs what
 * is left (and newcomers) until every process is gone or a zombie, or `reapMs` passed. A process
 * seen once stays targeted while it keeps its start time, even after it leaves the tree.
 *
 * @param pid The root process id.
 * @param options Group mode, marker, pid-reuse guard and timings.
 * @returns The processes targeted, the strongest signal used and any survivors.
 * @throws {RangeError} When `pid` is not a positive integer other than this process.
 * @throws {Error} When neither `/proc` nor `ps` can be read, or no signal can be sent.
 *
 * @example Usage
 * ```ts
 * import { killProcessTree } from "./process_tree.ts";
 * import { deepEqual } from "node:assert/strict";
 * const child = new Deno.Command("sh", { args: ["-c", "sleep 60 & sleep 60"], detached: true }).spawn();
 * const result = await killProcessTree(child.pid, { group: true });
 * await child.status;
 * deepEqual(result.survivors, []);
 * ```
 */
export async function killProcessTree(
  pid: number,
  options: KillProcessTreeOptions = {},
): Promise<KillProcessTreeResult> {
  const { group = false, graceMs = 2000, reapMs = 2000, startTime, marker } = options;
  if (!Number.isSafeInteger(pid) || pid <= 1 || pid === Deno.pid) {
    throw new RangeError(
      `Cannot kill process tree as 'pid' must be a child process id: current value is ${pid}`,
    );
  }
  let rows = await table(marker);
  const root = rows.find((row) => row.pid === pid);
  if (startTime !== undefined && root !== undefined && root.startTime !== startTime) {
    return { targeted: [], survivors: [] };
  }
  const known = new Map<number, number>();
  // Each scan may spawn `ps`: poll every 10 ms after each signal, backing off to every 80 ms.
  let poll = 5;
  const pollMs = () => poll = Math.min(poll * 2, 80);
  const groupTarget = group ? [-pid] : [];
  /** Scans, records newcomers in `known` and returns them with everything alive. */
  const scan = async (fresh: boolean) => {
    if (fresh) rows = await table(marker);
    const alive = members(rows, pid, group, known);
    const added = alive.filter((row) => !known.has(row.pid)).map((row) => row.pid);
    for (const row of alive) known.set(row.pid, row.startTime);
    return { alive: alive.map((row) => row.pid), added };
  };
  let { alive } = await scan(false);
  if (alive.length === 0) return { targeted: [], survivors: [] };
  await signalAll([...groupTarget, ...alive], "SIGTERM");
  const termDeadline = Date.now() + graceMs;
  while (alive.length > 0 && Date.now() < termDeadline) {
    await pause(pollMs());
    const next = await scan(true);
    alive = next.alive;
    await signalAll(next.added, "SIGTERM");
  }
  if (alive.length === 0) {
    return { targeted: rootFirst(known.keys(), pid), signal: "SIGTERM", survivors: [] };
  }
  await signalAll([...groupTarget, ...alive], "SIGKILL");
  poll = 5;
  const killDeadline = Date.now() + reapMs;
  while (alive.length > 0 && Date.now() < killDeadline) {
    await pause(pollMs());
    const next = await scan(true);
    alive = next.alive;
    // SIGKILL cannot be caught: only newcomers need it.
    await signalAll(next.added, "SIGKILL");
  }
  return {
    targeted: rootFirst(known.keys(), pid),
    signal: "SIGKILL",
    survivors: rootFirst(alive, pid),
  };
}
