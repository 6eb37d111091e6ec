/**
 * Private: tells the user in the editor when an MCP server fails to start, stops or comes back,
 * as agent message chunks of the affected sessions. A session's own servers (`session/new`
 * `mcpServers`) report to that session; global servers (dsh.jsonc) report to every open
 * session, and a session that opens while a global server is down is told at once.
 *
 * Only changes are reported: a server retrying with the same reason stays quiet.
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import type { SessionUpdateWire } from "./session_update_wire.ts";

/** The `"mcp/status"` payload fields read here (structurally `McpStatusEvent`). */
interface StatusEvent {
  readonly server: string;
  readonly state: "connected" | "disconnected";
  readonly tools?: readonly string[];
  readonly reason?: string;
  readonly retryInMs?: number;
  readonly scope?: string;
}

interface ServerState {
  /** The last reason reported, while the server is down. */
  down: string | undefined;
  /** True once it has been connected. */
  everUp: boolean;
}

type Send = (update: SessionUpdateWire) => void;

/** Payload of `"mcp/starting"`: the first connection attempts of MCP servers (global when no scope). */
export interface McpStarting {
  readonly scope?: string;
  /** Settles when every first attempt has settled (bounded by `connectTimeoutMs`). */
  readonly ready: Promise<void>;
}

/**
 * Routes MCP server status changes to the editor, and knows which servers are still making
 * their first connection attempt, so a prompt can wait for their tools (never past
 * `connectTimeoutMs`) while `session/new` does not.
 */
export class McpNotices {
  readonly #sessions = new Map<string, Send>();
  readonly #servers = new Map<string, ServerState>();
  readonly #starting = new Map<string, Set<Promise<void>>>();
  readonly #offs: (() => void)[];

  /** Listens to `"mcp/status"` and `"mcp/starting"` on `ctx` until {@linkcode McpNotices.dispose}. */
  constructor(ctx: Context) {
    this.#offs = [
      ctx.on("mcp/status", (event: StatusEvent) => this.#onStatus(event)),
      ctx.on("mcp/starting", (event: McpStarting) => this.track(event.scope, event.ready)),
    ];
  }

  /** Remembers first connection attempts in progress for `scope` (global when `undefined`). */
  track(scope: string | undefined, ready: Promise<void>): void {
    const key = scope ?? "";
    const set = this.#starting.get(key) ?? new Set();
    this.#starting.set(key, set);
    set.add(ready);
    // A failed first attempt is reported by its own events; here it only stops being pending.
    void ready.catch(() => {}).finally(() => set.delete(ready));
  }

  /**
   * Settles when the first attempts of global servers and of `sessionId`'s servers have, or
   * at once when `signal` aborts (a cancelled prompt does not wait for servers).
   */
  async settled(sessionId: string, signal?: AbortSignal): Promise<void> {
    const pending = [
      ...(this.#starting.get("") ?? []),
      ...(this.#starting.get(sessionId) ?? []),
    ];
    if (pending.length === 0 || signal?.aborted) return;
    const aborted = Promise.withResolvers<void>();
    const onAbort = () => aborted.resolve();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await Promise.race([Promise.allSettled(pending), aborted.promise]);
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Reports to `sessionId` from now on. Global servers that are down, and `notes`, are sent
   * on the next macrotask, after the `session/new` response that names the session.
   */
  attach(sessionId: string, send: Send, notes: readonly string[] = []): () => void {
    this.#sessions.set(sessionId, send);
    const initial = [...notes];
    for (const [key, state] of this.#servers) {
      if (!key.startsWith("\0") || state.down === undefined) continue;
      initial.push(`${label(key.slice(1), undefined)} is unavailable: ${state.down}`);
    }
    if (initial.length > 0) {
      setTimeout(() => {
        if (this.#sessions.get(sessionId) !== send) return;
        for (const text of initial) send(message(text));
      }, 0);
    }
    return () => {
      if (this.#sessions.get(sessionId) !== send) return;
      this.#sessions.delete(sessionId);
      for (const key of [...this.#servers.keys()]) {
        if (key.startsWith(`${sessionId}\0`)) this.#servers.delete(key);
      }
      this.#starting.delete(sessionId);
    };
  }

  /** Stops listening. */
  dispose(): void {
    for (const off of this.#offs) off();
  }

  #onStatus(event: StatusEvent): void {
    const key = `${event.scope ?? ""}\0${event.server}`;
    const state = this.#servers.get(key) ?? { down: undefined, everUp: false };
    this.#servers.set(key, state);
    let text: string | undefined;
    if (event.state === "connected") {
      if (state.down !== undefined) {
        text = `${label(event.server, event.scope)} is connected again (${
          event.tools?.length ?? 0
        } tools)`;
      }
      state.down = undefined;
      state.everUp = true;
    } else {
      const reason = event.reason ?? "stopped";
      if (reason !== state.down) {
        const retry = event.retryInMs === undefined
          ? "it will not be restarted"
          : `retrying in ${(event.retryInMs / 1000).toFixed(1)} s; its tools ${
            state.everUp ? "return" : "appear"
          } when it answers`;
        text = `${label(event.server, event.scope)} ${
          state.everUp ? "stopped" : "failed to start"
        }: ${reason} (${retry})`;
      }
      state.down = reason;
    }
    if (text === undefined) return;
    const targets = event.scope === undefined
      ? [...this.#sessions.values()]
      : [this.#sessions.get(event.scope)].filter((send) => send !== undefined);
    for (const send of targets) send(message(text));
  }
}

function label(server: string, scope: string | undefined): string {
  return `MCP server ${JSON.stringify(server)}${scope === undefined ? " (dsh.jsonc)" : ""}`;
}

function message(text: string): SessionUpdateWire {
  return { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n[${text}]\n` } };
}
