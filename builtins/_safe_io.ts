/**
 * Whole-file I/O through verified handles (private to builtins/): see `_safe_fs.ts` for the
 * scheme. The local executor's `readFile` and `writeFile` and the fs tools use these.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import { describeFsError, type FsOperation } from "./_fs_errors.ts";
import { lstatOrUndefined, openForWrite, openVerified, resolveFsTarget } from "./_safe_fs.ts";

/**
 * Whether `error` is one of Deno's OS errors (to be described with the path).
 *
 * @param error The error.
 * @returns True for a `Deno.errors.*` instance.
 */
export function osError(error: unknown): boolean {
  return Object.values(Deno.errors).some((kind) => error instanceof kind);
}

/**
 * Reads the rest of an open file.
 *
 * @param file The handle.
 * @returns The bytes.
 */
export async function readAll(file: Deno.FsFile): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const buffer = new Uint8Array(256 * 1024);
    const count = await file.read(buffer);
    if (count === null) break;
    chunks.push(buffer.subarray(0, count));
    size += count;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** Size of the reused read buffer of {@linkcode fileChunks}. */
const CHUNK_BYTES = 256 * 1024;

/**
 * The chunks of an open file from its current offset, through one reused buffer (a chunk is
 * valid until the next is requested); the caller closes the file.
 *
 * @param file The handle.
 * @param path For errors.
 * @param operation For errors. @default {"read"}
 * @returns The chunks.
 */
export async function* fileChunks(
  file: Deno.FsFile,
  path: string,
  operation: FsOperation = "read",
): AsyncGenerator<Uint8Array> {
  const buffer = new Uint8Array(CHUNK_BYTES);
  for (;;) {
    let count: number | null;
    try {
      count = await file.read(buffer);
    } catch (error) {
      throw describeFsError(operation, path, error);
    }
    if (count === null) return;
    yield buffer.subarray(0, count);
  }
}

/**
 * Replaces an open file's content in place: truncate, then write from the start.
 *
 * @param file A handle opened for writing.
 * @param bytes The new content.
 * @returns The file's `stat()` after the write.
 */
export async function replaceContent(
  file: Deno.FsFile,
  bytes: Uint8Array,
): Promise<Deno.FileInfo> {
  await file.truncate(0);
  await file.seek(0, Deno.SeekMode.Start);
  let at = 0;
  while (at < bytes.length) at += await file.write(bytes.subarray(at));
  return await file.stat();
}

/**
 * Reads a whole file through a verified handle (the local executor's `readFile`).
 *
 * @param path An absolute, lexically normalized path.
 * @returns The bytes.
 * @throws {HarnessError} `FS_CHANGED`, `NOT_FOUND`, `PERMISSION_DENIED` or `FS_ERROR`.
 */
export async function readVerified(path: string): Promise<Uint8Array> {
  const target = await resolveFsTarget("read", path);
  if (await lstatOrUndefined("read", target) === undefined) {
    throw new HarnessError("NOT_FOUND", `Cannot read "${path}": file not found`);
  }
  const { file } = await openVerified("read", target);
  try {
    return await readAll(file);
  } catch (error) {
    throw osError(error) ? describeFsError("read", path, error) : error;
  } finally {
    file.close();
  }
}

/**
 * Creates or overwrites a file through a verified handle (the local executor's `writeFile`):
 * missing folders are made, an existing file is rewritten in place.
 *
 * @param path An absolute, lexically normalized path.
 * @param bytes The content.
 * @returns The file's `stat()` after the write and whether it was created.
 * @throws {HarnessError} `FS_CHANGED`, `IS_DIRECTORY`, `PERMISSION_DENIED` or `FS_ERROR`.
 */
export async function writeVerified(
  path: string,
  bytes: Uint8Array,
): Promise<{ readonly info: Deno.FileInfo; readonly created: boolean }> {
  const target = await resolveFsTarget("write", path);
  const { file, created } = await openForWrite(target);
  try {
    return { info: await replaceContent(file, bytes), created };
  } catch (error) {
    throw osError(error) ? describeFsError("write", path, error) : error;
  } finally {
    file.close();
  }
}
