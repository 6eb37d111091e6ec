/**
 * A job's output: a bounded in-memory window of the newest bytes plus the full stream in a spill
 * file, readable at any byte offset.
 *
 * @module
 */

/** Options for {@linkcode OutputBuffer}. */
export interface OutputBufferOptions {
  /** Bytes of the newest output kept in memory. @default {1048576} */
  readonly windowBytes?: number;
  /**
   * Path of the spill file holding the full output; created on the first write. Without one, only
   * the window survives and reads before it report the exact dropped count.
   * @default {undefined}
   */
  readonly spillPath?: string;
}

/** One read of an {@linkcode OutputBuffer}. */
export interface OutputSlice {
  /** The bytes read. */
  readonly bytes: Uint8Array;
  /** The bytes decoded as UTF-8 (a read never ends inside a character unless the output did). */
  readonly text: string;
  /** Offset of the first byte returned (after any dropped range). */
  readonly start: number;
  /** Offset after the last byte returned: the next cursor. */
  readonly next: number;
  /** Bytes produced so far. */
  readonly total: number;
  /** Bytes between the requested cursor and `start` that are gone (no spill file). */
  readonly dropped: number;
}

const SMALL_WRITE = 4096;
const TAIL_CAPACITY = 16384;
const ENCODER = new TextEncoder();

/**
 * Bounded output store. `write` is synchronous: every byte reaches the spill file before it
 * returns, so bytes on disk always equal bytes produced (unless the file failed, which is
 * counted). Memory holds at most about twice `windowBytes`.
 *
 * @example Usage
 * ```ts
 * import { OutputBuffer } from "./output_buffer.ts";
 * import { equal } from "node:assert/strict";
 * const buffer = new OutputBuffer({ windowBytes: 4 });
 * buffer.write("hello world");
 * const slice = await buffer.read(0);
 * equal(slice.dropped, 7);
 * equal(slice.text, "orld");
 * ```
 */
export class OutputBuffer {
  #windowBytes: number;
  #spillPath: string | undefined;
  #chunks: Uint8Array[] = [];
  #head = 0;
  #tail: Uint8Array | undefined;
  #tailLength = 0;
  #windowStart = 0;
  #total = 0;
  #file: Deno.FsFile | undefined;
  #fileBytes = 0;
  #spillError: unknown;
  #closed = false;

  /**
   * Creates an empty buffer.
   *
   * @param options Window size and spill path.
   * @throws {RangeError} When `windowBytes` is not a positive integer.
   */
  constructor(options: OutputBufferOptions = {}) {
    const { windowBytes = 1 << 20, spillPath } = options;
    if (!Number.isSafeInteger(windowBytes) || windowBytes < 1) {
      throw new RangeError(
        `Cannot create output buffer as 'windowBytes' must be a positive integer: current value is ${windowBytes}`,
      );
    }
    this.#windowBytes = windowBytes;
    this.#spillPath = spillPath;
  }

  /** Bytes produced so far. */
  get total(): number {
    return this.#total;
  }

  /** Bytes safely in the spill file. */
  get bytesOnDisk(): number {
    return this.#fileBytes;
  }

  /** The spill file path, once it holds the whole output (undefined without one or after a failure). */
  get path(): string | undefined {
    return this.#spillError === undefined && this.#fileBytes > 0 ? this.#spillPath : undefined;
  }

  /** The spill failure, if writing the file failed. */
  get spillError(): unknown {
    return this.#spillError;
  }

  /** True once {@linkcode OutputBuffer.close} ran. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Appends output. Strings are UTF-8 encoded; bytes are copied.
   *
   * @param chunk Text or bytes.
   * @throws {TypeError} After close.
   */
  write(chunk: string | Uint8Array): void {
    if (this.#closed) throw new TypeError("Cannot write job output: the output is closed");
    const bytes = typeof chunk === "string" ? ENCODER.encode(chunk) : chunk;
    if (bytes.length === 0) return;
    this.#spill(bytes);
    this.#total += bytes.length;
    this.#remember(bytes);
  }

  /**
   * Reads up to `maxBytes` from `cursor`: from memory inside the window, from the spill file before
   * it. A read never ends inside a UTF-8 character unless the output is closed and ends there.
   *
   * @param cursor Byte offset to read from (clamped to `[0, total]`).
   * @param maxBytes Most bytes to return. @default {65536}
   * @returns The slice and the next cursor.
   */
  async read(cursor: number, maxBytes = 65536): Promise<OutputSlice> {
    const total = this.#total;
    let start = Math.max(0, Math.min(Math.trunc(cursor), total));
    let dropped = 0;
    let bytes: Uint8Array;
    if (start < this.#windowStart && start >= this.#fileBytes) {
      dropped = this.#windowStart - start;
      start = this.#windowStart;
    }
    const end = Math.min(total, start + Math.max(1, maxBytes));
    if (start < this.#windowStart) {
      bytes = await this.#readFile(start, Math.min(end, this.#fileBytes));
    } else {
      bytes = this.#readWindow(start, end);
    }
    if (!(this.#closed && start + bytes.length === total)) bytes = trimPartial(bytes);
    return {
      bytes,
      text: new TextDecoder().decode(bytes),
      start,
      next: start + bytes.length,
      total,
      dropped,
    };
  }

  /** Closes the spill file; later writes throw. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#file?.close();
    } catch (error) {
      this.#spillError ??= error;
    }
    this.#file = undefined;
  }

  #spill(bytes: Uint8Array): void {
    if (this.#spillPath === undefined || this.#spillError !== undefined) return;
    try {
      this.#file ??= Deno.openSync(this.#spillPath, { write: true, create: true, truncate: true });
      let written = 0;
      while (written < bytes.length) written += this.#file.writeSync(bytes.subarray(written));
      this.#fileBytes += bytes.length;
    } catch (error) {
      this.#spillError = error;
      try {
        this.#file?.close();
      } catch { /* already failing; the first error is kept */ }
      this.#file = undefined;
    }
  }

  #remember(bytes: Uint8Array): void {
    if (bytes.length < SMALL_WRITE) {
      if (this.#tail === undefined || this.#tailLength + bytes.length > this.#tail.length) {
        this.#sealTail();
        this.#tail = new Uint8Array(TAIL_CAPACITY);
      }
      this.#tail.set(bytes, this.#tailLength);
      this.#tailLength += bytes.length;
    } else {
      this.#sealTail();
      const keep = Math.min(bytes.length, this.#windowBytes);
      this.#chunks.push(bytes.slice(bytes.length - keep));
      this.#windowStart += bytes.length - keep;
    }
    this.#trim();
  }

  #sealTail(): void {
    if (this.#tail === undefined || this.#tailLength === 0) return;
    this.#chunks.push(this.#tail.slice(0, this.#tailLength));
    this.#tail = undefined;
    this.#tailLength = 0;
  }

  #trim(): void {
    let excess = this.#total - this.#windowStart - this.#windowBytes;
    while (excess > 0 && this.#head < this.#chunks.length) {
      const first = this.#chunks[this.#head]!;
      if (first.length <= excess) {
        this.#chunks[this.#head++] = EMPTY;
        this.#windowStart += first.length;
        excess -= first.length;
      } else {
        this.#chunks[this.#head] = first.subarray(excess);
        this.#windowStart += excess;
        excess = 0;
      }
    }
    // The tail is trimmed only when it alone exceeds the window (tiny windows in tests).
    if (excess > 0 && this.#tail !== undefined) {
      this.#tail = this.#tail.slice(excess, this.#tailLength);
      this.#tailLength -= excess;
      this.#windowStart += excess;
      const grown = new Uint8Array(TAIL_CAPACITY);
      grown.set(this.#tail);
      this.#tail = grown;
    }
    if (this.#head > 64 && this.#head * 2 > this.#chunks.length) {
      this.#chunks = this.#chunks.slice(this.#head);
      this.#head = 0;
    }
  }

  #readWindow(start: number, end: number): Uint8Array {
    const out = new Uint8Array(end - start);
    let offset = this.#windowStart;
    let filled = 0;
    const visit = (chunk: Uint8Array): void => {
      const chunkEnd = offset + chunk.length;
      if (chunkEnd > start && offset < end) {
        const from = Math.max(start, offset) - offset;
        const to = Math.min(end, chunkEnd) - offset;
        out.set(chunk.subarray(from, to), filled);
        filled += to - from;
      }
      offset = chunkEnd;
    };
    for (let i = this.#head; i < this.#chunks.length && offset < end; i++) visit(this.#chunks[i]!);
    if (this.#tail !== undefined && offset < end) visit(this.#tail.subarray(0, this.#tailLength));
    return out.subarray(0, filled);
  }

  async #readFile(start: number, end: number): Promise<Uint8Array> {
    const out = new Uint8Array(end - start);
    using file = await Deno.open(this.#spillPath!, { read: true });
    await file.seek(start, Deno.SeekMode.Start);
    let filled = 0;
    while (filled < out.length) {
      const n = await file.read(out.subarray(filled));
      if (n === null) break;
      filled += n;
    }
    return out.subarray(0, filled);
  }
}

const EMPTY = new Uint8Array(0);

/** Drops an incomplete UTF-8 sequence at the end (keeps everything when that would empty it). */
function trimPartial(bytes: Uint8Array): Uint8Array {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const byte = bytes[n - back]!;
    if ((byte & 0xc0) !== 0x80) {
      const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
      return need > back && n - back > 0 ? bytes.subarray(0, n - back) : bytes;
    }
  }
  return bytes;
}
