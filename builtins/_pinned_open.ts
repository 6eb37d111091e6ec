/**
 * Private: opening a file through pinned folders, the race-free core of `_safe_fs.ts`.
 *
 * Deno has no `openat`, but it hands relative paths to the OS as they are, and the process's
 * working directory is a handle on a folder: a relative lookup starts from that folder, wherever
 * it is now, and never walks the path above it again. So the open walks the real path one folder
 * at a time with `Deno.chdir`: `lstat` the next name in the current folder (it must be a real
 * folder, not a symlink), enter it, and check that the folder entered (`stat(".")`) is the one
 * that `lstat` saw (same device and inode). A symlink swapped in between makes the folder entered
 * another one, so the open fails with `FS_CHANGED`. In the last folder, `lstat` of the bare name
 * gives the identity of the file that is really at the real path; a new file is created there by
 * bare name with `createNew` (which never follows a symlink), and missing folders are made by
 * bare name too. The walk is synchronous and never opens an existing file (a FIFO would block the
 * whole process), from the first `chdir` to the one back to the original folder, so no other
 * JavaScript runs while the working directory is changed. An existing file is then opened by its
 * real path and the handle kept only when it is the very file the walk found (same device and
 * inode): whatever a swap made the open reach instead is closed unread and unwritten.
 *
 * The walk starts, by absolute path, at the topmost folder of the path the agent may enter (Deno
 * permissions): the folders above it are ones the agent may not even read, so no tool the agent
 * runs can swap them. When no folder of the path may be entered, or the original working
 * directory is unknown, {@linkcode openPinned} returns `undefined` and the caller falls back to the
 * verify-after-open scheme of `_safe_fs.ts`.
 *
 * The working directory belongs to the whole process, Workers included (`deno test --parallel`
 * runs test modules as Workers of one process), and another thread sees it change. So the walk
 * is opt-in per process ({@linkcode usePinnedOpen}): the agent binary, one JavaScript thread,
 * turns it on; an embedder whose process runs no other thread that uses the working directory
 * may too. Otherwise the fs tools use the verify-after-open scheme.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import { describeFsError, type FsOperation } from "./_fs_errors.ts";
import type { FsTarget } from "./_fs_types.ts";

// Process-wide on purpose: it guards the process-wide working directory (see above).
let pinnedOpen = false;

/**
 * Lets the fs tools of this process open files through pinned folders (the race-free walk, which
 * uses the working directory as a folder handle for synchronous steps); off by default.
 *
 * @param enabled Whether no other thread of this process (a Worker) uses the working directory.
 *
 * @example Usage
 * ```ts
 * import { usePinnedOpen } from "./_pinned_open.ts";
 * usePinnedOpen(false);
 * ```
 */
export function usePinnedOpen(enabled: boolean): void {
  pinnedOpen = enabled;
}

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

/** What the walk found in the last folder. */
type Found =
  | { readonly kind: "existing"; readonly info: Deno.FileInfo }
  | { readonly kind: "created"; readonly opened: OpenedFile };

/**
 * In the last folder: the identity of the existing regular file `name`, or a new file created
 * there by bare name with `createNew` (which never follows a symlink and never blocks).
 */
function findHere(
  operation: FsOperation,
  target: FsTarget,
  name: string,
  create: boolean,
  folder: string,
): Found {
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
  if (Deno.cwd() !== folder) {
    throw fsChanged(operation, target.path, `its folder was moved to "${Deno.cwd()}"`);
  }
  if (before !== undefined) return { kind: "existing", info: before };
  if (!create) {
    throw new HarnessError("NOT_FOUND", `Cannot ${operation} "${target.path}": file not found`);
  }
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(name, { read: true, write: true, createNew: true });
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) {
      throw fsChanged(operation, target.path, `"${target.real}" appeared while it was created`);
    }
    throw error;
  }
  try {
    const info = file.statSync();
    const after = lstatHere(name);
    if (after === undefined || after.isSymlink || !same(after, info)) {
      throw fsChanged(operation, target.path, `"${target.real}" is not the file that was created`);
    }
    return { kind: "created", opened: { file, info, created: true } };
  } catch (error) {
    file.close();
    throw error;
  }
}

/** The synchronous walk: enters the real folders of `target.real` and finds the file there. */
function walk(operation: FsOperation, target: FsTarget, create: boolean): Found | undefined {
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
    return findHere(operation, target, name, create, folder);
  } catch (error) {
    if (error instanceof HarnessError) throw error;
    throw describeFsError(operation, target.path, error);
  } finally {
    try {
      Deno.chdir(start);
    } catch { /* the original folder is gone: stay where the walk ended */ }
  }
}

/**
 * Opens `target.real` through pinned folders (see the module comment).
 *
 * @param operation `read` opens read-only; `write` opens read-write without truncating, or
 * creates the file (and its missing folders) when `create` is set.
 * @param target The resolved target.
 * @param create Create the file when nothing exists at the real path.
 * @returns The verified handle (close it), or `undefined` when the walk is off for this process,
 * no folder of the path may be entered or the working directory is unknown (fall back).
 * @throws {HarnessError} `FS_CHANGED`, `NOT_FOUND`, `IS_DIRECTORY`, `NOT_A_FILE` or the
 * described OS error.
 */
export async function openPinned(
  operation: FsOperation,
  target: FsTarget,
  create: boolean,
): Promise<OpenedFile | undefined> {
  if (!pinnedOpen) return undefined;
  const found = walk(operation, target, create);
  if (found === undefined) return undefined;
  if (found.kind === "created") return found.opened;
  // The file the walk found is known by its identity: open it (asynchronously, so a FIFO
  // swapped in can only hold this call) and keep the handle only if it is that very file.
  let file: Deno.FsFile;
  try {
    file = await Deno.open(
      target.real,
      operation === "read" ? { read: true } : {
        read: true,
        write: true,
      },
    );
  } catch (error) {
    throw describeFsError(operation, target.path, error);
  }
  try {
    const info = await file.stat();
    if (!same(info, found.info)) {
      throw fsChanged(operation, target.path, `"${target.real}" is not the file that was found`);
    }
    return { file, info, created: false };
  } catch (error) {
    file.close();
    throw error;
  }
}
