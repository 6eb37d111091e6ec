/**
 * Importing a session log that carries no signature (written before dsh signed its logs, or by
 * the library without a key): its well-formed events are copied into a new log signed with `key`.
 * Whoever imports vouches for the content; nothing in the old file is trusted on the way (its
 * header's `cwd` is kept only as information, as in every log).
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import { parseSessionLog } from "./read_session_log.ts";
import { CHECKPOINT_LINES, LogSigner } from "./_log_mac.ts";
import { checkLogDir, createExclusive, openExisting } from "./_safe_files.ts";
import { checkFileName, readAllFrom, storedForm } from "./_open_log.ts";

/** What {@linkcode importSessionLog} wrote. */
export interface ImportedSessionLog {
  /** The session id (from the old header). */
  readonly id: string;
  /** Events copied. */
  readonly events: number;
  /** Problems the loader reported (torn or malformed lines were skipped). */
  readonly warnings: number;
}

/**
 * Copies the events of the unsigned log `source` into a new signed log `dest`.
 *
 * @param source The old `.jsonl` file (not changed).
 * @param dest The new log; it must not exist (its folder must, and be no link).
 * @param key The signing key (`loadSessionKey()`).
 * @returns The id and counts.
 * @throws {HarnessError} `SESSION_LOG_SIGNED` when `source` is already signed (load it instead).
 * @throws {Deno.errors.AlreadyExists} When `dest` exists.
 *
 * @example Usage
 * ```ts
 * import { importSessionLog } from "./import_session_log.ts";
 * import { SessionLog } from "./session_log.ts";
 * import { equal } from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * const old = await SessionLog.create(`${dir}/old.jsonl`, { id: "s", cwd: dir });
 * old.append("turn/start", { turn: 1 });
 * old.close();
 * await Deno.mkdir(`${dir}/new`);
 * const key = crypto.getRandomValues(new Uint8Array(32));
 * equal(importSessionLog(`${dir}/old.jsonl`, `${dir}/new/s.jsonl`, key).events, 1);
 * const { log, loaded } = await SessionLog.open(`${dir}/new/s.jsonl`, { key });
 * equal(loaded.events.length, 1);
 * log.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function importSessionLog(
  source: string,
  dest: string,
  key: Uint8Array,
): ImportedSessionLog {
  const input = openExisting(source, false);
  let text: string;
  try {
    text = new TextDecoder().decode(readAllFrom(input));
  } finally {
    input.close();
  }
  if (text.split("\n").some((line) => line.startsWith('{"type":"log/mac"'))) {
    throw new HarnessError(
      "SESSION_LOG_SIGNED",
      `Cannot import ${
        JSON.stringify(source)
      }: it is already signed; the agent loads it as it is (a log it refuses was changed, and importing cannot vouch for that)`,
    );
  }
  const loaded = parseSessionLog(text, source);
  checkFileName(dest);
  checkLogDir(dest);
  const file = createExclusive(dest, 0o600);
  const signer = new LogSigner(key);
  const encoder = new TextEncoder();
  const write = (line: string) => {
    const bytes = encoder.encode(line + "\n");
    let offset = 0;
    while (offset < bytes.length) offset += file.writeSync(bytes.subarray(offset));
    signer.update(bytes);
  };
  const checkpoint = () => {
    write(signer.checkpoint());
    signer.pending = 0;
  };
  try {
    const { type, version, id, createdAt, cwd } = loaded.header;
    write(JSON.stringify({ type, version, id, createdAt, cwd }));
    checkpoint();
    for (const event of loaded.events) {
      write(JSON.stringify(storedForm(event)));
      if (signer.pending >= CHECKPOINT_LINES) checkpoint();
    }
    if (signer.pending > 0) checkpoint();
    file.syncSync();
  } finally {
    file.close();
  }
  return { id: loaded.header.id, events: loaded.events.length, warnings: loaded.warnings.length };
}
