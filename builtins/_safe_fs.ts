/**
 * Race-checked file access for the fs tools (private to builtins/): the tool decides on the
 * object it opens and reads or writes only through that handle.
 *
 * The threat: a background job (sandboxed bash can write the workspace) swaps a folder or a
 * symlink on the way to a file while a tool runs, so that a path judged "inside" at the policy
 * check reaches a file outside (or a hidden key) at the open.
 *
 * What Deno 2.9 offers, and what it does not: `Deno.open` takes `read`, `write`, `append`,
 * `truncate`, `create`, `createNew` (`O_CREAT|O_EXCL`, which never follows a final symlink) and
 * `mode`; `FsFile` has `stat()` (with `dev` and `ino`), `read`, `write`, `seek`, `truncate`.
 * There is no `O_NOFOLLOW`, no `O_DIRECTORY`, no `openat`/directory handles and no fd number
 * (`/proc/self/fd` needs `--allow-all`). `node:fs` passes `O_NOFOLLOW` through only under
 * `--allow-all`: with scoped permissions (the agent's profile) Deno resolves the path itself and
 * the flag is lost. The scheme below pins folders with the working directory instead.
 *
 * The scheme, for every local read and write:
 * 1. Resolve once: {@linkcode resolveFsTarget} follows every symlink ({@linkcode resolveTarget})
 *    to the real path. Policies judge that path; the tool asks them again about the real path it
 *    is about to open (`fs/target`), so a call judged on another path fails before any I/O.
 * 2. Open that real path through pinned folders (`_pinned_open.ts`): Deno passes relative paths
 *    to the OS as they are, and the working directory is a folder handle, so the open walks the
 *    path with `Deno.chdir`, one real folder at a time, checking with `lstat` and `stat(".")`
 *    that each folder entered is the one the name held (not a swapped-in symlink). In the last
 *    one, `lstat` of the bare name gives the identity of the file really at the real path, or a
 *    new file is created by bare name with `createNew` (which never follows a symlink). The walk
 *    is synchronous, so no other JavaScript sees the changed working directory. An existing file
 *    is then opened by its real path and the handle kept only when it is that very file (same
 *    device and inode). This gives what `openat` step by step would, for the content.
 * 3. Read, truncate and write only through that handle (an overwrite is in place, so no rename
 *    through an unverified folder is needed). Any mismatch is `FS_CHANGED` and nothing is read or
 *    written through the handle.
 *
 * Fallback, when the walk is off for this process (`usePinnedOpen`: only a process with one
 * JavaScript thread, such as the agent binary, turns it on), no folder of the path may be entered
 * (Deno permissions) or the working directory is unknown: record the identity (`dev`, `ino`) of every folder on the real path (each must be a
 * real folder), open the absolute real path, then require `FsFile.stat()` to equal
 * `Deno.lstat(real)`, every folder to be the same real folder still, and the file's lstat to
 * match once more. Those are separate lookups, so a fast enough attacker can win that race now and
 * then; the pinned walk has no such window.
 *
 * Symlinks inside the workspace that point inside stay usable: they are resolved, not refused.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import { describeFsError, type FsOperation } from "./_fs_errors.ts";
import { resolveTarget } from "./_paths.ts";
import type { ToolExecution } from "../tools/definition.ts";
import type { FsTarget } from "./_fs_types.ts";
import { fsChanged, type OpenedFile, openPinned } from "./_pinned_open.ts";

export type { FsTarget, OpenedFile };
export { fsChanged };

type Chain = readonly (Deno.FileInfo | undefined)[];

/**
 * Resolves the call's path once (see the module comment).
 *
 * @param operation What the call does (for the error).
 * @param path An absolute, lexically normalized path.
 * @returns The target.
 * @throws {HarnessError} `FS_ERROR` when the path cannot be resolved (a symlink loop).
 */
export async function resolveFsTarget(operation: FsOperation, path: string): Promise<FsTarget> {
  // A link swapped between its lstat and its readLink fails once: try again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const real = await resolveTarget(path);
    if (real !== undefined) return { path, real };
  }
  throw new HarnessError(
    "FS_ERROR",
    `Cannot ${operation} "${path}": it cannot be resolved (a symlink loop, an unreadable link, ` +
      `or links that kept changing while it was resolved)`,
  );
}

/**
 * Resolves the call's path and asks `check` (the policies) whether the call was judged on that
 * real path.
 *
 * @param operation What the call does.
 * @param path An absolute, lexically normalized path.
 * @param exec The execution.
 * @param check The policies' check (`FsToolOptions.checkTarget`).
 * @returns The target.
 * @throws {HarnessError} `FS_CHANGED` with the policy's text when it refuses.
 */
export async function checkedTarget(
  operation: FsOperation,
  path: string,
  exec: ToolExecution,
  check: ((exec: ToolExecution, target: FsTarget) => Promise<string | undefined>) | undefined,
): Promise<FsTarget> {
  const target = await resolveFsTarget(operation, path);
  const refusal = await check?.(exec, target);
  if (refusal !== undefined) throw new HarnessError("FS_CHANGED", refusal);
  return target;
}

/**
 * A file's mtime in ms, when known.
 *
 * @param info The stat.
 * @returns The mtime.
 */
export function mtimeOf(info: Deno.FileInfo): number | null {
  return info.mtime?.getTime() ?? null;
}

/** `Deno.lstat`, or `undefined` when nothing is there. Other errors are described. */
export async function lstatOrUndefined(
  operation: FsOperation,
  target: FsTarget,
  path: string = target.real,
): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw describeFsError(operation, target.path, error);
  }
}

function sameObject(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

function folders(real: string): string[] {
  const parts = real.split("/").filter((part) => part !== "");
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) out.push(`/${parts.slice(0, i).join("/")}`);
  return out;
}

/**
 * The folders above `target.real`, each lstat'ed: a symlink or a non-folder on the way throws
 * `FS_CHANGED`; so does a missing one, unless `missing` is `"stop"` (then the chain
 * ends there). A folder the agent may not inspect (Deno permissions) is `undefined`: the
 * sandbox cannot write there either.
 */
async function folderChain(
  operation: FsOperation,
  target: FsTarget,
  missing: "throw" | "stop",
): Promise<Chain> {
  const chain: (Deno.FileInfo | undefined)[] = [];
  // One lstat per folder, all at once (a snapshot); judged in order.
  const paths = folders(target.real);
  const infos = await Promise.allSettled(paths.map((folder) => Deno.lstat(folder)));
  for (const [i, result] of infos.entries()) {
    const folder = paths[i]!;
    if (result.status === "rejected") {
      const error = result.reason;
      if (error instanceof Deno.errors.NotCapable) {
        chain.push(undefined);
        continue;
      }
      if (error instanceof Deno.errors.NotFound) {
        if (missing === "stop") break;
        throw fsChanged(operation, target.path, `the folder "${folder}" disappeared`);
      }
      throw describeFsError(operation, target.path, error);
    }
    const info = result.value;
    if (info.isSymlink || !info.isDirectory) {
      throw fsChanged(operation, target.path, `"${folder}" is no longer a plain folder`);
    }
    chain.push(info);
  }
  return chain;
}

function sameChain(a: Chain, b: Chain): boolean {
  if (a.length !== b.length) return false;
  return a.every((info, i) => {
    const other = b[i];
    return info === undefined || other === undefined ? info === other : sameObject(info, other);
  });
}

/** Step 4 of the module comment: the handle is the object the verified path names. */
async function verify(
  operation: FsOperation,
  target: FsTarget,
  opened: Deno.FileInfo,
  before: Chain,
): Promise<void> {
  const named = async () => {
    const now = await lstatOrUndefined(operation, target);
    if (now === undefined || now.isSymlink || !sameObject(now, opened)) {
      throw fsChanged(operation, target.path, `"${target.real}" is not the file that was opened`);
    }
  };
  await named();
  const after = await folderChain(operation, target, "throw");
  if (!sameChain(before, after)) {
    throw fsChanged(operation, target.path, `a folder of "${target.real}" was replaced`);
  }
  await named();
}

/** Makes the missing folders above `target.real` one at a time, each checked after. */
async function makeFolders(operation: FsOperation, target: FsTarget): Promise<void> {
  const existing = await folderChain(operation, target, "stop");
  for (const folder of folders(target.real).slice(existing.length)) {
    try {
      await Deno.mkdir(folder);
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) {
        throw describeFsError(operation, target.path, error);
      }
    }
    const info = await lstatOrUndefined(operation, target, folder);
    if (info === undefined || info.isSymlink || !info.isDirectory) {
      throw fsChanged(operation, target.path, `the new folder "${folder}" was replaced`);
    }
  }
}

/**
 * Opens `target.real` and verifies the handle (steps 2–4 of the module comment).
 *
 * @param operation `read` opens read-only; `write` opens an existing file read-write (no
 * truncation) or, with `create`, creates it with `createNew` (missing folders made first).
 * @param target The resolved target.
 * @param create Create the file when nothing exists at the real path.
 * @returns The verified handle; close it.
 * @throws {HarnessError} `FS_CHANGED` on any mismatch (the handle is closed), `NOT_FOUND`, or
 * the described open error.
 */
export async function openVerified(
  operation: FsOperation,
  target: FsTarget,
  create = false,
): Promise<OpenedFile> {
  const pinned = await openPinned(operation, target, create);
  if (pinned !== undefined) return pinned;
  // No folder of the path may be entered: verify after the open instead.
  const existing = await lstatOrUndefined(operation, target);
  if (existing?.isSymlink) {
    throw fsChanged(operation, target.path, `"${target.real}" became a symlink`);
  }
  const creating = existing === undefined && create;
  if (creating) await makeFolders(operation, target);
  const before = await folderChain(operation, target, "throw");
  const options: Deno.OpenOptions = operation === "read"
    ? { read: true }
    : creating
    ? { read: true, write: true, createNew: true }
    : { read: true, write: true };
  let file: Deno.FsFile;
  try {
    file = await Deno.open(target.real, options);
  } catch (error) {
    if (creating && error instanceof Deno.errors.AlreadyExists) {
      throw fsChanged(operation, target.path, `"${target.real}" appeared while it was created`);
    }
    throw describeFsError(operation, target.path, error);
  }
  try {
    const info = await file.stat();
    await verify(operation, target, info, before);
    return { file, info, created: creating };
  } catch (error) {
    file.close();
    throw error;
  }
}

/**
 * Refuses to write over a folder or a special file (a symlink is followed by the open).
 *
 * @param path The path as the call named it.
 * @param found What is there now (`lstat`), or `undefined` when nothing is.
 * @throws {HarnessError} `IS_DIRECTORY` or `NOT_A_FILE`.
 */
export function refuseNonFileWrite(
  path: string,
  found:
    | { readonly isFile: boolean; readonly isDirectory: boolean; readonly isSymlink: boolean }
    | undefined,
): void {
  if (found?.isDirectory) {
    throw new HarnessError("IS_DIRECTORY", `Cannot write "${path}": it is a directory`);
  }
  if (found !== undefined && !found.isFile && !found.isSymlink) {
    throw new HarnessError(
      "NOT_A_FILE",
      `Cannot write "${path}": it is not a regular file (a device, FIFO or socket)`,
    );
  }
}

/**
 * Opens a target for writing: refuses a folder or a special file, creates a missing file.
 *
 * @param target The resolved target.
 * @returns The verified handle; close it.
 * @throws {HarnessError} `IS_DIRECTORY`, `NOT_A_FILE`, `FS_CHANGED` or the described open error.
 */
export async function openForWrite(target: FsTarget): Promise<OpenedFile> {
  refuseNonFileWrite(target.path, await lstatOrUndefined("write", target));
  const opened = await openVerified("write", target, true);
  if (!opened.info.isFile) {
    opened.file.close();
    throw fsChanged("write", target.path, `"${target.real}" is no longer a regular file`);
  }
  return opened;
}
