/**
 * Line splitting of byte streams (NDJSON bridges, subprocess output): one splitter for every
 * layer. Lines end at `\n` only; a `\r` before it stays part of the line.
 *
 * @module
 */
import { concatBytes } from "./bytes.ts";

const NEWLINE = 10;

/** Options of {@linkcode LineSplitter} and {@linkcode readLines}. */
export interface LineSplitterOptions {
  /**
   * The longest line, in bytes without its newline. As soon as a line grows past it the
   * splitter throws a {@linkcode LineTooLongError} (before the rest of the line arrives).
   * @default {Infinity}
   */
  readonly maxLineBytes?: number;
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

/**
 * Cuts a byte stream into lines, fed chunk by chunk. Splits bytes, not text, so a multi-byte
 * character cut across chunks decodes whole, and each line is decoded once.
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
 */
export class LineSplitter {
  readonly #max: number;
  readonly #decoder = new TextDecoder();
  #parts: Uint8Array[] = [];
  #size = 0;

  /**
   * Creates a splitter.
   *
   * @param options The line length cap.
   */
  constructor(options: LineSplitterOptions = {}) {
    this.#max = options.maxLineBytes ?? Infinity;
  }

  /**
   * Feeds one chunk.
   *
   * @param chunk The next bytes.
   * @returns The lines this chunk completed, without their newlines.
   * @throws {LineTooLongError} When a line grows past `maxLineBytes`.
   */
  push(chunk: Uint8Array): string[] {
    const lines: string[] = [];
    let start = 0;
    for (
      let newline = chunk.indexOf(NEWLINE);
      newline >= 0;
      newline = chunk.indexOf(NEWLINE, start)
    ) {
      const piece = chunk.subarray(start, newline);
      this.#check(piece.length);
      lines.push(this.#take(piece));
      start = newline + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#check(rest.length);
      this.#parts.push(rest.slice());
      this.#size += rest.length;
    }
    return lines;
  }

  /**
   * Ends the input.
   *
   * @returns The bytes after the last newline as a line, or `undefined` when there are none.
   */
  end(): string | undefined {
    if (this.#size === 0) return undefined;
    return this.#take(new Uint8Array());
  }

  #check(more: number): void {
    if (this.#size + more > this.#max) {
      this.#parts = [];
      this.#size = 0;
      throw new LineTooLongError(this.#max);
    }
  }

  #take(piece: Uint8Array): string {
    if (this.#parts.length === 0) return this.#decoder.decode(piece);
    this.#parts.push(piece);
    const line = this.#decoder.decode(concatBytes(this.#parts, this.#size + piece.length));
    this.#parts = [];
    this.#size = 0;
    return line;
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
