/**
 * Reads the first NDJSON line of a byte stream and gives back a stream that replays the rest,
 * so the binary can answer `initialize` before the ACP SDK has loaded.
 *
 * @module
 */
import { concatBytes } from "../core/bytes.ts";
import { MAX_FRAME_BYTES } from "./_frame_limit.ts";

/** The first line and a stream of everything after it. */
export interface FirstLine {
  /** The first line without its newline, or `undefined` at end of input. */
  readonly line: string | undefined;
  /** The bytes after the first line, then the rest of the input. */
  readonly rest: ReadableStream<Uint8Array>;
}

/**
 * Splits off the first line of `input`. A first line longer than `maxBytes` is not read into
 * memory: `line` is then `undefined` and `rest` replays everything from the start.
 *
 * @param input The byte stream (stdin).
 * @param maxBytes The longest first line kept. @default {33554432}
 * @returns The line and the remaining stream.
 */
export async function readFirstLine(
  input: ReadableStream<Uint8Array>,
  maxBytes = MAX_FRAME_BYTES,
): Promise<FirstLine> {
  const reader = input.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let line: string | undefined;
  let leftover: Uint8Array = new Uint8Array();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      if (chunks.length > 0) line = new TextDecoder().decode(concatBytes(chunks));
      break;
    }
    const index = value.indexOf(10);
    if (index < 0) {
      chunks.push(value);
      size += value.length;
      if (size > maxBytes) {
        // Too long to be an initialize request: the framer behind answers it.
        leftover = concatBytes(chunks);
        break;
      }
      continue;
    }
    chunks.push(value.subarray(0, index));
    line = new TextDecoder().decode(concatBytes(chunks));
    leftover = value.subarray(index + 1);
    break;
  }
  const rest = new ReadableStream<Uint8Array>({
    start(controller) {
      if (leftover.length > 0) controller.enqueue(leftover);
    },
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { line, rest };
}
