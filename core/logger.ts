/**
 * The harness logger: leveled records to a sink, stderr by default (never stdout, which belongs
 * to protocols such as ACP).
 *
 * @module
 */

/** Log levels, least severe first. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** One log record as a sink receives it. */
export interface LogRecord {
  /** Severity. */
  readonly level: LogLevel;
  /** Who logged: the plugin (fiber) name, for example `tools` or `root`. */
  readonly name: string;
  /** One-line, human-readable message. */
  readonly message: string;
  /** Optional structured data (an error, ids). */
  readonly data?: unknown;
}

/** Receives every record at or above the logger's level. */
export type LogSink = (record: LogRecord) => void;

/** A leveled logger bound to one name. */
export interface Logger {
  /** Debug detail. */
  debug(message: string, data?: unknown): void;
  /** Normal operation. */
  info(message: string, data?: unknown): void;
  /** Something unexpected that the harness recovered from. */
  warn(message: string, data?: unknown): void;
  /** A failure (a plugin that did not apply, a listener that threw). */
  error(message: string, data?: unknown): void;
  /** A logger with the same sink and level under another name. */
  child(name: string): Logger;
}

/** Options of {@linkcode createLogger}. */
export interface CreateLoggerOptions {
  /** The logger name. @default {"root"} */
  readonly name?: string;
  /** Records below this level are dropped. @default {"info"} */
  readonly level?: LogLevel;
  /** Where records go. @default {stderrSink} */
  readonly sink?: LogSink;
}

const LEVELS: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };
const encoder = new TextEncoder();

/**
 * Writes a record as one line to stderr: `[dsh] WARN tools: message {"data":1}`.
 *
 * @param record The record.
 *
 * @example Usage
 * ```ts ignore
 * import { stderrSink } from "./logger.ts";
 * stderrSink({ level: "info", name: "demo", message: "hello" });
 * ```
 */
export function stderrSink(record: LogRecord): void {
  let line = `[dsh] ${record.level.toUpperCase()} ${record.name}: ${record.message}`;
  const data = record.data;
  // An error whose message the line already quotes adds nothing.
  if (data !== undefined && !(data instanceof Error && record.message.includes(data.message))) {
    line += ` ${formatData(data)}`;
  }
  try {
    Deno.stderr.writeSync(encoder.encode(line + "\n"));
  } catch {
    // A closed stderr must never break the caller.
  }
}

/**
 * Creates a logger.
 *
 * @param options Name, level and sink.
 * @returns The logger.
 * @throws {RangeError} When `level` is not a known level.
 *
 * @example Usage
 * ```ts
 * import { createLogger, type LogRecord } from "./logger.ts";
 * import { deepEqual } from "node:assert/strict";
 * const records: LogRecord[] = [];
 * const logger = createLogger({ name: "demo", level: "warn", sink: (r) => records.push(r) });
 * logger.info("dropped");
 * logger.child("child").warn("kept");
 * deepEqual(records, [{ level: "warn", name: "child", message: "kept" }]);
 * ```
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const { name = "root", level = "info", sink = stderrSink } = options;
  const threshold = LEVELS[level];
  if (threshold === undefined) {
    throw new RangeError(
      `Cannot create a logger: level is ${
        JSON.stringify(level)
      }, expected debug, info, warn or error`,
    );
  }
  return makeLogger(name, threshold, sink);
}

function makeLogger(name: string, threshold: number, sink: LogSink): Logger {
  const log = (level: LogLevel, message: string, data: unknown) => {
    if (LEVELS[level] < threshold) return;
    try {
      sink(data === undefined ? { level, name, message } : { level, name, message, data });
    } catch {
      // A failing sink must never break the caller.
    }
  };
  return {
    debug: (message, data) => log("debug", message, data),
    info: (message, data) => log("info", message, data),
    warn: (message, data) => log("warn", message, data),
    error: (message, data) => log("error", message, data),
    child: (child) => makeLogger(child, threshold, sink),
  };
}

function formatData(data: unknown): string {
  if (data instanceof Error) return `(${data.name}: ${data.message})`;
  try {
    return JSON.stringify(
      data,
      (_key, value) =>
        value instanceof Error
          ? { name: value.name, message: value.message }
          : typeof value === "bigint"
          ? String(value)
          : value,
    ) ?? String(data);
  } catch {
    return "<unprintable data>";
  }
}
