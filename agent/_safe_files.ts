/**
 * Private: files in the sessions directory are written without following symbolic links. Every
 * directory below a trusted anchor is checked with `lstat` (a link is refused, a missing one is
 * created `0700`), a log file is opened only after `lstat` says it is a regular file, and the
 * opened handle's identity (`FsFile.stat()` dev/ino) must match what `lstat` saw, so a link
 * swapped in between the check and the open is caught before anything is written.
 *
 * @module
 */
import { dirname } from "node:path";

/** The identity of a file or directory. */
export interface FileIdentity {
  readonly path: string;
  readonly dev: number;
  readonly ino: number;
}

/**
 * A path dsh refuses to write through (a symbolic link, or not the kind of file expected).
 *
 * @example Usage
 * ```ts
 * import { UnsafePathError } from "./_safe_files.ts";
 * import { equal } from "node:assert/strict";
 * equal(new UnsafePathError("the sessions folder is a link").name, "UnsafePathError");
 * ```
 */
export class UnsafePathError extends Error {
  /** Always `"UnsafePathError"`. */
  override name = "UnsafePathError";
}

function identity(path: string, info: Deno.FileInfo): FileIdentity {
  return { path, dev: info.dev, ino: info.ino ?? -1 };
}

function linkError(path: string, what: string): UnsafePathError {
  return new UnsafePathError(
    `Cannot use ${what} ${
      JSON.stringify(path)
    }: it is a symbolic link, and dsh never writes session logs through links (something replaced it, perhaps a command the agent ran); remove the link, or choose a real folder with "sessionsDir" or --sessions-dir`,
  );
}

/** `lstat`, or `undefined` when nothing is there. */
export function lstatOrUndefined(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/**
 * Checks (and creates, `0700`) every directory from just below `anchor` down to `dir`: none may
 * be a link or a non-directory. With no anchor (or one that is not an ancestor), only `dir`.
 *
 * @returns The identities, for {@linkcode verifyDirChain}.
 */
export function ensureDirChain(dir: string, anchor?: string): FileIdentity[] {
  const identities: FileIdentity[] = [];
  for (const path of chainBelow(dir, anchor)) {
    let info = lstatOrUndefined(path);
    if (info === undefined) {
      // Every folder above is checked: creating the rest at once makes folders below it only
      // (and needs write permission on `dir` alone).
      Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
      info = Deno.lstatSync(path);
    }
    if (info.isSymlink) throw linkError(path, "the sessions folder");
    if (!info.isDirectory) {
      throw new UnsafePathError(
        `Cannot use the sessions folder ${JSON.stringify(path)}: it is not a directory`,
      );
    }
    identities.push(identity(path, info));
  }
  return identities;
}

/** The folders from just below `anchor` down to `dir`; only `dir` when `anchor` is not above it. */
function chainBelow(dir: string, anchor: string | undefined): string[] {
  const base = anchor?.replace(/\/+$/, "");
  if (base === undefined || !dir.startsWith(`${base}/`)) return [dir];
  let path = base;
  return dir.slice(base.length + 1).split("/").filter((part) => part !== "").map((part) =>
    path = `${path}/${part}`
  );
}

/** Throws when a directory of `chain` is now a link or another directory than when checked. */
export function verifyDirChain(chain: readonly FileIdentity[]): void {
  for (const known of chain) {
    const info = lstatOrUndefined(known.path);
    if (info === undefined || info.isSymlink || info.dev !== known.dev || info.ino !== known.ino) {
      throw new UnsafePathError(
        `Cannot use the sessions folder ${
          JSON.stringify(known.path)
        }: it was replaced while dsh was using it (now ${
          info === undefined ? "missing" : info.isSymlink ? "a symbolic link" : "another folder"
        }); nothing was written there`,
      );
    }
  }
}

/** Throws when the open `file` is not the regular file that `lstat(path)` shows. */
export function verifyOpened(file: Deno.FsFile, path: string, expected?: Deno.FileInfo): void {
  const opened = file.statSync();
  const seen = expected ?? lstatOrUndefined(path);
  if (seen?.isSymlink) throw linkError(path, "the session file");
  if (
    seen === undefined || !opened.isFile || seen.dev !== opened.dev || seen.ino !== opened.ino
  ) {
    throw new UnsafePathError(
      `Cannot use the session file ${
        JSON.stringify(path)
      }: the file opened is not the one at that path (it was replaced while being opened); nothing was written`,
    );
  }
}

/**
 * Opens an existing regular file for reading (and appending) without following a link: `lstat`
 * first, then the handle's identity is checked against it.
 *
 * @throws {Deno.errors.NotFound} When nothing is at `path`.
 * @throws {UnsafePathError} For a link, a non-file, or a file swapped during the open.
 */
export function openExisting(path: string, write = true): Deno.FsFile {
  const seen = Deno.lstatSync(path);
  if (seen.isSymlink) throw linkError(path, "the session file");
  if (!seen.isFile) {
    throw new UnsafePathError(
      `Cannot use the session file ${JSON.stringify(path)}: it is not a regular file`,
    );
  }
  const file = Deno.openSync(path, write ? { read: true, append: true } : { read: true });
  try {
    verifyOpened(file, path, seen);
  } catch (error) {
    file.close();
    throw error;
  }
  return file;
}

/**
 * Creates a new file (`O_CREAT|O_EXCL`, which never follows a link) with `mode` and checks that
 * the handle is the file now at `path`.
 *
 * @throws {Deno.errors.AlreadyExists} When anything (a link included) is at `path`.
 */
export function createExclusive(path: string, mode = 0o600): Deno.FsFile {
  const file = Deno.openSync(path, { createNew: true, write: true, append: true, mode });
  try {
    verifyOpened(file, path);
  } catch (error) {
    file.close();
    throw error;
  }
  return file;
}

/** Refuses a directory that is itself a link (the last component of a log's folder). */
export function checkLogDir(path: string): void {
  const dir = dirname(path);
  const info = lstatOrUndefined(dir);
  if (info?.isSymlink) throw linkError(dir, "the sessions folder");
}
