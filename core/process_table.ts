/**
 * The process table and process start times, read from `/proc` when Deno allows it, otherwise
 * from `ps`. Shared by the jobs service (process-tree termination) and the agent's session lock
 * (pid-reuse detection), so it sits in core.
 *
 * @module
 */
import { errorMessage } from "./error_message.ts";

/** An environment entry to look for (`name=value`), as `ProcessMarker` in jobs/process_tree.ts. */
export interface ProcessTableMarker {
  /** The variable name. */
  readonly name: string;
  /** Its value. */
  readonly value: string;
}
type Marker = ProcessTableMarker;

/** One living (non-zombie) process. */
export interface ProcessRow {
  readonly pid: number;
  readonly ppid: number;
  readonly pgrp: number;
  readonly session: number;
  /** Clock ticks since boot (`/proc`) or seconds since the epoch (`ps`); compare like with like. */
  readonly startTime: number;
  /** Whether its environment carries the marker that was asked for. */
  readonly marked: boolean;
}

type TableSource = "proc" | "ps";

let tableSource: TableSource | undefined;

/** Probes `/proc` once; any refusal (Deno's `NotCapable`, a missing `/proc`) selects `ps`. */
function source(): TableSource {
  if (tableSource === undefined) {
    try {
      Deno.readTextFileSync(`/proc/${Deno.pid}/stat`);
      tableSource = "proc";
    } catch {
      tableSource = "ps";
    }
  }
  return tableSource;
}

const DECODER = new TextDecoder();

// ---- /proc ----

/** Parses `/proc/<pid>/stat`; the command name may hold spaces and parentheses. */
function parseStat(pid: number, text: string): Omit<ProcessRow, "marked"> & { state: string } {
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

function environHas(environ: Uint8Array, marker: Marker): boolean {
  return `\0${DECODER.decode(environ)}\0`.includes(`\0${marker.name}=${marker.value}\0`);
}

function procPids(names: Iterable<Deno.DirEntry>): number[] {
  const pids: number[] = [];
  for (const entry of names) {
    const pid = Number(entry.name);
    if (Number.isInteger(pid) && pid > 0) pids.push(pid);
  }
  return pids;
}

function procTableSync(): ProcessRow[] {
  const rows: ProcessRow[] = [];
  for (const pid of procPids(Deno.readDirSync("/proc"))) {
    try {
      const stat = parseStat(pid, Deno.readTextFileSync(`/proc/${pid}/stat`));
      if (stat.state !== "Z" && stat.state !== "X") rows.push({ ...stat, marked: false });
    } catch { /* exited during the scan */ }
  }
  return rows;
}

async function procTable(marker: Marker | undefined): Promise<ProcessRow[]> {
  const entries: Deno.DirEntry[] = [];
  for await (const entry of Deno.readDir("/proc")) entries.push(entry);
  const rows: ProcessRow[] = [];
  for (const pid of procPids(entries)) {
    try {
      const stat = parseStat(pid, await Deno.readTextFile(`/proc/${pid}/stat`));
      if (stat.state === "Z" || stat.state === "X") continue;
      let marked = false;
      if (marker !== undefined) {
        try {
          marked = environHas(await Deno.readFile(`/proc/${pid}/environ`), marker);
        } catch { /* another user's process, or gone */ }
      }
      rows.push({ ...stat, marked });
    } catch { /* exited during the scan */ }
  }
  return rows;
}

// ---- ps ----

/** `pid ppid pgid sess stat lstart(5 words) [args and environment]`. */
const PS_ROW_REGEXP =
  /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\w+\s+\w+\s+\d+\s+\d+:\d+:\d+\s+\d+)(?:\s(.*))?$/;
/** Fixed locale and zone, so `lstart` parses the same way every time. */
const PS_ENV: Record<string, string> = { LC_ALL: "C", TZ: "UTC" };

function psArgs(marker: Marker | undefined): string[] {
  const columns = "pid=,ppid=,pgid=,sess=,stat=,lstart=";
  // BSD `e` appends each process's environment to its arguments (own user's processes only).
  return marker === undefined
    ? ["-e", "-o", columns]
    : ["-e", "-ww", "-o", `${columns},args=`, "e"];
}

function lstartSeconds(text: string): number {
  return Date.parse(`${text} UTC`) / 1000;
}

function parsePs(output: Uint8Array, marker: Marker | undefined): ProcessRow[] {
  const token = marker === undefined ? "" : ` ${marker.name}=${marker.value}`;
  const rows: ProcessRow[] = [];
  for (const line of DECODER.decode(output).split("\n")) {
    const match = PS_ROW_REGEXP.exec(line);
    if (match === null || match[5]?.startsWith("Z") || match[5]?.startsWith("X")) continue;
    const args = ` ${match[7] ?? ""} `;
    rows.push({
      pid: Number(match[1]),
      ppid: Number(match[2]),
      pgrp: Number(match[3]),
      session: Number(match[4]),
      startTime: lstartSeconds(match[6] ?? ""),
      marked: token !== "" && args.includes(`${token} `),
    });
  }
  return rows;
}

function psFailure(error: unknown): Error {
  return new Error(
    `Cannot read the process table: /proc is not readable (Deno requires --allow-all for it) and "ps" cannot be run (grant --allow-run=ps): ${
      errorMessage(error)
    }`,
    { cause: error },
  );
}

function psSync(args: string[]): Uint8Array {
  try {
    return new Deno.Command("ps", { args, env: PS_ENV, stdout: "piped", stderr: "null" })
      .outputSync().stdout;
  } catch (error) {
    throw psFailure(error);
  }
}

async function ps(args: string[]): Promise<Uint8Array> {
  try {
    return (await new Deno.Command("ps", { args, env: PS_ENV, stdout: "piped", stderr: "null" })
      .output()).stdout;
  } catch (error) {
    throw psFailure(error);
  }
}

// ---- the table ----

/**
 * Reads the process table without blocking on a promise (never marks rows).
 *
 * @returns Every living, non-zombie process.
 * @throws {Error} When neither `/proc` nor `ps` is available.
 *
 * @example Usage
 * ```ts
 * import { processTableSync } from "./process_table.ts";
 * import { equal } from "node:assert/strict";
 * equal(processTableSync().some((row) => row.pid === Deno.pid), true);
 * ```
 */
export function processTableSync(): ProcessRow[] {
  return source() === "proc" ? procTableSync() : parsePs(psSync(psArgs(undefined)), undefined);
}

/**
 * Reads the process table, marking the rows whose environment carries `marker`.
 *
 * @param marker An environment entry to look for, or `undefined`.
 * @returns Every living, non-zombie process.
 * @throws {Error} When neither `/proc` nor `ps` is available.
 *
 * @example Usage
 * ```ts
 * import { processTable } from "./process_table.ts";
 * import { equal } from "node:assert/strict";
 * equal((await processTable(undefined)).some((row) => row.pid === Deno.pid), true);
 * ```
 */
export function processTable(marker: Marker | undefined): Promise<ProcessRow[]> {
  return source() === "proc"
    ? procTable(marker)
    : ps(psArgs(marker)).then((output) => parsePs(output, marker));
}

/**
 * The start time of a process (on Linux with a readable `/proc`, clock ticks since boot from
 * `/proc/<pid>/stat` field 22; otherwise seconds since the epoch from `ps -o lstart`): with the
 * pid it identifies a process across pid reuse. Values are comparable within one process only.
 * Asynchronous so that the `ps` fallback never blocks the event loop on the spawn path.
 *
 * @param pid The process id.
 * @returns The start time, or `undefined` when the process does not exist (read without blocking).
 * @throws {Error} When neither `/proc` nor `ps` is available.
 *
 * @example Usage
 * ```ts
 * import { processStartTime } from "./process_table.ts";
 * import { equal } from "node:assert/strict";
 * equal(typeof await processStartTime(Deno.pid), "number");
 * ```
 */
export async function processStartTime(pid: number): Promise<number | undefined> {
  if (source() === "proc") {
    try {
      return parseStat(pid, await Deno.readTextFile(`/proc/${pid}/stat`)).startTime;
    } catch {
      return undefined;
    }
  }
  const text = DECODER.decode(await ps(["-o", "lstart=", "-p", String(pid)])).trim();
  return text === "" ? undefined : lstartSeconds(text);
}
