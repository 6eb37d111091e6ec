/**
 * A TCP pass-through in front of the stand-in's HTTP server, so a "dropped connection" is a real
 * one: the TCP connection closes without a WebSocket close frame, and the SDK sees what it sees
 * on a network drop (close code 1006, pending calls rejected with `ConnectionClosedError`).
 * Connections are keyed by the port the proxy dials from, which the server sees as the remote
 * port of the request.
 *
 * @module
 */

interface Pair {
  readonly outer: Deno.TcpConn;
  readonly inner: Deno.TcpConn;
  closed: boolean;
}

function closePair(pair: Pair): void {
  if (pair.closed) return;
  pair.closed = true;
  for (const conn of [pair.outer, pair.inner]) {
    try {
      conn.close();
    } catch { /* already closed */ }
  }
}

/** The pass-through; {@linkcode DropProxy.drop} cuts one proxied connection. */
export class DropProxy {
  /** The port clients dial. */
  readonly port: number;
  readonly #listener: Deno.TcpListener;
  readonly #target: number;
  readonly #pairs = new Map<number, Pair>();
  readonly #done: Promise<void>;

  private constructor(listener: Deno.TcpListener, target: number) {
    this.#listener = listener;
    this.#target = target;
    this.port = (listener.addr as Deno.NetAddr).port;
    this.#done = this.#accept();
  }

  /** Listens on a random loopback port and forwards to `targetPort`. */
  static start(targetPort: number): DropProxy {
    return new DropProxy(Deno.listen({ hostname: "127.0.0.1", port: 0 }), targetPort);
  }

  async #accept(): Promise<void> {
    const pumps: Promise<void>[] = [];
    try {
      for await (const outer of this.#listener) pumps.push(this.#serve(outer));
    } catch { /* listener closed */ }
    await Promise.allSettled(pumps);
  }

  async #serve(outer: Deno.TcpConn): Promise<void> {
    let inner: Deno.TcpConn;
    try {
      inner = await Deno.connect({ hostname: "127.0.0.1", port: this.#target });
    } catch {
      outer.close();
      return;
    }
    const key = (inner.localAddr as Deno.NetAddr).port;
    const pair: Pair = { outer, inner, closed: false };
    this.#pairs.set(key, pair);
    const options = { preventClose: true, preventAbort: true, preventCancel: true };
    await Promise.race([
      outer.readable.pipeTo(inner.writable, options).catch(() => {}),
      inner.readable.pipeTo(outer.writable, options).catch(() => {}),
    ]);
    this.#pairs.delete(key);
    closePair(pair);
  }

  /** Cuts the proxied connection whose server side sees `remotePort`; false if none. */
  drop(remotePort: number): boolean {
    const pair = this.#pairs.get(remotePort);
    if (pair === undefined) return false;
    this.#pairs.delete(remotePort);
    closePair(pair);
    return true;
  }

  /** Stops listening and cuts every connection. */
  async close(): Promise<void> {
    try {
      this.#listener.close();
    } catch { /* closed */ }
    for (const pair of this.#pairs.values()) closePair(pair);
    this.#pairs.clear();
    await this.#done;
  }
}
