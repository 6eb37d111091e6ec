/**
 * Bounded output capture: keeps everything up to `limitBytes`; beyond it keeps the first and last
 * `limitBytes / 2` bytes in memory and streams the complete output to a spill file.
 *
 * @module
 */

import { errorMessage } from "../core/error_message.ts";
import { concatBytes } from "../core/bytes.ts";

/** What a finished capture kept. */
export interface CaptureSummary {
  /** Total bytes written. */
  readonly totalBytes: number;
  /** The kept text (all of it, or head + marker line + tail). */
  readonly text: string;
  /** True when bytes were dropped from memory. */
  readonly truncated: boolean;
  /** Bytes of the head shown (truncated only). */
  readonly headBytes: number;
  /** Bytes of the tail shown (truncated only). */
  readonly tailBytes: number;
  /** The spill file holding every byte, when it was written and closed successfully. */
  readonly spillPath?: string;
  /** Why the spill file is unavailable. */
  readonly spillError?: string;
}

/** Options for {@linkcode OutputCapture}. */
export interface OutputCaptureOptions {
  /** In-memory bound. @default {65536} */
  readonly limitBytes?: number;
  /** Directory of spill files. @default {the system temp dir} */
  readonly spillDir?: string;
  /** Spill file name prefix. @default {"dsh-bash-"} */
  readonly spillPrefix?: string;
}

/** Spill writes are batched up to this size (the only extra memory past the bound). */
const SPILL_BATCH_BYTES = 1 << 20;

/** A UTF-8 continuation byte (`10xxxxxx`). */
function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/** Collects a process's output within a memory bound, spilling everything to disk past it. */
export class OutputCapture {
  #limit: number;
  #spillDir: string | undefined;
  #spillPrefix: string;
  #chunks: Uint8Array[] = [];
  #total = 0;
  #head: Uint8Array | undefined;
  #ring: Uint8Array = new Uint8Array(0);
  #ringPos = 0;
  #ringFull = false;
  #file: Deno.FsFile | undefined;
  #spillPath: string | undefined;
  #spillError: string | undefined;
  #batch: Uint8Array | undefined;
  #batchBytes = 0;

  /**
   * Creates a capture.
   *
   * @param options Bound and spill location.
   * @throws {RangeError} When `limitBytes` is not a positive integer of at least 16.
   */
  constructor(options: OutputCaptureOptions = {}) {
    const { limitBytes = 65536, spillDir, spillPrefix = "dsh-bash-" } = options;
    if (!Number.isInteger(limitBytes) || limitBytes < 16) {
      throw new RangeError(
        `Cannot create an output capture as 'limitBytes' must be an integer of at least 16: current value is ${limitBytes}`,
      );
    }
    this.#limit = limitBytes;
    this.#spillDir = spillDir;
    this.#spillPrefix = spillPrefix;
  }

  /** Total bytes written so far. */
  get totalBytes(): number {
    return this.#total;
  }

  /**
   * Adds a chunk; resolves once it is in memory or on disk (backpressure for the reader).
   *
   * @param chunk Output bytes.
   */
  async write(chunk: Uint8Array): Promise<void> {
    this.#total += chunk.length;
    if (this.#head === undefined) {
      this.#chunks.push(chunk.slice());
      if (this.#total <= this.#limit) return;
      await this.#startSpill();
      return;
    }
    this.#pushTail(chunk);
    // Batch small pipe reads into large file writes through one reused buffer.
    const batch = this.#batch ??= new Uint8Array(SPILL_BATCH_BYTES);
    if (this.#batchBytes + chunk.length > batch.length) await this.#flush();
    if (chunk.length >= batch.length) {
      await this.#spill(chunk);
      return;
    }
    batch.set(chunk, this.#batchBytes);
    this.#batchBytes += chunk.length;
  }

  async #flush(): Promise<void> {
    if (this.#batch === undefined || this.#batchBytes === 0) return;
    const size = this.#batchBytes;
    this.#batchBytes = 0;
    await this.#spill(this.#batch.subarray(0, size));
  }

  async #startSpill(): Promise<void> {
    const all = concatBytes(this.#chunks);
    this.#chunks = [];
    const half = Math.floor(this.#limit / 2);
    this.#head = all.slice(0, half);
    this.#ring = new Uint8Array(half);
    this.#pushTail(all.subarray(Math.max(half, all.length - half)));
    try {
      const options: Deno.MakeTempOptions = { prefix: this.#spillPrefix, suffix: ".log" };
      if (this.#spillDir !== undefined) options.dir = this.#spillDir;
      this.#spillPath = await Deno.makeTempFile(options);
      this.#file = await Deno.open(this.#spillPath, { write: true, truncate: true });
    } catch (error) {
      this.#fail(error);
    }
    await this.#spill(all);
  }

  async #spill(chunk: Uint8Array): Promise<void> {
    if (this.#file === undefined) return;
    try {
      let offset = 0;
      while (offset < chunk.length) offset += await this.#file.write(chunk.subarray(offset));
    } catch (error) {
      this.#fail(error);
    }
  }

  #fail(error: unknown): void {
    this.#spillError ??= errorMessage(error);
    try {
      this.#file?.close();
    } catch { /* already closed */ }
    this.#file = undefined;
  }

  #pushTail(chunk: Uint8Array): void {
    const ring = this.#ring;
    const keep = ring.length;
    if (chunk.length >= keep) {
      ring.set(chunk.subarray(chunk.length - keep));
      this.#ringPos = 0;
      this.#ringFull = true;
      return;
    }
    const first = Math.min(chunk.length, keep - this.#ringPos);
    ring.set(chunk.subarray(0, first), this.#ringPos);
    ring.set(chunk.subarray(first), 0);
    const end = this.#ringPos + chunk.length;
    if (end >= keep) this.#ringFull = true;
    this.#ringPos = end % keep;
  }

  #tail(): Uint8Array {
    const ring = this.#ring;
    if (!this.#ringFull) return ring.subarray(0, this.#ringPos);
    return concatBytes([ring.subarray(this.#ringPos), ring.subarray(0, this.#ringPos)]);
  }

  /**
   * Flushes and closes the spill file and summarizes what was kept.
   *
   * @returns The summary.
   */
  async finish(): Promise<CaptureSummary> {
    const decoder = new TextDecoder();
    if (this.#head === undefined) {
      return {
        totalBytes: this.#total,
        text: decoder.decode(concatBytes(this.#chunks)),
        truncated: false,
        headBytes: 0,
        tailBytes: 0,
      };
    }
    await this.#flush();
    if (this.#file !== undefined) {
      try {
        this.#file.close();
      } catch (error) {
        this.#fail(error);
      }
      this.#file = undefined;
    }
    // Cut on UTF-8 boundaries so the kept text decodes cleanly.
    const headEnd = headCut(this.#head);
    const kept = this.#tail();
    let tailStart = 0;
    while (tailStart < kept.length && isContinuation(kept[tailStart])) tailStart++;
    const head = this.#head.subarray(0, headEnd);
    const tail = kept.subarray(tailStart);
    const where = this.#spillError === undefined && this.#spillPath !== undefined
      ? this.#spillPath
      : `(unavailable: ${this.#spillError ?? "no spill file"})`;
    const marker = `[output truncated: showing first ${head.length} and last ${tail.length} bytes` +
      ` of ${this.#total}; full output: ${where}]`;
    const headText = decoder.decode(head);
    const sep = headText.endsWith("\n") ? "" : "\n";
    const summary: CaptureSummary = {
      totalBytes: this.#total,
      text: `${headText}${sep}${marker}\n${decoder.decode(tail)}`,
      truncated: true,
      headBytes: head.length,
      tailBytes: tail.length,
    };
    if (this.#spillError === undefined && this.#spillPath !== undefined) {
      return { ...summary, spillPath: this.#spillPath };
    }
    return { ...summary, spillError: this.#spillError ?? "no spill file" };
  }
}

/** The end of the last complete UTF-8 character in `bytes`. */
function headCut(bytes: Uint8Array): number {
  let i = bytes.length - 1;
  while (i >= 0 && i > bytes.length - 4 && isContinuation(bytes[i])) i--;
  const lead = bytes[i];
  if (lead === undefined) return bytes.length;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i + need > bytes.length ? i : bytes.length;
}
