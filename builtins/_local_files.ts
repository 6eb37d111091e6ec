/**
 * Private: the local executor's `openFile`, over the race-checked handles of
 * `_safe_fs.ts` (resolve once, ask the policies about the real path, open through pinned folders
 * or verify after the open). Every read and write of the call goes through the one handle.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import type { FileStat, OpenedFile, OpenFileOptions } from "../tools/executor.ts";
import { describeFsError, type FsOperation } from "./_fs_errors.ts";
import { lstatOrUndefined, mtimeOf, openVerified, resolveFsTarget } from "./_safe_fs.ts";
import { fileChunks, osError, readAll, replaceContent } from "./_safe_io.ts";

/** Deno's stat as an executor's. */
export function fileStatOf(info: Deno.FileInfo): FileStat {
  return {
    isFile: info.isFile,
    isDirectory: info.isDirectory,
    size: info.size,
    mtimeMs: mtimeOf(info),
  };
}

/**
 * Opens `path` through a verified handle (see the module comment).
 *
 * @param path An absolute, lexically normalized path.
 * @param options Access, creation, the policy check and the inspection of what is there.
 * @returns The opened file; close it.
 * @throws {HarnessError} `FS_CHANGED`, `NOT_FOUND`, `PERMISSION_DENIED` or `FS_ERROR`, or what
 * `inspect` throws.
 */
export async function openLocalFile(path: string, options: OpenFileOptions): Promise<OpenedFile> {
  const operation = options.access;
  const target = await resolveFsTarget(operation, path);
  const refusal = await options.check?.(target.real);
  if (refusal !== undefined) throw new HarnessError("FS_CHANGED", refusal);
  if (options.inspect !== undefined) {
    const found = await lstatOrUndefined(operation, target);
    options.inspect(found && { ...fileStatOf(found), isSymlink: found.isSymlink });
  }
  const { file, info, created } = await openVerified(operation, target, options.create === true);
  return new LocalFile(operation, path, target.real, file, fileStatOf(info), created);
}

/** A verified handle as an {@linkcode OpenedFile}; OS errors name the call's path. */
class LocalFile implements OpenedFile {
  readonly real: string;
  readonly info: FileStat;
  readonly created: boolean;
  readonly #operation: FsOperation;
  readonly #path: string;
  readonly #file: Deno.FsFile;
  #closed = false;

  constructor(
    operation: FsOperation,
    path: string,
    real: string,
    file: Deno.FsFile,
    info: FileStat,
    created: boolean,
  ) {
    this.#operation = operation;
    this.#path = path;
    this.real = real;
    this.#file = file;
    this.info = info;
    this.created = created;
  }

  chunks(): AsyncGenerator<Uint8Array> {
    return fileChunks(this.#file, this.#path, this.#operation);
  }

  async readAll(): Promise<Uint8Array> {
    try {
      return await readAll(this.#file);
    } catch (error) {
      throw osError(error) ? describeFsError(this.#operation, this.#path, error) : error;
    }
  }

  async replace(data: Uint8Array): Promise<FileStat> {
    try {
      return fileStatOf(await replaceContent(this.#file, data));
    } catch (error) {
      throw osError(error) ? describeFsError(this.#operation, this.#path, error) : error;
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#file.close();
  }
}
