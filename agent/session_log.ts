/**
 * The durable, append-only JSONL session log.
 *
 * Flush policy: every event is serialized to one complete line and handed to the OS with a
 * synchronous write on an open append-mode file before `append()` returns, so a crash of this
 * process never loses an appended event and never leaves half a line except on power loss or a
 * full disk. `sync()` (fsync) makes the file durable against power loss; the agent starts one
 * at every turn end (`syncSoon()`, which the answer does not wait for) and waits for it on
 * dispose, or fsyncs after every event with `syncEveryEvent: true`.
 *
 * One writer per log: `create` and `open` take a `<path>.lock` file (pid and process start
 * time) that `close()` removes. A second process, or a second open in this process, gets
 * `session <id> in use by pid <n>` (`HarnessError` code `SESSION_IN_USE`); the lock of a
 * process that died without closing is taken over.
 *
 * Files are written without following symbolic links: the log's folder and the log itself must
 * not be links, a new log is created with `O_EXCL` (mode `0600`), an existing one is opened only
 * after `lstat` and its handle's identity is checked against it.
 *
 * Signed logs (`key`): the agent passes the key of its state directory, and every log carries
 * signature lines (`{"type":"log/mac",...}`: an HMAC-SHA256 over a running hash of all bytes
 * before it, written with the header, every 64 lines, on `sync()` and on `close()`). `open` with
 * a key refuses a log whose signature does not match (`SESSION_LOG_TAMPERED`) or that has none
 * (`SESSION_LOG_UNSIGNED`), and moves bytes after the last signature aside (never loaded).
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import { parseSessionLog } from "./read_session_log.ts";
import type {
  SessionEvent,
  SessionEventData,
  SessionEventMap,
  SessionEventOf,
  SessionEventType,
  SessionHeader,
} from "./session_event.ts";
import { errorMessage } from "../core/error_message.ts";
import { acquireSessionLock, type SessionLock } from "./_session_lock.ts";
import { CHECKPOINT_LINES, LogSigner } from "./_log_mac.ts";
import { LogSync } from "./_log_sync.ts";
import { checkLogDir, createExclusive, openExisting } from "./_safe_files.ts";
import {
  checkFileName,
  firstLine,
  isoNow,
  makeHeader,
  readForResume,
  storedForm,
} from "./_open_log.ts";
import type { LoadedSessionLog } from "./read_session_log.ts";
import type { CreateSessionLogOptions, OpenSessionLogOptions } from "./session_log_options.ts";

/** What {@linkcode SessionLog.open} found besides the events. */
export interface OpenedSessionLog {
  /** The open log. */
  readonly log: SessionLog;
  /** What was loaded. */
  readonly loaded: LoadedSessionLog;
  /** Where unverified bytes after the last signature were moved (never loaded), if any. */
  readonly movedTail?: string;
}

const ENCODER = new TextEncoder();

const MEMORY_PATH = ":memory:";
const RESERVED_KEYS = ["seq", "time", "type"] as const;

/**
 * An open session log. Appends are synchronous: the line is in the OS when `append()` returns.
 *
 * @example Usage
 * ```ts
 * import { SessionLog } from "./session_log.ts";
 * import { readSessionLog } from "./read_session_log.ts";
 * import { equal } from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * const log = await SessionLog.create(`${dir}/s.jsonl`, { id: "s", cwd: dir });
 * log.append("turn/start", { turn: 1 });
 * log.close();
 * const { events } = await readSessionLog(`${dir}/s.jsonl`);
 * equal(events[0]?.type, "turn/start");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class SessionLog {
  /** The file path (`:memory:` for {@linkcode SessionLog.memory}). */
  readonly path: string;
  /** The header (line 1). */
  readonly header: SessionHeader;
  #file: Deno.FsFile | undefined;
  /** The lines of an in-memory log (header first); `undefined` for a file log. */
  #lines: string[] | undefined;
  #open = true;
  #sync = new LogSync();
  #seq: number;
  #syncEveryEvent: boolean;
  #buffer = new Uint8Array(4096);
  #lock: SessionLock;
  #signer: LogSigner | undefined;

  private constructor(
    path: string,
    header: SessionHeader,
    file: Deno.FsFile | string[],
    seq: number,
    syncEveryEvent: boolean,
    lock: SessionLock,
    signer?: LogSigner,
  ) {
    this.path = path;
    this.#lock = lock;
    this.#signer = signer;
    this.header = header;
    if (Array.isArray(file)) this.#lines = file;
    else this.#file = file;
    this.#seq = seq;
    this.#syncEveryEvent = syncEveryEvent;
  }

  /**
   * Creates a new log and writes its header. The file must not exist.
   *
   * @param path The `.jsonl` path; its directory must exist.
   * @param options Session identity.
   * @returns The open log.
   * @throws {Deno.errors.AlreadyExists} When the file exists.
   * @throws {HarnessError} `SESSION_IN_USE` when another live process holds the session's lock.
   * @throws {RangeError} When the file name (with its lock's suffix) exceeds 255 bytes.
   * @throws {UnsafePathError} When the folder or the file is a symbolic link.
   */
  static async create(path: string, options: CreateSessionLogOptions): Promise<SessionLog> {
    const { id, syncEveryEvent = false } = options;
    checkFileName(path);
    checkLogDir(path);
    const header = makeHeader(options);
    const lock = await acquireSessionLock(path, id);
    let file: Deno.FsFile;
    try {
      file = createExclusive(path, 0o600);
    } catch (error) {
      lock.release();
      throw error;
    }
    const signer = options.key === undefined ? undefined : new LogSigner(options.key);
    const log = new SessionLog(path, header, file, 0, syncEveryEvent, lock, signer);
    log.#writeLine(JSON.stringify(header));
    log.#checkpoint();
    return log;
  }

  /**
   * Creates a log kept in memory: no file, no directory, nothing to clean up. For tests and
   * throwaway agents (`createAgent(ctx, { inMemoryLog: true, ... })`); it cannot be resumed.
   *
   * @param options Session identity.
   * @returns The open log; its `path` is `:memory:`.
   *
   * @example Usage
   * ```ts
   * import { SessionLog } from "./session_log.ts";
   * import { equal } from "node:assert/strict";
   * const log = SessionLog.memory({ id: "s", cwd: "/work" });
   * log.append("turn/start", { turn: 1 });
   * equal(log.lines().length, 2); // the header and the event
   * log.close();
   * ```
   */
  static memory(options: CreateSessionLogOptions): SessionLog {
    const header = makeHeader(options);
    // One owner by construction: nothing on disk to lock.
    const lock: SessionLock = { path: MEMORY_PATH, release: () => {} };
    return new SessionLog(MEMORY_PATH, header, [JSON.stringify(header)], 0, false, lock);
  }

  /**
   * The JSONL lines of an in-memory log, header first (a copy).
   *
   * @returns The lines.
   * @throws {TypeError} For a file log (read it with `readSessionLog`).
   */
  lines(): readonly string[] {
    if (this.#lines === undefined) {
      throw new TypeError(
        `Cannot list the lines of session log "${this.path}": it is a file log, read it with readSessionLog()`,
      );
    }
    return [...this.#lines];
  }

  /**
   * Opens an existing log for appending (resume). A torn last line is kept on disk but closed
   * with a newline so new events start on a fresh line; loading reports it as a warning.
   *
   * @param path The `.jsonl` path.
   * @param options Flush options, the signing key and the expected session id.
   * @returns The open log, what was loaded from it and where an unverified tail went.
   * @throws {Deno.errors.NotFound} When the file does not exist.
   * @throws {SyntaxError} When line 1 is not a session header.
   * @throws {HarnessError} `SESSION_IN_USE` when another live process (or this one) has it open;
   * with a key, `SESSION_LOG_TAMPERED` or `SESSION_LOG_UNSIGNED`; `SESSION_LOG_MISMATCH` when the
   * header names another session than `id`.
   * @throws {UnsafePathError} When the folder or the file is a symbolic link.
   */
  static async open(path: string, options: OpenSessionLogOptions = {}): Promise<OpenedSessionLog> {
    const { syncEveryEvent = false, key } = options;
    checkFileName(path);
    checkLogDir(path);
    const file = openExisting(path);
    let lock: SessionLock | undefined;
    try {
      // The header names the lock's session; the whole log is read once, under the lock (a
      // holder may append until it lets go).
      const { id } = parseSessionLog(firstLine(file), path).header;
      if (options.id !== undefined && id !== options.id) {
        throw new HarnessError(
          "SESSION_LOG_MISMATCH",
          `Cannot load session ${JSON.stringify(options.id)}: its log ${
            JSON.stringify(path)
          } belongs to session ${JSON.stringify(id)} (a log copied over another is not loaded)`,
        );
      }
      lock = await acquireSessionLock(path, id);
      const read = readForResume(file, path, key);
      const loaded = parseSessionLog(read.text, path);
      if (read.movedTail !== undefined) {
        loaded.warnings.push({
          line: read.text.split("\n").length,
          message:
            `the lines from here on carry no signature (the agent stopped before signing them, or something else appended them); they were not loaded and were moved to ${
              JSON.stringify(read.movedTail)
            }`,
        });
      }
      const lastSeq = loaded.events.reduce((max, event) => Math.max(max, event.seq), 0);
      file.seekSync(0, Deno.SeekMode.End);
      const log = new SessionLog(
        path,
        loaded.header,
        file,
        lastSeq,
        syncEveryEvent,
        lock,
        read.signer,
      );
      if (!loaded.endsWithNewline) log.#writeLine("");
      return {
        log,
        loaded,
        ...(read.movedTail !== undefined ? { movedTail: read.movedTail } : {}),
      };
    } catch (error) {
      lock?.release();
      file.close();
      throw error;
    }
  }

  /** The seq of the last appended (or loaded) event; 0 when there is none. */
  get lastSeq(): number {
    return this.#seq;
  }

  /** True after {@linkcode SessionLog.close}. */
  get closed(): boolean {
    return !this.#open;
  }

  /**
   * Appends one event as one line and returns it. A known type (a key of `SessionEventMap`)
   * takes and returns its typed data; a tool-owned type takes any JSON object. The line omits
   * the derived `args` of a `tool/call` (the raw `arguments` text is the stored form).
   *
   * @param type The event type, such as `tool/call`.
   * @param data The event data: a JSON object without `seq`, `time` or `type` (checked when
   * serialized).
   * @returns The appended event (envelope plus data).
   * @throws {TypeError} When the data is not JSON-serializable or uses a reserved key.
   * @throws {Error} When the log is closed.
   */
  append<K extends SessionEventType>(type: K, data: SessionEventMap[K]): SessionEventOf<K>;
  /**
   * Appends one event as one line and returns it. A known type (a key of `SessionEventMap`)
   * takes and returns its typed data; a tool-owned type takes any JSON object. The line omits
   * the derived `args` of a `tool/call` (the raw `arguments` text is the stored form).
   *
   * @param type The event type, such as `tool/call`.
   * @param data The event data: a JSON object without `seq`, `time` or `type` (checked when
   * serialized).
   * @returns The appended event (envelope plus data).
   * @throws {TypeError} When the data is not JSON-serializable or uses a reserved key.
   * @throws {Error} When the log is closed.
   */
  append(type: string, data: SessionEventData): SessionEvent;
  append(type: string, data: Readonly<Record<string, unknown>>): SessionEvent {
    if (!this.#open) {
      throw new Error(`Cannot append "${type}" to session log "${this.path}": the log is closed`);
    }
    for (const key of RESERVED_KEYS) {
      if (Object.hasOwn(data, key)) {
        throw new TypeError(
          `Cannot append "${type}" to the session log: data uses the reserved key "${key}"`,
        );
      }
    }
    const event: SessionEvent = { seq: this.#seq + 1, time: isoNow(), type, ...data };
    let line: string;
    try {
      line = JSON.stringify(storedForm(event));
    } catch (error) {
      throw new TypeError(
        `Cannot append "${type}" to the session log: data is not JSON-serializable: ${
          errorMessage(error)
        }`,
        { cause: error },
      );
    }
    this.#writeLine(line);
    this.#seq++;
    if (this.#syncEveryEvent) this.#file?.syncDataSync();
    return event;
  }

  /** Signs what was appended and flushes the file to stable storage (fsync). No-op when closed. */
  sync(): void {
    if (this.#file === undefined) return;
    this.#checkpoint();
    this.#sync.now(this.#file);
  }

  /** Signs what was appended and fsyncs in the background (see LogSync); settles when done. */
  syncSoon(): Promise<void> {
    this.#checkpoint();
    return this.#sync.soon(this.#file);
  }

  /** Syncs and closes the file and removes its lock. Idempotent. */
  close(): void {
    this.#open = false;
    const file = this.#file;
    if (file === undefined) return;
    try {
      this.#checkpoint();
      this.#sync.now(file);
    } finally {
      this.#file = undefined;
      file.close();
      this.#lock.release();
    }
  }

  #writeLine(line: string): void {
    if (this.#lines !== undefined) {
      this.#lines.push(line);
      return;
    }
    // UTF-8 needs at most 3 bytes per UTF-16 unit; the buffer is reused between appends.
    const needed = line.length * 3 + 1;
    if (this.#buffer.length < needed) {
      this.#buffer = new Uint8Array(Math.max(needed, 2 * this.#buffer.length));
    }
    const { written } = ENCODER.encodeInto(line, this.#buffer);
    this.#buffer[written] = 10; // "\n"
    const bytes = this.#buffer.subarray(0, written + 1);
    // One write call in practice; loop only because the OS may accept fewer bytes.
    let offset = 0;
    while (offset < bytes.length) offset += this.#file!.writeSync(bytes.subarray(offset));
    this.#sync.unsynced = true;
    const signer = this.#signer;
    if (signer === undefined) return;
    signer.update(bytes);
    if (signer.pending >= CHECKPOINT_LINES) this.#checkpoint();
  }

  /** Writes a signature line covering every byte so far (signed logs with new lines only). */
  #checkpoint(): void {
    const signer = this.#signer;
    if (signer === undefined || signer.pending === 0 || this.#file === undefined) return;
    const line = signer.checkpoint();
    signer.pending = 0;
    const bytes = ENCODER.encode(line + "\n");
    let offset = 0;
    while (offset < bytes.length) offset += this.#file.writeSync(bytes.subarray(offset));
    signer.update(bytes);
    signer.pending = 0;
  }
}
