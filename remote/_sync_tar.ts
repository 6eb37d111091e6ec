/**
 * A minimal tar writer (ustar, with a pax `path` record for names over 100 bytes or not ASCII)
 * and gzip, for batched uploads (private to remote/). Only regular files; the extracting `tar`
 * makes the folders.
 *
 * @module
 */
import { concatBytes } from "../core/bytes.ts";

/** One file of an archive. */
export interface TarFile {
  /** The relative path. */
  readonly name: string;
  /** The permission bits. */
  readonly mode: number;
  /** The mtime in ms. */
  readonly mtimeMs: number;
  /** The content. */
  readonly bytes: Uint8Array;
}

const encoder = new TextEncoder();

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, "0")}\0`;
}

function header(name: Uint8Array, mode: number, size: number, type: string, mtime = 0): Uint8Array {
  const block = new Uint8Array(512);
  block.set(name.subarray(0, 100), 0);
  block.set(encoder.encode(octal(mode & 0o7777, 8)), 100);
  block.set(encoder.encode(octal(0, 8)), 108);
  block.set(encoder.encode(octal(0, 8)), 116);
  block.set(encoder.encode(octal(size, 12)), 124);
  block.set(encoder.encode(octal(Math.max(0, Math.floor(mtime)), 12)), 136);
  block.set(encoder.encode("        "), 148);
  block.set(encoder.encode(type), 156);
  block.set(encoder.encode("ustar\u000000"), 257);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.set(encoder.encode(`${sum.toString(8).padStart(6, "0")}\0 `), 148);
  return block;
}

function paxRecord(key: string, value: string): Uint8Array {
  const body = ` ${key}=${value}\n`;
  const bodyLength = encoder.encode(body).length;
  let length = bodyLength + 1;
  while (`${length}`.length + bodyLength !== length) length = `${length}`.length + bodyLength;
  return encoder.encode(`${length}${body}`);
}

function padded(bytes: Uint8Array): number {
  return Math.ceil(bytes.length / 512) * 512;
}

/**
 * The tar archive of `files` (ends with the two zero blocks).
 *
 * @param files The files.
 * @returns The archive.
 */
export function tarArchive(files: readonly TarFile[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const file of files) {
    const name = encoder.encode(file.name);
    if (name.length > 100 || /[^\x20-\x7e]/.test(file.name)) {
      const pax = paxRecord("path", file.name);
      parts.push(header(encoder.encode("././@PaxHeader"), 0o644, pax.length, "x"));
      parts.push(pax, new Uint8Array(padded(pax) - pax.length));
    }
    parts.push(header(name, file.mode, file.bytes.length, "0", file.mtimeMs / 1000));
    parts.push(file.bytes, new Uint8Array(padded(file.bytes) - file.bytes.length));
  }
  parts.push(new Uint8Array(1024));
  return concatBytes(parts);
}

/**
 * The size of the archive of `file` alone, without the end blocks.
 *
 * @param file The file.
 * @returns The bytes.
 */
export function tarSize(file: { readonly name: string; readonly size: number }): number {
  const long = encoder.encode(file.name).length > 100 || /[^\x20-\x7e]/.test(file.name);
  const pax = long ? 512 + padded(paxRecord("path", file.name)) : 0;
  return pax + 512 + Math.ceil(file.size / 512) * 512;
}

/**
 * Gzips `bytes`.
 *
 * @param bytes The bytes.
 * @returns The gzip stream's bytes.
 */
export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
