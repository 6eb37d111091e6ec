/**
 * Loading session logs: a torn or corrupt line is skipped with a warning and never hides the
 * events before or after it. These readers do not check signatures (`SessionLog.open` with a
 * `key` does); what they return is data to show, never a source of authority.
 *
 * @module
 */
import type { SessionEvent, SessionHeader } from "./session_event.ts";
import { withCallArgs } from "./_tool_arguments.ts";
import { isMacLine } from "./_log_mac.ts";

/** A problem found while loading a log; the line was skipped (or, for `seq`, kept). */
export interface SessionLogWarning {
  /** 1-based line number. */
  readonly line: number;
  /** What was wrong. */
  readonly message: string;
}

/** A loaded session log. */
export interface LoadedSessionLog {
  /** Line 1. */
  readonly header: SessionHeader;
  /** Every well-formed event, in file order. */
  readonly events: SessionEvent[];
  /** Skipped or suspicious lines. */
  readonly warnings: SessionLogWarning[];
  /** False when the text does not end with a newline (a torn or unterminated last line). */
  readonly endsWithNewline: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isHeader(value: unknown): value is SessionHeader {
  return isRecord(value) && value.type === "session" && typeof value.id === "string" &&
    typeof value.cwd === "string";
}

/**
 * Parses the text of a session log.
 *
 * @param text The whole file.
 * @param path The path, for error messages.
 * @returns The header, the events and the warnings.
 * @throws {SyntaxError} When line 1 is not a session header.
 *
 * @example Usage
 * ```ts
 * import { parseSessionLog } from "./read_session_log.ts";
 * import { equal } from "node:assert/strict";
 * const text = '{"type":"session","version":1,"id":"s","createdAt":"t","cwd":"/"}\n' +
 *   '{"seq":1,"time":"t","type":"turn/start","turn":1}\n{"seq":2,"ti';
 * const log = parseSessionLog(text, "s.jsonl");
 * equal(log.events.length, 1);
 * equal(log.warnings[0]?.line, 3);
 * ```
 */
export function parseSessionLog(text: string, path: string): LoadedSessionLog {
  const lines = text.split("\n");
  const endsWithNewline = text.endsWith("\n");
  // split() leaves "" after a final newline; that is not a line.
  if (endsWithNewline) lines.pop();
  let header: unknown;
  try {
    header = JSON.parse(lines[0] ?? "");
  } catch {
    header = undefined;
  }
  if (!isHeader(header)) {
    throw new SyntaxError(
      `Cannot read session log "${path}": line 1 is not a session header: received ${
        JSON.stringify((lines[0] ?? "").slice(0, 200))
      }`,
    );
  }
  const events: SessionEvent[] = [];
  const warnings: SessionLogWarning[] = [];
  let lastSeq = 0;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    // Signature lines (`log/mac`) are checked by `SessionLog.open`, not events.
    if (line.trim() === "" || isMacLine(line)) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      warnings.push({
        line: i + 1,
        message: i === lines.length - 1 && !endsWithNewline
          ? `torn last line skipped (${line.length} characters, no newline)`
          : "line is not valid JSON; skipped",
      });
      continue;
    }
    if (!isRecord(value) || typeof value.seq !== "number" || typeof value.type !== "string") {
      warnings.push({ line: i + 1, message: "line is not a session event; skipped" });
      continue;
    }
    if (value.seq <= lastSeq) {
      warnings.push({ line: i + 1, message: `seq ${value.seq} does not follow ${lastSeq}; kept` });
    }
    lastSeq = Math.max(lastSeq, value.seq);
    events.push(withCallArgs(value as SessionEvent));
  }
  return { header, events, warnings, endsWithNewline };
}

/**
 * Reads a session log from disk.
 *
 * @param path The `.jsonl` file.
 * @returns The header, the events and the warnings.
 * @throws {Deno.errors.NotFound} When the file does not exist.
 * @throws {SyntaxError} When line 1 is not a session header.
 *
 * @example Usage
 * ```ts ignore
 * import { readSessionLog } from "./read_session_log.ts";
 * const { header, events, warnings } = await readSessionLog("/tmp/s.jsonl");
 * ```
 */
export async function readSessionLog(path: string): Promise<LoadedSessionLog> {
  return parseSessionLog(await Deno.readTextFile(path), path);
}
