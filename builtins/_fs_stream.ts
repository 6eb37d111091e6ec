/**
 * Bounded-memory file access for the fs tools: streaming reads through the executor and the
 * file versions the stale-write check compares (private to builtins/).
 *
 * @module
 */
import type { Executor } from "../tools/executor.ts";
import { openFileOf } from "../tools/exec_file.ts";
import type { FileVersion } from "./_fs_types.ts";

export type { FileVersion };

/** Files up to this size get a content hash in their version; larger ones size and mtime only. */
export const HASH_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Reads `path` chunk by chunk through the executor's file handle (see `openFileOf`: the local
 * executors' verified handle and reused buffer, else one whole-file chunk). A
 * chunk is only valid until the next one is requested.
 *
 * @param executor The executor.
 * @param path The absolute path.
 * @returns The chunks.
 */
async function* readChunks(executor: Executor, path: string): AsyncGenerator<Uint8Array> {
  const file = await openFileOf(executor, path, { access: "read" });
  try {
    yield* file.chunks();
  } finally {
    file.close();
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
