/**
 * Private: reading a remote child's streams. The SDK's streams end only when the sandbox says
 * so (a dropped WebSocket leaves them open), so every reader here can be cancelled, and the
 * output drain gives up once the pipe stays idle after the command ended.
 *
 * @module
 */
import type { RunOptions } from "../tools/executor.ts";

/**
 * After the command ended, reading stops once the output stayed idle this long: only an escaped
 * descendant can still hold it open (as local).
 */
export const DRAIN_IDLE_MS = 300;

/**
 * A reason for cancelling an SDK stream: the SDK encodes it for the wire and throws on anything
 * but an Error (so a bare `cancel()` would never reach the sandbox).
 */
export function stopReading(): Error {
  const error = new Error("dsh: reading stopped");
  // The SDK logs the stack of every error it encodes; this one has nothing to tell.
  error.stack = "";
  return error;
}

/**
 * `stream` with a `cancel` that always passes an Error to the SDK (callers may cancel bare).
 *
 * @param stream An SDK stream.
 * @param lost Rejects when the connection under the stream is lost (the stream then errors).
 * @returns The safe stream.
 */
export function safeCancel(
  stream: ReadableStream<Uint8Array>,
  lost: Promise<unknown>,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  // A dropped connection never ends the SDK's streams: the child's failed status errors them.
  let failure: { error: unknown } | undefined;
  const failed = lost.then(() => new Promise<never>(() => {}), (error) => {
    failure = { error };
    reader.cancel(stopReading()).catch(() => {});
    throw error;
  });
  failed.catch(() => {});
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await Promise.race([reader.read(), failed]);
      if (failure !== undefined) throw failure.error;
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason instanceof Error ? reason : stopReading());
    },
  });
}

/** The stdout pump. */
export interface OutputPump {
  /** Settles when the stream ended, failed or was cancelled. */
  readonly done: Promise<void>;
  /** How long the stream has been idle (0 while a chunk is being delivered). */
  idleMs(): number;
  /** The `onOutput` failure, if any. */
  error(): unknown;
  /** Stops reading. */
  cancel(): Promise<void>;
}

/**
 * Delivers each chunk to `onOutput` and waits for it (backpressure) before reading on.
 *
 * @param stream The child's stdout.
 * @param onOutput The receiver.
 * @param onError Called once when `onOutput` throws.
 * @returns The pump.
 */
export function pumpOutput(
  stream: ReadableStream<Uint8Array>,
  onOutput: RunOptions["onOutput"],
  onError: () => void,
): OutputPump {
  let failure: unknown;
  let lastRead = Date.now();
  let delivering = false;
  const reader = stream.getReader();
  const done = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      lastRead = Date.now();
      if (done) return;
      delivering = true;
      try {
        if (onOutput) await onOutput(value);
      } catch (error) {
        failure = error;
        onError();
        await reader.cancel(stopReading()).catch(() => {});
        return;
      } finally {
        delivering = false;
        lastRead = Date.now();
      }
    }
  })().catch(() => {});
  return {
    done,
    idleMs: () => delivering ? 0 : Date.now() - lastRead,
    error: () => failure,
    cancel: async () => {
      await reader.cancel(stopReading()).catch(() => {});
      await done;
    },
  };
}

/**
 * Waits for the pump to end; false when it stayed idle for {@linkcode DRAIN_IDLE_MS} (counted
 * from the call at the earliest).
 *
 * @param pump The pump's `done`.
 * @param idleMs The pump's idle time.
 * @returns True when the stream ended.
 */
export async function drained(pump: Promise<void>, idleMs: () => number): Promise<boolean> {
  let done = false;
  const ended = pump.then(() => done = true);
  const start = Date.now();
  for (;;) {
    const idle = Math.min(idleMs(), Date.now() - start);
    if (idle >= DRAIN_IDLE_MS) return done;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const wait = new Promise((resolve) => timer = setTimeout(resolve, DRAIN_IDLE_MS - idle));
    await Promise.race([ended, wait]);
    clearTimeout(timer);
    if (done) return true;
  }
}

/** The wrapper's stderr: its first line (`dsh:pid N` or `dsh:nocwd`), then diagnostics. */
export interface Protocol {
  /** The group id, `"nocwd"`, or `undefined` when the stream ended or was cancelled first. */
  readonly first: Promise<number | "nocwd" | undefined>;
  /**
   * The diagnostics after the first line: all of them when the stream ends, else what came
   * before the cut (at once when `now`, else after {@linkcode DRAIN_IDLE_MS}).
   */
  rest(now: boolean): Promise<Uint8Array>;
  /** Stops reading. */
  cancel(): Promise<void>;
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function parseFirst(line: string): number | "nocwd" | undefined {
  if (line === "dsh:nocwd") return "nocwd";
  const match = /^dsh:pid (\d+)$/.exec(line);
  return match === null ? undefined : Number(match[1]);
}

/**
 * Reads the wrapper's stderr.
 *
 * @param stream The child's stderr.
 * @returns The protocol reader.
 */
export function readProtocol(stream: ReadableStream<Uint8Array>): Protocol {
  const reader = stream.getReader();
  const first = Promise.withResolvers<number | "nocwd" | undefined>();
  const chunks: Uint8Array[] = [];
  let head: Uint8Array | undefined = new Uint8Array();
  const ended = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      if (head === undefined) {
        chunks.push(value);
        continue;
      }
      head = concat([head, value]);
      const newline = head.indexOf(10);
      if (newline < 0) continue;
      const parsed = parseFirst(new TextDecoder().decode(head.subarray(0, newline)));
      first.resolve(parsed);
      // Not the wrapper's line (a diagnostic came first): it is kept as a diagnostic.
      chunks.push(parsed === undefined ? head : head.subarray(newline + 1));
      head = undefined;
    }
  })().catch(() => {}).finally(() => {
    if (head !== undefined) chunks.push(head);
    first.resolve(undefined);
  });
  const cancel = async () => {
    await reader.cancel(stopReading()).catch(() => {});
    await ended;
  };
  return {
    first: first.promise,
    cancel,
    async rest(now) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const cut = new Promise<void>((resolve) => {
        timer = setTimeout(() => void cancel().then(resolve), now ? 0 : DRAIN_IDLE_MS);
      });
      await Promise.race([ended, cut]);
      clearTimeout(timer);
      return concat(chunks);
    },
  };
}
