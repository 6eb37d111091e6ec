/**
 * Line splitting of byte streams (NDJSON bridges, subprocess output): one splitter for every
 * layer, with an optional cap that either fails the stream or drops the long lines unbuffered.
 * Lines end at `\n` only; a `\r` before it stays part of the line.
 *
 * @module
 */
import { concatBytes } from "./bytes.ts";

const NEWLINE = 10;

/** Options of {@linkcode LineSplitter} and {@linkcode readLines}. */
export interface LineSplitterOptions {
  /**
   * The longest line, in bytes without its newline.
   * @default {Infinity}
   */
  readonly maxLineBytes?: number;
  /**
   * What a line longer than `maxLineBytes` does: `"throw"` a {@linkcode LineTooLongError} as
   * soon as it grows past the cap (before the rest of it arrives), or `"skip"` it: its bytes are
   * dropped as they arrive (never buffered) and {@linkcode LineSplitter.pushBytes} reports it as
   * an {@linkcode OversizedLine} once its newline (or the end) comes.
   * @default {"throw"}
   */
  readonly oversized?: "throw" | "skip";
  /** With `oversized: "skip"`: how many first bytes of a dropped line to keep. @default {0} */
  readonly headBytes?: number;
  /** With `oversized: "skip"`: how many last bytes of a dropped line to keep. @default {0} */
  readonly tailBytes?: number;
}

/** Options of {@linkcode readLines}. */
export interface ReadLinesOptions extends LineSplitterOptions {
  /**
   * What to do with bytes after the last newline at the end of the stream: `"emit"` them as a
   * last line, or `"drop"` them (a peer that died mid-line sent no whole line).
   * @default {"emit"}
   */
  readonly unterminated?: "emit" | "drop";
}

/** A line over the cap that a `"skip"` splitter dropped: its size and its ends. */
export interface OversizedLine {
  /** Its length in bytes, without the newline. */
  readonly size: number;
  /** Its first `headBytes` bytes. */
  readonly head: Uint8Array;
  /** Its last `tailBytes` bytes. */
  readonly tail: Uint8Array;
}

/**
 * A line longer than {@linkcode LineSplitterOptions.maxLineBytes}.
 *
 * @example Usage
 * ```ts
 * import { LineSplitter, LineTooLongError } from "./lines.ts";
 * import { throws } from "node:assert/strict";
 * const splitter = new LineSplitter({ maxLineBytes: 2 });
 * throws(() => splitter.push(new TextEncoder().encode("abc")), LineTooLongError);
 * ```
 */
export class LineTooLongError extends RangeError {
  /** The limit that was exceeded, in bytes. */
  readonly limit: number;

  /**
   * Creates the error.
   *
   * @param limit The limit that was exceeded, in bytes.
   */
  constructor(limit: number) {
    super(`Cannot read the line: it is longer than ${limit} bytes`);
    this.name = "LineTooLongError";
    this.limit = limit;
  }
}

/** The first `n` bytes of the chunks, joined. */
function firstBytes(chunks: readonly Uint8Array[], n: number): Uint8Array {
  const out: Uint8Array[] = [];
  let size = 0;
  for (const chunk of chunks) {
    if (size >= n) break;
    const take = chunk.subarray(0, n - size);
    out.push(take);
    size += take.length;
  }
  return concatBytes(out, size);
}

/** The last `n` bytes of the chunks, joined. */
function lastBytes(chunks: readonly Uint8Array[], n: number): Uint8Array {
  const out: Uint8Array[] = [];
  let size = 0;
  for (let i = chunks.length - 1; i >= 0 && size < n; i--) {
    const chunk = chunks[i]!;
    const take = chunk.subarray(Math.max(0, chunk.length - (n - size)));
    out.unshift(take);
    size += take.length;
  }
  return concatBytes(out, size);
}

/**
 * Cuts a byte stream into lines, fed chunk by chunk. Splits bytes, not text, so a multi-byte
 * character cut across chunks decodes whole, and each line is decoded once. Lines end at `\n`
 * only; a `\r` before it stays part of the line.
 *
 * @example Usage
 * ```ts
 * import { LineSplitter } from "./lines.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 * const bytes = new TextEncoder().encode("one\ntw");
 * const splitter = new LineSplitter();
 * deepEqual(splitter.push(bytes), ["one"]);
 * deepEqual(splitter.push(new TextEncoder().encode("o\n")), ["two"]);
 * equal(splitter.end(), undefined);
 * ```
 *
 * @example Skipping oversized lines
 * ```ts
 * import { LineSplitter } from "./lines.ts";
 * import { deepEqual } from "node:assert/strict";
 * const splitter = new LineSplitter({ maxLineBytes: 3, oversized: "skip", headBytes: 2 });
 * const [ok, big] = splitter.pushBytes(new TextEncoder().encode("abc\nlonger\n"));
 * deepEqual(ok, new TextEncoder().encode("abc"));
 * deepEqual(big, { size: 6, head: new TextEncoder().encode("lo"), tail: new Uint8Array() });
 * ```
 */
export class LineSplitter {
  readonly #max: number;
  readonly #skip: boolean;
  readonly #headBytes: number;
  readonly #tailBytes: number;
  readonly #decoder = new TextDecoder();
  #parts: Uint8Array[] = [];
  #size = 0;
  #dropped: { head: Uint8Array; tail: Uint8Array } | undefined;

  /**
   * Creates a splitter.
   *
   * @param options The line length cap and what a longer line does.
   */
  constructor(options: LineSplitterOptions = {}) {
    this.#max = options.maxLineBytes ?? Infinity;
    this.#skip = options.oversized === "skip";
    this.#headBytes = options.headBytes ?? 0;
    this.#tailBytes = options.tailBytes ?? 0;
  }

  /**
   * Feeds one chunk.
   *
   * @param chunk The next bytes.
   * @returns The text of the lines this chunk completed, without their newlines (dropped
   * oversized lines are left out: {@linkcode LineSplitter.pushBytes} reports them).
   * @throws {LineTooLongError} When a line grows past `maxLineBytes` (with `"throw"`).
   */
  push(chunk: Uint8Array): string[] {
    const lines: string[] = [];
    for (const line of this.pushBytes(chunk)) {
      if (line instanceof Uint8Array) lines.push(this.#decoder.decode(line));
    }
    return lines;
  }

  /**
   * Feeds one chunk and returns the completed lines as bytes. A returned line may share memory
   * with `chunk`.
   *
   * @param chunk The next bytes.
   * @returns The lines this chunk completed, without their newlines, and the dropped ones.
   * @throws {LineTooLongError} When a line grows past `maxLineBytes` (with `"throw"`).
   */
  pushBytes(chunk: Uint8Array): (Uint8Array | OversizedLine)[] {
    const lines: (Uint8Array | OversizedLine)[] = [];
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      const piece = chunk.subarray(start, newline < 0 ? chunk.length : newline);
      if (newline < 0) {
        this.#add(piece);
        return lines;
      }
      if (this.#size === 0 && this.#dropped === undefined && piece.length <= this.#max) {
        lines.push(piece); // a whole line inside the chunk: no copy
      } else {
        this.#add(piece);
        lines.push(this.#take());
      }
      start = newline + 1;
    }
  }

  /**
   * Ends the input.
   *
   * @returns The bytes after the last newline as a line, or `undefined` when there are none
   * (or they were dropped).
   */
  end(): string | undefined {
    const last = this.endBytes();
    return last instanceof Uint8Array ? this.#decoder.decode(last) : undefined;
  }

  /**
   * Ends the input.
   *
   * @returns The bytes after the last newline (or their {@linkcode OversizedLine}), or
   * `undefined` when there are none.
   */
  endBytes(): Uint8Array | OversizedLine | undefined {
    return this.#size === 0 && this.#dropped === undefined ? undefined : this.#take();
  }

  /** Adds part of the current line, switching to dropping when it grows past the cap. */
  #add(piece: Uint8Array): void {
    if (this.#dropped !== undefined) {
      this.#dropped.tail = lastBytes([this.#dropped.tail, piece], this.#tailBytes);
    } else if (this.#size + piece.length > this.#max) {
      const parts = [...this.#parts, piece];
      this.#parts = [];
      if (!this.#skip) {
        this.#size = 0;
        throw new LineTooLongError(this.#max);
      }
      this.#dropped = {
        head: firstBytes(parts, this.#headBytes),
        tail: lastBytes(parts, this.#tailBytes),
      };
    } else if (piece.length > 0) {
      this.#parts.push(piece.slice());
    }
    this.#size += piece.length;
  }

  /** The current line (or its drop record), resetting for the next. */
  #take(): Uint8Array | OversizedLine {
    const size = this.#size;
    const dropped = this.#dropped;
    const parts = this.#parts;
    this.#parts = [];
    this.#size = 0;
    this.#dropped = undefined;
    if (dropped !== undefined) return { size, head: dropped.head, tail: dropped.tail };
    return parts.length === 1 ? parts[0]! : concatBytes(parts, size);
  }
}

/**
 * Reads a byte stream as lines.
 *
 * @param source The bytes (a `ReadableStream` or any async iterable of chunks).
 * @param options The line length cap and what to do with an unterminated last line.
 * @returns The lines, without their newlines.
 * @throws {LineTooLongError} When a line grows past `maxLineBytes` (the source is cancelled).
 *
 * @example Usage
 * ```ts
 * import { readLines } from "./lines.ts";
 * import { deepEqual } from "node:assert/strict";
 * const stream = ReadableStream.from([new TextEncoder().encode("a\nb\nc")]);
 * deepEqual(await Array.fromAsync(readLines(stream)), ["a", "b", "c"]);
 * ```
 */
export async function* readLines(
  source: AsyncIterable<Uint8Array>,
  options: ReadLinesOptions = {},
): AsyncGenerator<string, void, undefined> {
  const splitter = new LineSplitter(options);
  for await (const chunk of source) yield* splitter.push(chunk);
  const last = splitter.end();
  if (last !== undefined && options.unterminated !== "drop") yield last;
}
