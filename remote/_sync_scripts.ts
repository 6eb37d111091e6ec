/**
 * The shell scripts the workspace sync runs on the remote side through `SyncTarget.capture`, and
 * the parsers of what they print (private to remote/). Every record is NUL-terminated, so a name
 * may hold spaces, quotes and newlines; every name is passed as `./<relative path>` inside single
 * quotes, so none can become an option or expand. The remote is untrusted: parsers accept only
 * well-formed records and the caller validates every name again (`_sync_names.ts`).
 *
 * Needs GNU findutils (`find -printf`) and coreutils (`sha256sum -z`, `base64 -d`, `mv -T`) on the
 * remote side.
 *
 * @module
 */
import { HarnessError } from "../core/mod.ts";

/** A script stays under this many bytes (Linux caps one argv string at 128 KiB). */
const SCRIPT_MAX_BYTES = 96 * 1024;

/** A file over this many bytes goes up through `writeFile` instead of a script's archive. */
export const INLINE_MAX_BYTES = 32 * 1024;

/** The most base64 bytes of archive in one script. */
export const ARCHIVE_MAX_BYTES = 64 * 1024;

/** The most bytes of quoted names one script lists (each list appears up to twice). */
export const NAMES_MAX_BYTES = 12 * 1024;

/** The `find -printf` format of one stat record: type, size, mtime, inode, path. */
const STAT_FORMAT = "%y %s %T@ %i %p\\0";

/** One entry of a remote listing. */
export interface RemoteEntry {
  /** `f` regular file, `l` symlink, others special. */
  readonly type: string;
  /** The size in bytes. */
  readonly size: number;
  /** `size mtime inode`: changes whenever the file may have changed. */
  readonly key: string;
  /** The raw relative path (without `./`), to be validated. */
  readonly name: string;
}

/**
 * Quotes a string for bash (single quotes; a quote inside becomes `'\''`).
 *
 * @param text The text (no NUL).
 * @returns The quoted word.
 */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** `./<name>` quoted. */
function rel(name: string): string {
  return shellQuote(`./${name}`);
}

/** The preamble: enter the workspace (missing: `missing` decides). */
function enter(workspace: string, missing: "empty" | "create"): string {
  const cd = `cd -- ${shellQuote(workspace)}`;
  return missing === "empty"
    ? `${cd} 2>/dev/null || exit 0\n`
    : `mkdir -p -- ${shellQuote(workspace)} && ${cd} || exit 3\n`;
}

/**
 * The listing script: one stat record per non-folder entry of the workspace, nothing hashed.
 *
 * @param workspace The absolute workspace path.
 * @returns The script.
 */
export function listingScript(workspace: string): string {
  return `${enter(workspace, "empty")}find . -mindepth 1 ! -type d -printf '${STAT_FORMAT}'\n`;
}

const STAT_RECORD = /^([a-zA-Z]) (\d+) (\d+(?:\.\d+)?) (\d+) \.\/(.*)$/s;

/**
 * Parses one stat record (`find -printf` output without the NUL).
 *
 * @param record The record.
 * @returns The entry, or `undefined` when malformed.
 */
export function parseStat(record: string): RemoteEntry | undefined {
  const match = STAT_RECORD.exec(record);
  if (match === null) return undefined;
  const [, type, size, mtime, inode, name] = match as unknown as string[];
  return { type: type!, size: Number(size), key: `${size} ${mtime} ${inode}`, name: name! };
}

/**
 * Splits a listing into entries; malformed records are returned apart.
 *
 * @param output The listing's stdout.
 * @returns The entries and the malformed records.
 */
export function parseListing(output: string): { entries: RemoteEntry[]; malformed: string[] } {
  const entries: RemoteEntry[] = [];
  const malformed: string[] = [];
  for (const record of output.split("\0")) {
    if (record === "") continue;
    const entry = parseStat(record);
    if (entry === undefined) malformed.push(record);
    else entries.push(entry);
  }
  return { entries, malformed };
}

/**
 * Splits `items` into chunks whose rendered size stays under {@linkcode SCRIPT_MAX_BYTES}.
 *
 * @param items The items.
 * @param size The rendered size of one item.
 * @param fixed The size of the script around them.
 * @returns The chunks.
 */
export function chunkBySize<T>(
  items: readonly T[],
  size: (item: T) => number,
  fixed: number,
): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let used = fixed;
  for (const item of items) {
    const cost = size(item);
    if (current.length > 0 && used + cost > SCRIPT_MAX_BYTES) {
      chunks.push(current);
      current = [];
      used = fixed;
    }
    current.push(item);
    used += cost;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

const encoder = new TextEncoder();

/**
 * The hash scripts for `names` (as many as the script size needs).
 *
 * @param workspace The absolute workspace path.
 * @param names The relative paths.
 * @returns The scripts.
 */
export function hashScripts(workspace: string, names: readonly string[]): string[] {
  const head = `${enter(workspace, "empty")}sha256sum -z --`;
  const tail = ` 2>/dev/null\nexit 0\n`;
  const fixed = encoder.encode(head + tail).length;
  return chunkBySize(names, (name) => encoder.encode(rel(name)).length + 1, fixed)
    .map((chunk) => `${head} ${chunk.map(rel).join(" ")}${tail}`);
}

const HASH_RECORD = /^([0-9a-f]{64}) [ *]\.\/(.*)$/s;

/**
 * Parses the output of {@linkcode hashScripts}.
 *
 * @param output The stdout.
 * @returns Relative path → sha256 (hex).
 * @throws {HarnessError} `SYNC_REMOTE` when the output is not `sha256sum -z` output.
 */
export function parseHashes(output: string): Map<string, string> {
  const hashes = new Map<string, string>();
  for (const record of output.split("\0")) {
    if (record === "") continue;
    const match = HASH_RECORD.exec(record);
    if (match === null) {
      throw new HarnessError(
        "SYNC_REMOTE",
        `The remote's hash list is malformed (GNU coreutils 8.30 or newer, with "sha256sum -z", ` +
          `is needed): ${JSON.stringify(record.slice(0, 120))}`,
      );
    }
    hashes.set(match[2]!, match[1]!);
  }
  return hashes;
}

/** What one push script does, in this order. */
export interface PushBatch {
  /** Names whose entry is printed before anything changes (`O` records). */
  readonly before: readonly string[];
  /** A gzipped tar archive (base64) extracted into the workspace. */
  readonly archive?: string;
  /** Names removed. */
  readonly removed: readonly string[];
  /** Permission bits set on names written by `writeFile`. */
  readonly modes: readonly { readonly name: string; readonly mode: number }[];
  /** Names whose entry is printed after the changes (`N` records). */
  readonly after: readonly string[];
}

/** The quoted `./name` list of names (its byte size is what batching budgets). */
export function nameList(names: readonly string[]): string {
  return names.map(rel).join(" ");
}

/**
 * One push script. Entries before (`O` records) let the host see remote edits it is about to
 * overwrite (a conflict); entries after (`N` records) become the remote keys of the new content,
 * so the next pull does not hash them. GNU tar replaces an existing name (a symlink included)
 * rather than writing through it.
 *
 * @param workspace The absolute workspace path.
 * @param batch What to do.
 * @returns The script.
 */
export function pushScript(workspace: string, batch: PushBatch): string {
  const stat = (tag: string, names: readonly string[]) =>
    names.length === 0
      ? ""
      : `find ${nameList(names)} -maxdepth 0 -printf '${tag}${STAT_FORMAT}' 2>/dev/null\n`;
  const lines = (batch.archive ?? "").replace(/.{1,76}/g, "$&\n");
  const extract = batch.archive === undefined
    ? ""
    : `base64 -d <<'DSH_SYNC_EOF' | gzip -dc | tar -x -f - --no-same-owner 2>&1 >/dev/null | ` +
      `head -c 2000 >&2\n${lines}DSH_SYNC_EOF\n`;
  const remove = batch.removed.length === 0 ? "" : `rm -f -- ${nameList(batch.removed)}\n`;
  const modes = batch.modes.map(({ name, mode }) =>
    `chmod ${(mode & 0o7777).toString(8)} -- ${rel(name)}\n`
  ).join("");
  return enter(workspace, "create") + stat("O", batch.before) + extract + remove + modes +
    stat("N", batch.after) + "exit 0\n";
}

/** What push scripts reported. */
export interface PushOutput {
  /** Entries before the changes (by name). */
  readonly before: Map<string, RemoteEntry>;
  /** Entries after them (by name). */
  readonly after: Map<string, RemoteEntry>;
}

/**
 * Parses the output of {@linkcode pushScript}.
 *
 * @param output The stdout.
 * @param into Where to add the records.
 */
export function parsePushOutput(output: string, into: PushOutput): void {
  for (const record of output.split("\0")) {
    const tag = record[0];
    const entry = tag === "O" || tag === "N" ? parseStat(record.slice(1)) : undefined;
    if (entry !== undefined) (tag === "O" ? into.before : into.after).set(entry.name, entry);
  }
}
