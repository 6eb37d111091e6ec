/**
 * The host side of the workspace sync (private to remote/): walking the workspace without
 * following symlinks, reading a walked file only when it is still that file, and applying remote
 * changes through the verified-write helpers of the local executor, never through a symlink.
 *
 * @module
 */
import { errorMessage, HarnessError } from "../core/mod.ts";
import { LocalExecutor } from "../builtins/mod.ts";
import type { HiddenMatcher } from "./_sync_names.ts";

/** One regular file of the host workspace, as walked. */
export interface HostFile {
  /** The path relative to the workspace. */
  readonly rel: string;
  /** The size in bytes. */
  readonly size: number;
  /** The mtime in ms (0 when unknown). */
  readonly mtimeMs: number;
  /** Device and inode: the identity a later read checks. */
  readonly dev: number;
  /** The inode. */
  readonly ino: number;
  /** The permission bits. */
  readonly mode: number;
}

/** What a walk found. */
export interface HostWalk {
  /** Regular files by relative path. */
  readonly files: Map<string, HostFile>;
  /** Relative paths skipped, with why (symlinks, special files, hidden paths). */
  readonly skipped: Map<string, string>;
}

/** A file's mtime in ms. */
export function mtimeMsOf(info: Deno.FileInfo): number {
  return info.mtime?.getTime() ?? 0;
}

function hostFile(rel: string, info: Deno.FileInfo): HostFile {
  return {
    rel,
    size: info.size,
    mtimeMs: mtimeMsOf(info),
    dev: info.dev,
    ino: info.ino ?? 0,
    mode: (info.mode ?? 0o644) & 0o7777,
  };
}

/** Lists one folder of the walk: subfolders to visit, files to lstat. */
async function listFolder(
  workspace: string,
  folder: string,
  hidden: HiddenMatcher,
  walk: HostWalk,
): Promise<string[]> {
  const subfolders: string[] = [];
  const files: string[] = [];
  for await (const entry of Deno.readDir(folder === "" ? workspace : `${workspace}/${folder}`)) {
    const rel = folder === "" ? entry.name : `${folder}/${entry.name}`;
    const reason = hidden(rel);
    if (reason !== undefined) walk.skipped.set(rel, reason);
    else if (entry.isSymlink) walk.skipped.set(rel, "a symlink: never followed, not synced");
    else if (entry.isDirectory) subfolders.push(rel);
    else if (entry.isFile) files.push(rel);
    else walk.skipped.set(rel, "not a regular file (a FIFO, socket or device): not synced");
  }
  const infos = await Promise.allSettled(files.map((rel) => Deno.lstat(`${workspace}/${rel}`)));
  infos.forEach((result, i) => {
    const rel = files[i]!;
    if (result.status === "fulfilled" && result.value.isFile) {
      walk.files.set(rel, hostFile(rel, result.value));
    } else if (result.status === "fulfilled") {
      walk.skipped.set(rel, "changed type during the walk: not synced");
    }
  });
  return subfolders;
}

/**
 * Walks the host workspace: never follows a symlink, does not enter hidden folders.
 *
 * @param workspace The absolute workspace path.
 * @param hidden The hidden-path matcher.
 * @returns The files and the skipped entries.
 */
export async function walkHost(workspace: string, hidden: HiddenMatcher): Promise<HostWalk> {
  const walk: HostWalk = { files: new Map(), skipped: new Map() };
  const stack = [""];
  while (stack.length > 0) {
    const folder = stack.pop()!;
    try {
      stack.push(...await listFolder(workspace, folder, hidden, walk));
    } catch (error) {
      if (folder === "") {
        throw new HarnessError(
          "SYNC_HOST",
          `Cannot read the workspace "${workspace}": ${errorMessage(error)}`,
        );
      }
      walk.skipped.set(folder, `cannot be read: ${errorMessage(error)}`);
    }
  }
  return walk;
}

/**
 * The sha256 of `bytes`, hex.
 *
 * @param bytes The bytes.
 * @returns The digest.
 */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Reads an open file to its end; `size` (from its stat) sizes the first buffer. */
async function readToEnd(handle: Deno.FsFile, size: number): Promise<Uint8Array> {
  let buffer = new Uint8Array(size + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      const grown = new Uint8Array(buffer.length * 2);
      grown.set(buffer);
      buffer = grown;
    }
    const count = await handle.read(buffer.subarray(length));
    if (count === null) return buffer.subarray(0, length);
    length += count;
  }
}

/**
 * Reads a walked file, only when the path still names that very file (same device and inode,
 * checked on the open handle).
 *
 * @param workspace The absolute workspace path.
 * @param file The walked file.
 * @returns The bytes, and the handle's stat.
 * @throws {HarnessError} `SYNC_HOST` when the file changed identity or cannot be read.
 */
export async function readHostFile(
  workspace: string,
  file: HostFile,
): Promise<{ bytes: Uint8Array; info: Deno.FileInfo }> {
  const path = `${workspace}/${file.rel}`;
  let handle: Deno.FsFile;
  try {
    handle = await Deno.open(path, { read: true });
  } catch (error) {
    throw new HarnessError("SYNC_HOST", `Cannot read "${path}": ${errorMessage(error)}`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile || info.dev !== file.dev || (info.ino ?? 0) !== file.ino) {
      throw new HarnessError("SYNC_HOST", `"${path}" was replaced during the sync: not synced`);
    }
    return { bytes: await readToEnd(handle, info.size), info };
  } finally {
    handle.close();
  }
}

/** What the host holds at a path the remote changed. */
export type HostSlot =
  | { readonly kind: "absent" }
  | { readonly kind: "file"; readonly info: Deno.FileInfo }
  | { readonly kind: "refused"; readonly reason: string };

async function lstatOrUndefined(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/**
 * What is at `workspace/rel` on the host, refusing any symlink on the way or at the end (the
 * remote must never make the host follow or replace one) and anything but a regular file.
 *
 * @param workspace The absolute workspace path.
 * @param rel A validated relative path.
 * @returns The slot.
 */
export async function hostSlot(workspace: string, rel: string): Promise<HostSlot> {
  const parts = rel.split("/");
  let path = workspace;
  for (const [i, part] of parts.entries()) {
    path = `${path}/${part}`;
    const info = await lstatOrUndefined(path);
    if (info === undefined) return { kind: "absent" };
    const last = i === parts.length - 1;
    if (info.isSymlink) {
      return { kind: "refused", reason: "a symlink on the host path: never followed or replaced" };
    }
    if (!last && !info.isDirectory) {
      return { kind: "refused", reason: "the host has a file where the remote has a folder" };
    }
    if (last && info.isDirectory) {
      return { kind: "refused", reason: "the host has a folder where the remote has a file" };
    }
    if (last && !info.isFile) {
      return { kind: "refused", reason: "the host has a special file there: never replaced" };
    }
    if (last) return { kind: "file", info };
  }
  return { kind: "absent" };
}

const local = new LocalExecutor();

/**
 * Writes remote bytes to the host through the local executor's verified handles, after
 * {@linkcode hostSlot} found no symlink on the way, and checks again after the write that the
 * path holds a regular file reached without a symlink.
 *
 * @param workspace The absolute workspace path.
 * @param rel A validated relative path whose slot is `absent` or `file`.
 * @param bytes The content.
 * @returns The file's stat after the write.
 * @throws {HarnessError} `SYNC_HOST` when the path changed, or the executor's error.
 */
export async function writeHostFile(
  workspace: string,
  rel: string,
  bytes: Uint8Array,
): Promise<Deno.FileInfo> {
  const path = `${workspace}/${rel}`;
  await local.writeFile(path, bytes);
  const after = await hostSlot(workspace, rel);
  if (after.kind !== "file") {
    throw new HarnessError("SYNC_HOST", `"${path}" changed during the sync`);
  }
  return after.info;
}

/**
 * Removes a host file the remote deleted, then the folders that became empty (up to the
 * workspace, each only when it is still a plain empty folder).
 *
 * @param workspace The absolute workspace path.
 * @param rel A validated relative path whose slot is `file`.
 */
export async function removeHostFile(workspace: string, rel: string): Promise<void> {
  await Deno.remove(`${workspace}/${rel}`);
  const parts = rel.split("/");
  for (let depth = parts.length - 1; depth > 0; depth--) {
    const folder = `${workspace}/${parts.slice(0, depth).join("/")}`;
    const info = await lstatOrUndefined(folder);
    if (info === undefined || info.isSymlink || !info.isDirectory) return;
    try {
      await Deno.remove(folder);
    } catch {
      return; // Not empty (or not ours to remove): stop.
    }
  }
}
