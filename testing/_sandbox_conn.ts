/**
 * One WebSocket connection to a stand-in sandbox: `"ping"`/`"pong"`, JSON-RPC dispatch, the
 * `$sandbox.stream.*` notifications in both directions (stdout/stderr/walk out, stdin and file
 * contents in), and the drop-mid-call fault.
 *
 * @module
 */
import { FS_METHODS, type FsContext } from "./_sandbox_fs.ts";
import { PROCESS_METHODS } from "./_sandbox_process.ts";
import type { SandboxConnection, StandInSandbox } from "./_sandbox_state.ts";
import {
  encodeError,
  errorResultFrame,
  fromBase64,
  notificationFrame,
  okFrame,
  parseInbound,
  rpcErrorFrame,
  RpcProtocolError,
  toBase64,
} from "./_sandbox_wire.ts";

/** A pending drop: the next call of `method` closes the connection. */
export interface DropRule {
  readonly method: string;
  readonly sandboxId: string | undefined;
  /** Run the call first and drop before answering (else drop before running it). */
  readonly afterRunning: boolean;
}

/** What a connection asks of the stand-in. */
export interface ConnectionHost {
  /** Takes the first drop rule matching this call, if any. */
  takeDrop(method: string, sandboxId: string): DropRule | undefined;
}

/** The close code of a dropped connection when the TCP link cannot be cut (Deno cannot send 1006). */
const DROP_CLOSE_CODE = 4500;

/** Serves one accepted WebSocket for a sandbox until it closes. */
export class StandInConnection implements SandboxConnection, FsContext {
  readonly files: Map<number, Deno.FsFile> = new Map();
  readonly #socket: WebSocket;
  readonly #sandbox: StandInSandbox;
  readonly #host: ConnectionHost;
  readonly #cut: () => boolean;
  readonly #inbound = new Map<number, ReadableStreamDefaultController<Uint8Array>>();
  readonly #pickup = new Map<number, ReadableStream<Uint8Array>>();
  readonly #cancelled = new Set<number>();
  #open = true;

  /** Wires the socket's events. */
  constructor(
    socket: WebSocket,
    sandbox: StandInSandbox,
    host: ConnectionHost,
    cut: () => boolean,
  ) {
    this.#cut = cut;
    this.#socket = socket;
    this.#sandbox = sandbox;
    this.#host = host;
    socket.onmessage = (event) => this.#onMessage(event.data);
    socket.onclose = () => this.#onClose();
    socket.onerror = () => {};
  }

  /** The sandbox root on the host. */
  get root(): string {
    return this.#sandbox.root;
  }

  /** A fresh file handle id (the sandbox's). */
  newFileHandle(): number {
    return this.#sandbox.newFileHandle();
  }

  /** Whether the socket can still carry frames. */
  get open(): boolean {
    return this.#open && this.#socket.readyState === WebSocket.OPEN;
  }

  /** Closes the socket (the sandbox lives on unless it ended). */
  close(code: number, reason: string): void {
    this.#open = false;
    try {
      this.#socket.close(code, reason);
    } catch { /* already closing */ }
  }

  /** Drops the connection as a network would: the TCP link goes, no close frame is sent. */
  drop(reason: string): void {
    this.#open = false;
    if (!this.#cut()) this.close(DROP_CLOSE_CODE, `stand-in: ${reason}`);
  }

  /** Sends a frame if the socket is open (later output of a detached client is dropped). */
  send(frame: string): void {
    if (!this.open) return;
    try {
      this.#socket.send(frame);
    } catch { /* closed meanwhile */ }
  }

  /** Streams chunks to the client under a fresh id (start now, enqueue…, end). */
  sendStream(chunks: AsyncIterable<Uint8Array>): number {
    const streamId = this.#sandbox.newStreamId();
    this.send(notificationFrame("$sandbox.stream.start", { streamId }));
    void (async () => {
      try {
        for await (const chunk of chunks) {
          if (this.#cancelled.has(streamId)) continue;
          await this.#drained();
          this.send(
            notificationFrame("$sandbox.stream.enqueue", { streamId, data: toBase64(chunk) }),
          );
        }
        if (!this.#cancelled.has(streamId)) {
          this.send(notificationFrame("$sandbox.stream.end", { streamId }));
        }
      } catch (error) {
        const wire = encodeError(error, this.root);
        this.send(notificationFrame("$sandbox.stream.error", { streamId, error: wire }));
      } finally {
        this.#cancelled.delete(streamId);
      }
    })();
    return streamId;
  }

  /** Waits while the socket holds more than 4 MiB unsent (backpressure for fast output). */
  async #drained(): Promise<void> {
    while (this.open && this.#socket.bufferedAmount > 4 * 1024 * 1024) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  /** The stream the client started under `streamId` (created now if its start is still due). */
  takeInbound(streamId: number): ReadableStream<Uint8Array> {
    const ready = this.#pickup.get(streamId);
    if (ready !== undefined) {
      this.#pickup.delete(streamId);
      return ready;
    }
    return this.#newInbound(streamId, false);
  }

  #newInbound(streamId: number, park: boolean): ReadableStream<Uint8Array> {
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => void this.#inbound.set(streamId, controller),
      cancel: () => {
        this.#inbound.delete(streamId);
        this.send(notificationFrame("$sandbox.stream.cancel", { streamId, reason: null }));
      },
    });
    if (park) this.#pickup.set(streamId, stream);
    return stream;
  }

  #onStreamNotification(method: string, params: Record<string, unknown>): void {
    const streamId = Number(params.streamId);
    if (method === "$sandbox.stream.start") {
      if (!this.#inbound.has(streamId)) this.#newInbound(streamId, true);
      return;
    }
    if (method === "$sandbox.stream.cancel") {
      this.#cancelled.add(streamId);
      return;
    }
    const controller = this.#inbound.get(streamId);
    if (controller === undefined) return;
    try {
      if (method === "$sandbox.stream.enqueue") {
        controller.enqueue(fromBase64(String(params.data)));
      } else if (method === "$sandbox.stream.end") {
        this.#inbound.delete(streamId);
        controller.close();
      } else if (method === "$sandbox.stream.error") {
        this.#inbound.delete(streamId);
        controller.error(new Error(`client stream ${streamId} failed`));
      }
    } catch { /* the consumer went away */ }
  }

  #onMessage(data: unknown): void {
    if (data === "ping") {
      this.send("pong");
      return;
    }
    if (typeof data !== "string") return;
    const message = parseInbound(data);
    if (message === null) {
      this.close(4001, "Invalid message");
      return;
    }
    if (message.id === undefined) {
      if (message.method.startsWith("$sandbox.stream.")) {
        this.#onStreamNotification(message.method, message.params ?? {});
      }
      return;
    }
    void this.#call(message.id, message.method, message.params ?? {});
  }

  async #call(id: number | string, method: string, params: Record<string, unknown>) {
    this.#sandbox.calls.push(method);
    const drop = this.#host.takeDrop(method, this.#sandbox.id);
    if (drop !== undefined && !drop.afterRunning) {
      this.drop(`connection dropped before running ${method}`);
      return;
    }
    const frame = await this.#run(id, method, params);
    if (drop !== undefined) {
      this.drop(`connection dropped before answering ${method}`);
      return;
    }
    this.send(frame);
  }

  async #run(id: number | string, method: string, params: Record<string, unknown>) {
    const fs = FS_METHODS[method];
    const process = PROCESS_METHODS[method];
    try {
      if (fs !== undefined) return okFrame(id, await fs(this, params));
      if (process !== undefined) return okFrame(id, await process(this.#sandbox, this, params));
      if (method === "abort") return okFrame(id, null);
      return rpcErrorFrame(
        id,
        -32601,
        `Method not found: ${method} (not emulated by the stand-in)`,
      );
    } catch (error) {
      if (error instanceof RpcProtocolError) return rpcErrorFrame(id, error.rpcCode, error.message);
      return errorResultFrame(id, encodeError(error, this.root));
    }
  }

  #onClose(): void {
    this.#open = false;
    for (const file of this.files.values()) {
      try {
        file.close();
      } catch { /* closed */ }
    }
    this.files.clear();
    for (const controller of this.#inbound.values()) {
      try {
        controller.error(new Error("connection closed"));
      } catch { /* done */ }
    }
    this.#inbound.clear();
    this.#sandbox.disconnected(this);
  }
}
