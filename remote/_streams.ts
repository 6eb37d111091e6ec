/**
 * Private: reading a remote child's streams. Two SDK facts shape it:
 *
 * - a dropped WebSocket leaves the SDK's streams open forever, so every wait here can give up;
 * - a cancelled SDK stream crashes the process when the sandbox's `stream.end` crosses our
 *   cancel on the wire (the SDK calls `close()` on the cancelled stream inside its socket
 *   handler: an uncaught TypeError). So no SDK stream is ever cancelled: a reader that stops is
 *   *abandoned*, read on in the background and discarded until the sandbox ends it.
 *
 * The output drain gives up once the pipe stays idle after the command ended (as local).
 *
 * @module
 */
import { concatBytes } from "../core/bytes.ts";
import type { RunOptions } from "../tools/executor.ts";
import { DRAIN_IDLE_MS } from "../tools/pipe_drain.ts";

/** A reader that can stop: `read` gives `undefined` at the end or once stopped. */
class Abandonable {
  #stopped = false;
  #stop = Promise.withResolvers<undefined>();
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  /** The next chunk, or `undefined` at the end of the stream or once stopped. */
  async read(): Promise<Uint8Array | undefined> {
    if (this.#stopped) return undefined;
    const pending = this.#reader.read();
    this.#pending = pending;
    const result = await Promise.race([
      pending.then((r) => r.done ? undefined : r.value),
      this.#stop.promise,
    ]);
    this.#pending = undefined;
    return result;
  }

  /** Stops reading; what the sandbox still sends is read and dropped in the background. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#stop.resolve(undefined);
    const pending = this.#pending;
    (async () => {
      if (pending !== undefined && (await pending).done) return;
      for (;;) if ((await this.#reader.read()).done) return;
    })().catch(() => {});
  }
}

/**
 * `stream` for a caller (Code Mode): it errors when the connection under it is lost, and its
 * `cancel` abandons the SDK stream instead of cancelling it (see the module doc).
 *
 * @param stream An SDK stream.
 * @param lost Rejects when the connection under the stream is lost (the stream then errors).
 * @returns The safe stream.
 */
export function safeStream(
  stream: ReadableStream<Uint8Array>,
  lost: Promise<unknown>,
): ReadableStream<Uint8Array> {
  const reader = new Abandonable(stream);
  let failure: { error: unknown } | undefined;
  const failed = lost.then(() => new Promise<never>(() => {}), (error) => {
    failure = { error };
    reader.stop();
    throw error;
  });
  failed.catch(() => {});
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const value = await Promise.race([reader.read(), failed]);
      if (failure !== undefined) throw failure.error;
      if (value === undefined) controller.close();
      else controller.enqueue(value);
    },
    cancel() {
      reader.stop();
    },
  });
}

/**
 * `stdin` for a caller: writes fail (instead of waiting forever) once the connection under it is
 * lost; an abort reaches the sandbox as an Error (the SDK encodes nothing else).
 *
 * @param stdin The SDK child's stdin.
 * @param lost Rejects when the connection is lost.
 * @returns The safe stdin.
 */
export function safeStdin(
  stdin: WritableStream<Uint8Array>,
  lost: Promise<unknown>,
): WritableStream<Uint8Array> {
  const writer = stdin.getWriter();
  const failed = lost.then(() => new Promise<never>(() => {}), (error) => {
    throw error;
  });
  failed.catch(() => {});
  return new WritableStream<Uint8Array>({
    write: (chunk) => Promise.race([writer.write(chunk), failed]),
    close: () => Promise.race([writer.close(), failed]),
    abort: (reason) => {
      const error = reason instanceof Error ? reason : new Error(String(reason ?? "aborted"));
      error.stack = "";
      return writer.abort(error).catch(() => {});
    },
  });
}

/** The stdout pump. */
export interface OutputPump {
  /** Settles when the stream ended or the pump stopped. */
  readonly done: Promise<void>;
  /** How long the stream has been idle (0 while a chunk is being delivered). */
  idleMs(): number;
  /** The `onOutput` failure, if any. */
  error(): unknown;
  /** Stops delivering (the rest is discarded). */
  stop(): Promise<void>;
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
  const reader = new Abandonable(stream);
  const done = (async () => {
    for (;;) {
      const value = await reader.read();
      lastRead = Date.now();
      if (value === undefined) return;
      delivering = true;
      try {
        if (onOutput) await onOutput(value);
      } catch (error) {
        failure = error;
        onError();
        reader.stop();
        return;
      } finally {
        delivering = false;
        lastRead = Date.now();
      }
    }
  })();
  return {
    done,
    idleMs: () => delivering ? 0 : Date.now() - lastRead,
    error: () => failure,
    stop: async () => {
      reader.stop();
      await done;
    },
  };
}

/** The wrapper's stderr: its first line (`dsh:pid N` or `dsh:nocwd`), then diagnostics. */
export interface Protocol {
  /** The group id, `"nocwd"`, or `undefined` when the stream ended or was stopped first. */
  readonly first: Promise<number | "nocwd" | undefined>;
  /**
   * The diagnostics after the first line: all of them when the stream ends, else what came
   * before the cut (at once when `now`, else after {@linkcode DRAIN_IDLE_MS}).
   */
  rest(now: boolean): Promise<Uint8Array>;
  /** Stops reading. */
  stop(): Promise<void>;
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
  const reader = new Abandonable(stream);
  const first = Promise.withResolvers<number | "nocwd" | undefined>();
  const chunks: Uint8Array[] = [];
  let head: Uint8Array | undefined = new Uint8Array();
  const ended = (async () => {
    for (;;) {
      const value = await reader.read();
      if (value === undefined) return;
      if (head === undefined) {
        chunks.push(value);
        continue;
      }
      head = concatBytes([head, value]);
      const newline = head.indexOf(10);
      if (newline < 0) continue;
      const parsed = parseFirst(new TextDecoder().decode(head.subarray(0, newline)));
      first.resolve(parsed);
      // Not the wrapper's line (a diagnostic came first): it is kept as a diagnostic.
      chunks.push(parsed === undefined ? head : head.subarray(newline + 1));
      head = undefined;
    }
  })().finally(() => {
    if (head !== undefined) chunks.push(head);
    first.resolve(undefined);
  });
  const stop = async () => {
    reader.stop();
    await ended;
  };
  return {
    first: first.promise,
    stop,
    async rest(now) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const cut = new Promise<void>((resolve) => {
        timer = setTimeout(() => void stop().then(resolve), now ? 0 : DRAIN_IDLE_MS);
      });
      await Promise.race([ended, cut]);
      clearTimeout(timer);
      return concatBytes(chunks);
    },
  };
}
