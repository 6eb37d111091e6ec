/**
 * A bounded NDJSON framer in front of the ACP SDK. The SDK ends the whole connection on a line
 * over its limit (`MessageTooLargeError`), which made the agent exit silently. Here such a frame
 * is skipped (never buffered past the limit) and answered with a JSON-RPC error, and the
 * connection goes on. Error frames share the SDK's output queue, so frames never interleave.
 *
 * @module
 */
import { concatBytes } from "../core/bytes.ts";
import { LineSplitter } from "../core/lines.ts";

/** The largest frame the agent reads, in bytes without the newline (the SDK's default). */
export const MAX_FRAME_BYTES: number = 32 * 1024 * 1024;

/** JSON-RPC "invalid request". */
const INVALID_REQUEST = -32600;
/** How much of an oversized frame is kept to find its request id. */
const HEAD_BYTES = 4096;
const NEWLINE_BYTES = new Uint8Array([10]);

const encoder = new TextEncoder();

/** An output stream shared by the SDK and the framer's error frames. */
export interface SharedOutput {
  /** Give this to the SDK. */
  readonly writable: WritableStream<Uint8Array>;
  /** Queues one whole frame (with its newline) after everything queued before. */
  write(bytes: Uint8Array): Promise<void>;
}

/**
 * Wraps `output` so that the SDK's frames and extra frames go through one queue.
 *
 * @param output The agent's stdout.
 * @returns The shared output.
 */
export function shareOutput(output: WritableStream<Uint8Array>): SharedOutput {
  const writer = output.getWriter();
  let queue: Promise<void> = Promise.resolve();
  const write = (bytes: Uint8Array): Promise<void> => {
    const written = queue.then(() => writer.write(bytes));
    queue = written.catch(() => {});
    return written;
  };
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => write(chunk),
    close: () => queue.then(() => writer.close()),
    abort: (reason) => writer.abort(reason),
  });
  return { writable, write };
}

/**
 * The top-level `id` of a request whose start is `head` (the rest may be missing): found only
 * when the frame is an object with a `method` and a number or string `id` before any cut.
 *
 * @param head The first bytes of the frame, decoded.
 * @returns The id, or `null` when the frame is not recognizably a request.
 */
export function requestIdOf(head: string): number | string | null {
  let depth = 0;
  let key: string | undefined;
  let expectKey = false;
  let id: number | string | null = null;
  let method = false;
  let i = head.search(/\S/);
  if (i < 0 || head[i] !== "{") return null;
  const readString = (start: number): [string, number] | undefined => {
    let end = start + 1;
    while (end < head.length && head[end] !== '"') end += head[end] === "\\" ? 2 : 1;
    if (end >= head.length) return undefined;
    try {
      return [JSON.parse(head.slice(start, end + 1)) as string, end + 1];
    } catch {
      return undefined;
    }
  };
  for (; i < head.length; i++) {
    const c = head[i]!;
    if (c === '"') {
      const read = readString(i);
      if (read === undefined) break;
      const [text, next] = read;
      if (depth === 1 && expectKey) {
        key = text;
        expectKey = false;
      } else if (depth === 1 && key === "id") id = text;
      i = next - 1;
    } else if (c === "{" || c === "[") {
      depth++;
      if (depth === 1) expectKey = true;
    } else if (c === "}" || c === "]") {
      depth--;
    } else if (depth === 1 && c === ",") {
      expectKey = true;
      key = undefined;
    } else if (depth === 1 && c === ":") {
      if (key === "method") method = true;
      if (key === "id") {
        const value = /^\s*(-?\d+)(?=\s*[,}])/.exec(head.slice(i + 1));
        if (value) id = Number(value[1]);
      }
    }
  }
  return method ? id : null;
}

/**
 * The error frame that answers an oversized frame.
 *
 * @param bytes The frame's size without the newline.
 * @param limit The limit.
 * @param head The frame's first bytes (to find its request id).
 * @returns The JSON-RPC error, with its newline.
 */
export function oversizedError(bytes: number, limit: number, head: Uint8Array): Uint8Array {
  const id = requestIdOf(new TextDecoder().decode(head));
  const error = {
    jsonrpc: "2.0",
    id,
    error: {
      code: INVALID_REQUEST,
      message:
        `Cannot read the message: it is ${bytes} bytes, over the agent's ${limit}-byte limit for one message, so it was dropped; send less in one message (for example, attach large files as resource links)`,
      data: { bytes, limit },
    },
  };
  return encoder.encode(JSON.stringify(error) + "\n");
}

/**
 * Passes on whole NDJSON lines of at most `limit` bytes (each with its newline) and drops longer
 * ones without buffering them, calling `onOversized` once each has been read to its end.
 *
 * @param input The agent's stdin.
 * @param limit The largest line, in bytes without the newline.
 * @param onOversized Told the size and the first bytes of each dropped line.
 * @returns The bounded line stream.
 */
export function boundFrames(
  input: ReadableStream<Uint8Array>,
  limit: number,
  onOversized: (bytes: number, head: Uint8Array) => void | Promise<void>,
): ReadableStream<Uint8Array> {
  const reader = input.getReader();
  const splitter = new LineSplitter({
    maxLineBytes: limit,
    oversized: "skip",
    headBytes: HEAD_BYTES,
  });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          // An unterminated last line passes on as it is; a dropped one is reported.
          const last = splitter.endBytes();
          if (last instanceof Uint8Array) controller.enqueue(last);
          else if (last !== undefined) await onOversized(last.size, last.head);
          controller.close();
          return;
        }
        let enqueued = false;
        for (const line of splitter.pushBytes(value)) {
          if (line instanceof Uint8Array) {
            controller.enqueue(concatBytes([line, NEWLINE_BYTES]));
            enqueued = true;
          } else await onOversized(line.size, line.head);
        }
        if (enqueued) return;
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
