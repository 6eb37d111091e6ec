/**
 * Bounded-memory file access for the fs tools: streaming reads through the executor and the
 * file versions the stale-write check compares (private to builtins/).
 *
 * @module
 */
import { describeFsError } from "./_fs_errors.ts";
import type { Executor } from "../tools/executor.ts";
import { LocalExecutor } from "./local_executor.ts";
import { openVerified, resolveFsTarget } from "./_safe_fs.ts";
import type { FileVersion } from "./fs_read.ts";

export type { FileVersion };

/** Files up to this size get a content hash in their version; larger ones size and mtime only. */
export const HASH_MAX_BYTES = 64 * 1024 * 1024;

/** An executor that can stream a file (optional; others fall back to `readFile`). */
export interface StreamingExecutor extends Executor {
  /** A stream of the file's bytes. */
  readStream(path: string): Promise<ReadableStream<Uint8Array>>;
}

/** Size of the reused read buffer of local file reads. */
const CHUNK_BYTES = 256 * 1024;

/**
 * Reads `path` chunk by chunk: the executor's own `readStream` when it has one, a reused buffer
 * over a verified handle (see `_safe_fs.ts`) for the local executor family (whose `readFile` is
 * the local one), else one whole-file chunk. A chunk is only valid until the next one is
 * requested.
 *
 * @param executor The executor.
 * @param path The absolute path.
 * @returns The chunks.
 */
export async function* readChunks(executor: Executor, path: string): AsyncGenerator<Uint8Array> {
  const streaming = (executor as Partial<StreamingExecutor>).readStream;
  if (typeof streaming === "function") {
    yield* await streaming.call(executor, path);
    return;
  }
  if (!isLocalFs(executor)) {
    yield await executor.readFile(path);
    return;
  }
  const { file } = await openVerified("read", await resolveFsTarget("read", path));
  try {
    yield* fileChunks(file, path);
  } finally {
    file.close();
  }
}

/**
 * Whether file I/O of `executor` is the local, race-checked one (so tools may open files
 * themselves through `_safe_fs.ts`).
 *
 * @param executor The executor.
 * @returns True for the local executor family.
 */
export function isLocalFs(executor: Executor): boolean {
  return executor.readFile === LocalExecutor.prototype.readFile &&
    executor.writeFile === LocalExecutor.prototype.writeFile &&
    executor.stat === LocalExecutor.prototype.stat;
}

/**
 * The chunks of an open file from its current offset, through one reused buffer; the caller
 * closes the file.
 *
 * @param file The handle.
 * @param path For errors.
 * @returns The chunks.
 */
export async function* fileChunks(file: Deno.FsFile, path: string): AsyncGenerator<Uint8Array> {
  const buffer = new Uint8Array(CHUNK_BYTES);
  for (;;) {
    let count: number | null;
    try {
      count = await file.read(buffer);
    } catch (error) {
      throw describeFsError("read", path, error);
    }
    if (count === null) return;
    yield buffer.subarray(0, count);
  }
}

/** An incremental 64-bit content hash (two FNV-1a lanes); a change detector, not a MAC. */
export class ContentHash {
  #a = 0x811c9dc5;
  #b = 0x01000193 ^ 0x5bd1e995;
  #bytes = 0;

  /** Bytes hashed so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Adds bytes.
   *
   * @param chunk The next bytes.
   */
  update(chunk: Uint8Array): void {
    let a = this.#a;
    let b = this.#b;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      a = Math.imul(a ^ byte, 0x01000193);
      b = Math.imul(b ^ byte, 0x5bd1e995) ^ (b >>> 15);
    }
    this.#a = a;
    this.#b = b;
    this.#bytes += chunk.length;
  }

  /**
   * The hash so far.
   *
   * @returns 16 hex digits.
   */
  digest(): string {
    const hex = (n: number) => (n >>> 0).toString(16).padStart(8, "0");
    return hex(this.#a) + hex(this.#b);
  }
}

/**
 * The version of bytes just written (or read whole).
 *
 * @param bytes The content.
 * @param mtimeMs The file's mtime after the write.
 * @returns The version.
 */
export function versionOf(bytes: Uint8Array, mtimeMs: number | null): FileVersion {
  if (bytes.length > HASH_MAX_BYTES) return { size: bytes.length, mtimeMs };
  const hash = new ContentHash();
  hash.update(bytes);
  return { size: bytes.length, mtimeMs, hash: hash.digest() };
}

/**
 * The current version of a file on disk, or `undefined` when it does not exist. Streams the
 * content (bounded memory) when it is small enough to hash.
 *
 * @param executor The executor.
 * @param path The absolute path.
 * @param known A version recorded earlier: when size and mtime still match it, it is returned
 * without reading the file again.
 * @returns The version.
 */
export async function currentVersion(
  executor: Executor,
  path: string,
  known?: FileVersion,
): Promise<FileVersion | undefined> {
  const info = await executor.stat(path);
  if (info === undefined || !info.isFile) return undefined;
  if (known?.mtimeMs != null && known.size === info.size && known.mtimeMs === info.mtimeMs) {
    return known;
  }
  if (info.size > HASH_MAX_BYTES) return { size: info.size, mtimeMs: info.mtimeMs };
  const hash = new ContentHash();
  for await (const chunk of readChunks(executor, path)) {
    hash.update(chunk);
    if (hash.bytes > HASH_MAX_BYTES) return { size: hash.bytes, mtimeMs: info.mtimeMs };
  }
  return { size: hash.bytes, mtimeMs: info.mtimeMs, hash: hash.digest() };
}

/**
 * Whether the file still is what the session saw: same size and hash when both have a hash
 * (a `touch` is not a change), else same size and mtime.
 *
 * @param seen The version the session recorded.
 * @param now The version on disk.
 * @returns True when unchanged.
 */
export function sameVersion(seen: FileVersion, now: FileVersion): boolean {
  if (seen.size !== now.size) return false;
  if (seen.hash !== undefined && now.hash !== undefined) return seen.hash === now.hash;
  return seen.mtimeMs !== null && seen.mtimeMs === now.mtimeMs;
}
