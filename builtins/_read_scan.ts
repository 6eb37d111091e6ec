/**
 * Private: the one streaming pass of the `read` tool over a file — binary sniffing, the kept
 * window of lines (bounded by the line and byte caps, never a whole long line), the line count and
 * the content hash.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import { ContentHash, HASH_MAX_BYTES } from "./_fs_stream.ts";

/** Most lines per call (also the default `limit`). */
export const READ_MAX_LINES = 2000;
/** Most characters shown of one line. */
export const READ_MAX_LINE_CHARS = 2000;
/** Most bytes of line text per call. */
export const READ_MAX_BYTES = 50 * 1024;
/** Bytes at the start of a file that binary detection looks at. */
export const READ_SNIFF_BYTES = 8192;

const NEWLINE = 10;
const ENCODER = new TextEncoder();

/** One line of a window: its text (possibly already cut) and its full length in characters. */
export interface WindowLine {
  readonly text: string;
  readonly chars: number;
}

/** What {@linkcode scanFile} found. */
export interface Scan {
  /** The window's lines (at most `limit`, and little past the 50 KiB cap). */
  readonly window: WindowLine[];
  /** Lines in the file. */
  readonly total: number;
  /** Bytes read. */
  readonly size: number;
  /** The content hash, for files up to HASH_MAX_BYTES. */
  readonly hash: string | undefined;
}

/** The exact size of a formatted row (as `formatWindowRows` counts it). */
function rowBytes(n: number, text: string, chars: number): number {
  const shown = chars > READ_MAX_LINE_CHARS
    ? `${text.slice(0, READ_MAX_LINE_CHARS)}… [line truncated: ${chars} characters]`
    : text;
  return ENCODER.encode(`${n}: ${shown}`).length + 1;
}

/** Counts lines over a byte stream and keeps the text of lines `offset … offset+limit-1`. */
class LineWindow {
  readonly window: WindowLine[] = [];
  /** The line the next byte belongs to. */
  line = 1;
  readonly #offset: number;
  readonly #end: number;
  readonly #decoder = new TextDecoder("utf-8");
  #current = ""; // kept text of the current window line
  #chars = 0; // its full length
  #windowBytes = 0;
  #full = false; // the byte cap is reached: keep no more text

  constructor(offset: number, limit: number) {
    this.#offset = offset;
    this.#end = offset + limit; // first line past the window
  }

  /** Whether the current line's text is kept. */
  get #keeping(): boolean {
    return this.line >= this.#offset && this.line < this.#end && !this.#full;
  }

  feed(chunk: Uint8Array): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const stop = newline < 0 ? chunk.length : newline;
      if (this.#keeping) {
        this.#keep(this.#decoder.decode(chunk.subarray(start, stop), { stream: true }));
      }
      if (newline < 0) break;
      if (this.#keeping) this.#closeLine();
      this.#current = "";
      this.#chars = 0;
      this.line++;
      start = newline + 1;
    }
  }

  /** Keeps a last line that has no terminator. */
  end(): void {
    if (!this.#keeping) return;
    const tail = this.#decoder.decode();
    this.window.push({
      text: this.#current + tail.slice(0, READ_MAX_LINE_CHARS),
      chars: this.#chars + tail.length,
    });
  }

  #keep(piece: string): void {
    this.#chars += piece.length;
    if (this.#current.length <= READ_MAX_LINE_CHARS) {
      this.#current += piece.slice(0, READ_MAX_LINE_CHARS + 1 - this.#current.length);
    }
  }

  #closeLine(): void {
    const tail = this.#decoder.decode();
    this.#chars += tail.length;
    this.#current += tail.slice(0, Math.max(0, READ_MAX_LINE_CHARS + 1 - this.#current.length));
    this.window.push({ text: this.#current, chars: this.#chars });
    // Past the 50 KiB cap the formatter cuts anyway: keep one line beyond it, no more.
    this.#windowBytes += rowBytes(this.line, this.#current, this.#chars);
    if (this.#windowBytes > READ_MAX_BYTES) this.#full = true;
  }
}

/** Refuses a file whose first {@linkcode READ_SNIFF_BYTES} hold a NUL byte or invalid UTF-8. */
function sniff(sniffer: TextDecoder, chunk: Uint8Array, size: number, refuse: () => Error): void {
  if (size >= READ_SNIFF_BYTES) return;
  const head = chunk.subarray(0, READ_SNIFF_BYTES - size);
  if (head.includes(0)) throw refuse();
  try {
    sniffer.decode(head, { stream: true });
  } catch {
    throw refuse();
  }
}

/**
 * Streams the file once: sniffs the first bytes for binary content, keeps the requested window
 * (bounded by the line and byte caps), counts every line and hashes the content.
 *
 * @param path The absolute path.
 * @param statSize The size `stat` reported (for the binary-file message).
 * @param offset The first line of the window, 1-based.
 * @param limit How many lines the window holds at most.
 * @param signal Aborts the scan between chunks.
 * @param chunks The file's chunks (from the opened file).
 * @returns The window, the line count, the size and the hash.
 * @throws {HarnessError} `BINARY_FILE` for a binary file.
 */
export async function scanFile(
  path: string,
  statSize: number,
  offset: number,
  limit: number,
  signal: AbortSignal,
  chunks: AsyncGenerator<Uint8Array>,
): Promise<Scan> {
  const refuse = () =>
    new HarnessError(
      "BINARY_FILE",
      `Cannot read "${path}": it is a binary file (${statSize} bytes); read returns text only`,
    );
  const sniffer = new TextDecoder("utf-8", { fatal: true });
  const hash = new ContentHash();
  const lines = new LineWindow(offset, limit);
  let size = 0;
  let lastByte = -1;
  try {
    for (;;) {
      signal.throwIfAborted();
      const { done, value: chunk } = await chunks.next();
      if (done) break;
      if (chunk.length === 0) continue;
      sniff(sniffer, chunk, size, refuse);
      size += chunk.length;
      if (size <= HASH_MAX_BYTES) hash.update(chunk);
      lastByte = chunk[chunk.length - 1]!;
      lines.feed(chunk);
    }
  } finally {
    await chunks.return(undefined);
  }
  // A last line without a terminator.
  const total = size === 0 ? 0 : lastByte === NEWLINE ? lines.line - 1 : lines.line;
  if (lastByte !== NEWLINE && size > 0) lines.end();
  return {
    window: lines.window,
    total,
    size,
    hash: size <= HASH_MAX_BYTES ? hash.digest() : undefined,
  };
}
