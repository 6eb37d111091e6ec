/**
 * Private: reading an existing session log for resume, through a handle opened without following
 * links, and checking its signature. A log whose checkpoint does not match is refused
 * (`SESSION_LOG_TAMPERED`), one without any checkpoint too (`SESSION_LOG_UNSIGNED`, a log of an
 * older dsh or one written without a key). Bytes after the last good checkpoint (a crash between
 * checkpoints, or lines someone appended) are moved to `<log>.unverified-<ms>` and cut off, so
 * they are never loaded and a later checkpoint never covers them.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import { type LogSigner, verifyLog } from "./_log_mac.ts";
import { createExclusive } from "./_safe_files.ts";
import { LOCK_SUFFIX_BYTES } from "./_session_lock.ts";
import { basename } from "node:path";
import type { SessionEvent, SessionHeader } from "./session_event.ts";
import type { CreateSessionLogOptions } from "./session_log_options.ts";

/** Line 1 of a new log. */
export function makeHeader(
  { id, cwd, createdAt = new Date() }: CreateSessionLogOptions,
): SessionHeader {
  return { type: "session", version: 1, id, createdAt: createdAt.toISOString(), cwd };
}

/** What was read from an open log handle. */
export interface ReadLog {
  /** The text to parse (the verified prefix when signed). */
  readonly text: string;
  /** The signer that continues the log (with a key). */
  readonly signer: LogSigner | undefined;
  /** Where the unverified tail went, if there was one. */
  readonly movedTail: string | undefined;
}

/** Reads every byte of `file` from the start. */
export function readAllFrom(file: Deno.FsFile): Uint8Array {
  file.seekSync(0, Deno.SeekMode.Start);
  const size = file.statSync().size;
  const bytes = new Uint8Array(size);
  let offset = 0;
  while (offset < size) {
    const read = file.readSync(bytes.subarray(offset));
    if (read === null || read === 0) break;
    offset += read;
  }
  return bytes.subarray(0, offset);
}

/** The first line of `file` (the header), read with small reads. */
export function firstLine(file: Deno.FsFile, maxBytes = 1 << 20): string {
  file.seekSync(0, Deno.SeekMode.Start);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const buffer = new Uint8Array(4096);
  for (;;) {
    const read = file.readSync(buffer);
    if (read === null || read === 0) break;
    const chunk = buffer.slice(0, read);
    const newline = chunk.indexOf(10);
    chunks.push(newline < 0 ? chunk : chunk.subarray(0, newline));
    size += read;
    if (newline >= 0 || size > maxBytes) break;
  }
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(all);
}

/**
 * Reads the log behind `file`; with `key`, checks its signature and cuts off the unverified
 * tail (kept aside in a file of its own).
 */
export function readForResume(
  file: Deno.FsFile,
  path: string,
  key: Uint8Array | undefined,
): ReadLog {
  const bytes = readAllFrom(file);
  if (key === undefined) {
    return { text: new TextDecoder().decode(bytes), signer: undefined, movedTail: undefined };
  }
  const check = verifyLog(bytes, key);
  if (check.badLine !== undefined) {
    throw new HarnessError(
      "SESSION_LOG_TAMPERED",
      `Cannot load session log ${
        JSON.stringify(path)
      }: it was changed by something other than the dsh agent (the signature at line ${check.badLine} does not match its content), so it is not loaded; start a new session (the file is left as it is, for inspection)`,
    );
  }
  if (check.checkpoints === 0) {
    throw new HarnessError(
      "SESSION_LOG_UNSIGNED",
      `Cannot load session log ${
        JSON.stringify(path)
      }: it carries no signature (it was written by an older dsh, or without a key), so dsh cannot tell whether it was changed; start a new session. The old log stays readable as plain JSONL (readSessionLog); nothing in it is replayed or trusted`,
    );
  }
  let movedTail: string | undefined;
  if (check.verifiedBytes < bytes.length) {
    movedTail = `${path}.unverified-${Date.now()}`;
    const aside = createExclusive(movedTail, 0o600);
    try {
      const tail = bytes.subarray(check.verifiedBytes);
      let offset = 0;
      while (offset < tail.length) offset += aside.writeSync(tail.subarray(offset));
      aside.syncSync();
    } finally {
      aside.close();
    }
    file.truncateSync(check.verifiedBytes);
    file.syncSync();
  }
  const text = new TextDecoder().decode(bytes.subarray(0, check.verifiedBytes));
  return { text, signer: check.signer, movedTail };
}

// Formatting a Date costs microseconds; events appended in the same millisecond share the text.
let lastMs = -1;
let lastIso = "";
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** The line form of an event: a `tool/call` without its derived `args`. */
export function storedForm(event: SessionEvent): SessionEvent {
  if (event.type !== "tool/call" || !Object.hasOwn(event, "args")) return event;
  const { args: _, ...stored } = event;
  return stored as SessionEvent;
}

/** The longest file name most file systems take, in bytes. */
const NAME_MAX = 255;

/** Refuses a log whose name, with the lock file's suffix, would not fit a file name. */
export function checkFileName(path: string): void {
  const name = basename(path);
  const bytes = new TextEncoder().encode(name).length;
  if (bytes + LOCK_SUFFIX_BYTES > NAME_MAX) {
    throw new RangeError(
      `Cannot use session log ${JSON.stringify(name.slice(0, 80))}${
        name.length > 80 ? "…" : ""
      }: its file name is ${bytes} bytes, and with its lock file's suffix (${LOCK_SUFFIX_BYTES} bytes) it exceeds the ${NAME_MAX}-byte file-name limit; use a session id of at most ${
        NAME_MAX - LOCK_SUFFIX_BYTES - ".jsonl".length
      } bytes`,
    );
  }
}
