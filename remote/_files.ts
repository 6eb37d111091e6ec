/**
 * Private: file operations in a Deno Sandbox through `sandbox.fs`, with the local executor's
 * semantics (parents created on write, `undefined` from stat when missing, sorted listings,
 * missing is fine for remove) and its error codes (see `_errors.ts`).
 *
 * @module
 */
import type { Sandbox } from "@deno/sandbox";
import type { DirEntry, FileStat } from "../tools/executor.ts";
import { fsError, isNotFound } from "./_errors.ts";
import { parentOf } from "./_paths.ts";

/** Reads a whole file. */
export async function readRemote(
  sandbox: Sandbox,
  path: string,
  name: string,
): Promise<Uint8Array> {
  try {
    return await sandbox.fs.readFile(path);
  } catch (error) {
    throw fsError("read", path, name, error);
  }
}

/** Creates or overwrites a file; a missing parent is created and the write tried again. */
export async function writeRemote(
  sandbox: Sandbox,
  path: string,
  data: Uint8Array,
  name: string,
): Promise<void> {
  const bytes = data as Uint8Array<ArrayBuffer>;
  try {
    try {
      await sandbox.fs.writeFile(path, bytes);
    } catch (error) {
      if (!(isNotFound(error))) throw error;
      await sandbox.fs.mkdir(parentOf(path), { recursive: true });
      await sandbox.fs.writeFile(path, bytes);
    }
  } catch (error) {
    throw fsError("write", path, name, error);
  }
}

/** Metadata, or `undefined` when nothing exists at `path`. */
export async function statRemote(
  sandbox: Sandbox,
  path: string,
  name: string,
): Promise<FileStat | undefined> {
  try {
    const info = await sandbox.fs.stat(path);
    const mtime = info.mtime as Date | null | undefined;
    return {
      isFile: info.isFile,
      isDirectory: info.isDirectory,
      size: info.size,
      mtimeMs: mtime instanceof Date ? mtime.getTime() : null,
    };
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw fsError("read", path, name, error);
  }
}

/** The entries of a directory, sorted by name. */
export async function readDirRemote(
  sandbox: Sandbox,
  path: string,
  name: string,
): Promise<DirEntry[]> {
  const entries: DirEntry[] = [];
  try {
    for await (const entry of sandbox.fs.readDir(path)) {
      const { name, isFile, isDirectory, isSymlink } = entry;
      entries.push({ name, isFile, isDirectory, isSymlink });
    }
  } catch (error) {
    throw fsError("read", path, name, error);
  }
  return entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** Removes a file or directory (`recursive`: a tree); a missing one is fine. */
export async function removeRemote(
  sandbox: Sandbox,
  path: string,
  recursive: boolean,
  name: string,
): Promise<void> {
  try {
    await sandbox.fs.remove(path, { recursive });
  } catch (error) {
    if (isNotFound(error)) return;
    throw fsError("write", path, name, error);
  }
}
