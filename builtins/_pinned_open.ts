/**
 * Private: opening a file through pinned folders, the race-free core of `_safe_fs.ts`.
 *
 * Deno has no `openat`, but it hands relative paths to the OS as they are, and the process's
 * working directory is a handle on a folder: a relative lookup starts from that folder, wherever
 * it is now, and never walks the path above it again. So the open walks the real path one folder
 * at a time with `Deno.chdir`: `lstat` the next name in the current folder (it must be a real
 * folder, not a symlink), enter it, and check that the folder entered (`stat(".")`) is the one
 * that `lstat` saw (same device and inode). A symlink swapped in between makes the folder entered
 * another one, so the open fails with `FS_CHANGED`. In the last folder the file is opened by its
 * bare name (a new one with `createNew`, which never follows a symlink, and missing folders are
 * made by bare name too), and the handle must be the entry `lstat` sees there, before and after.
 * The walk is synchronous, from the first `chdir` to the one back to the original folder, so no
 * other JavaScript runs while the working directory is changed.
 *
 * The walk starts, by absolute path, at the topmost folder of the path the agent may enter (Deno
 * permissions): the folders above it are ones the agent may not even read, so no tool the agent
 * runs can swap them. When no folder of the path may be entered, or the original working
 * directory is unknown, {@linkcode openPinned} returns `undefined` and the caller falls back to the
 * verify-after-open scheme of `_safe_fs.ts`.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import { describeFsError, type FsOperation } from "./_fs_errors.ts";
import type { FsTarget } from "./fs_read.ts";

/** A verified open file. */
export interface OpenedFile {
  /** The handle: read and write only through it. */
  readonly file: Deno.FsFile;
  /** Its `stat()` at the open. */
  readonly info: Deno.FileInfo;
  /** True when this open created the file. */
  readonly created: boolean;
}

/**
 * The error of a path that changed during the call.
 *
 * @param operation What was attempted.
 * @param path The path the call named.
 * @param detail What changed.
 * @returns A `FS_CHANGED` HarnessError.
 */
export function fsChanged(operation: FsOperation, path: string, detail: string): HarnessError {
  const done = operation === "read" ? "nothing was read" : "nothing was written";
  return new HarnessError(
    "FS_CHANGED",
    `Cannot ${operation} "${path}": the path changed during the call (${detail}); ${done}. ` +
      `A folder or symlink on the way was replaced while the tool ran: check the path and try again`,
  );
}

function same(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

function lstatHere(name: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** Enters the absolute `prefix`; `false` when the agent may not (Deno permissions). */
function enterAbsolute(prefix: string): boolean {
  try {
    Deno.chdir(prefix);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) return false;
    throw error;
  }
}

/** Enters the real folder `part` of the current one (made first when `create` and missing). */
function enter(operation: FsOperation, target: FsTarget, part: string, create: boolean): void {
  let info = lstatHere(part);
  if (info === undefined) {
    if (!create) {
      throw new HarnessError("NOT_FOUND", `Cannot ${operation} "${target.path}": file not found`);
    }
    try {
      Deno.mkdirSync(part);
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
    info = lstatHere(part);
  }
  if (info === undefined || info.isSymlink || !info.isDirectory) {
    throw fsChanged(operation, target.path, `"${part}" on the way is not a plain folder`);
  }
  Deno.chdir(part);
  if (!same(Deno.statSync("."), info)) {
    throw fsChanged(operation, target.path, `the folder "${part}" was swapped as it was entered`);
  }
}

/** Opens `name` in the current folder; the handle must be the entry `lstat` sees there. */
function openHere(
  operation: FsOperation,
  target: FsTarget,
  name: string,
  create: boolean,
  folder: string,
): OpenedFile {
  const before = lstatHere(name);
  if (before?.isSymlink) throw fsChanged(operation, target.path, `"${name}" became a symlink`);
  if (before?.isDirectory) {
    throw new HarnessError(
      "IS_DIRECTORY",
      `Cannot ${operation} "${target.path}": it is a directory`,
    );
  }
  if (before !== undefined && !before.isFile) {
    throw new HarnessError(
      "NOT_A_FILE",
      `Cannot ${operation} "${target.path}": it is not a regular file (a device, FIFO or socket)`,
    );
  }
  if (before === undefined && !create) {
    throw new HarnessError("NOT_FOUND", `Cannot ${operation} "${target.path}": file not found`);
  }
  const creating = before === undefined;
  const options: Deno.OpenOptions = operation === "read"
    ? { read: true }
    : creating
    ? { read: true, write: true, createNew: true }
    : { read: true, write: true };
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(name, options);
  } catch (error) {
    if (creating && error instanceof Deno.errors.AlreadyExists) {
      throw fsChanged(operation, target.path, `"${target.real}" appeared while it was created`);
    }
    throw error;
  }
  try {
    const info = file.statSync();
    const after = lstatHere(name);
    const named = after !== undefined && !after.isSymlink && same(after, info) &&
      (before === undefined || same(before, info));
    if (!named || !info.isFile) {
      throw fsChanged(operation, target.path, `"${target.real}" is not the file that was opened`);
    }
    if (Deno.cwd() !== folder) {
      throw fsChanged(operation, target.path, `its folder was moved to "${Deno.cwd()}"`);
    }
    return { file, info, created: creating };
  } catch (error) {
    file.close();
    throw error;
  }
}

/**
 * Opens `target.real` through pinned folders (see the module comment).
 *
 * @param operation `read` opens read-only; `write` opens read-write without truncating, or
 * creates the file (and its missing folders) when `create` is set.
 * @param target The resolved target.
 * @param create Create the file when nothing exists at the real path.
 * @returns The verified handle (close it), or `undefined` when no folder of the path may be
 * entered or the working directory is unknown (fall back).
 * @throws {HarnessError} `FS_CHANGED`, `NOT_FOUND`, `IS_DIRECTORY`, `NOT_A_FILE` or the
 * described OS error.
 */
export function openPinned(
  operation: FsOperation,
  target: FsTarget,
  create: boolean,
): OpenedFile | undefined {
  let start: string;
  try {
    start = Deno.cwd();
  } catch {
    return undefined;
  }
  const parts = target.real.split("/").filter((part) => part !== "");
  const name = parts.pop();
  if (name === undefined) return undefined;
  try {
    let depth = 0;
    while (depth <= parts.length && !enterAbsolute(`/${parts.slice(0, depth).join("/")}`)) depth++;
    if (depth > parts.length) return undefined;
    // The real path of where the walk starts (folders above it may be links the agent cannot see).
    const base = Deno.cwd();
    for (const part of parts.slice(depth)) enter(operation, target, part, create);
    const rest = parts.slice(depth).join("/");
    const folder = rest === "" ? base : base === "/" ? `/${rest}` : `${base}/${rest}`;
    return openHere(operation, target, name, create, folder);
  } catch (error) {
    if (error instanceof HarnessError) throw error;
    throw describeFsError(operation, target.path, error);
  } finally {
    try {
      Deno.chdir(start);
    } catch { /* the original folder is gone: stay where the walk ended */ }
  }
}
