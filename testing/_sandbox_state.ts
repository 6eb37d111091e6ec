/**
 * One stand-in sandbox: its private root folder, its environment, its processes (which outlive
 * any WebSocket), its open connections, its lifetime (`session` or a stop time) and what the
 * tests may inspect (the create config, every `envSet`, every spawn's command and env).
 *
 * @module
 */
import {
  type BoxProcess,
  killAllIn,
  prepareRoot,
  type RootId,
  rootIdOf,
  runsIn,
} from "./_sandbox_box.ts";

/** What one spawn looked like, recorded for assertions. */
export interface StandInSpawnRecord {
  /** The pid the SDK got back. */
  readonly pid: number;
  /** The program. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Its working directory (remote path). */
  readonly cwd: string;
  /** The exact environment the command started with. */
  readonly env: Readonly<Record<string, string>>;
}

/** How the stand-in ended a sandbox. */
export type StandInEndReason = "killed" | "timeout" | "session" | "forgotten" | "closed";

/** A live connection's handle, as the sandbox sees it. */
export interface SandboxConnection {
  /** Closes the socket with a close code and reason. */
  close(code: number, reason: string): void;
  /** Cuts the connection without a close frame. */
  drop(reason: string): void;
}

/** The state of one sandbox. */
export class StandInSandbox {
  /** The sandbox id (`sbx_ord_…`). */
  readonly id: string;
  /** The private host folder that is this sandbox's `/`. */
  readonly root: string;
  /** The decoded `x-deno-sandbox-config` header. */
  readonly config: Readonly<Record<string, unknown>>;
  /** The `X-Deno-Org` header of the create call, if any. */
  readonly org: string | null;
  /** The sandbox-wide environment (`envSet`). */
  readonly env: Map<string, string> = new Map();
  /** Every `envSet` call in order (key and value). */
  readonly envSets: { key: string; value: string }[] = [];
  /** Every spawn in order. */
  readonly spawns: StandInSpawnRecord[] = [];
  /** Every JSON-RPC method called, in order. */
  readonly calls: string[] = [];
  /** Processes by pid (they outlive connections). */
  readonly processes: Map<number, BoxProcess> = new Map();
  /** The open connections. */
  readonly connections: Set<SandboxConnection> = new Set();
  /** When the sandbox stops (ms since epoch), or null for a `session` sandbox. */
  stopAtMs: number | null;
  /** Why it ended, once it has. */
  ended: StandInEndReason | null = null;
  #rootId: RootId = { dev: -1, ino: -1 };
  #lastStreamId = 0;
  #lastFileHandle = 0;
  readonly #gone = Promise.withResolvers<StandInEndReason>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #onEnd: (sandbox: StandInSandbox) => void;

  /** Builds the record; call {@linkcode StandInSandbox.prepare} before use. */
  constructor(
    id: string,
    root: string,
    config: Record<string, unknown>,
    org: string | null,
    onEnd: (sandbox: StandInSandbox) => void,
  ) {
    this.id = id;
    this.root = root;
    this.config = config;
    this.org = org;
    this.#onEnd = onEnd;
    this.stopAtMs = typeof config.stop_at_ms === "number" ? config.stop_at_ms : null;
  }

  /** Resolves once the sandbox has ended and its folder is gone. */
  get gone(): Promise<StandInEndReason> {
    return this.#gone.promise;
  }

  /** Lays out the root folder and arms the stop timer. */
  async prepare(): Promise<void> {
    await Deno.mkdir(this.root, { recursive: true });
    await prepareRoot(this.root);
    this.#rootId = await rootIdOf(this.root);
    this.#arm();
  }

  /** Whether the create config allows any network (an empty or missing list gives none). */
  get network(): boolean {
    const allow = this.config.allow_net;
    return Array.isArray(allow) && allow.length > 0;
  }

  /** A fresh id of a stream this sandbox sends (unique across its connections). */
  newStreamId(): number {
    return ++this.#lastStreamId;
  }

  /** A fresh file handle id (unique across its connections: a stale handle never aliases). */
  newFileHandle(): number {
    return ++this.#lastFileHandle;
  }

  /** Tracks a new spawn. */
  track(process: BoxProcess): void {
    this.processes.set(process.pid, process);
  }

  /** Whether a live process with this pid ran in this sandbox's box (a detached job too). */
  ownsPid(pid: number): Promise<boolean> {
    return runsIn(pid, this.#rootId);
  }

  /** Moves the stop time (PATCH); returns the new one. */
  extend(stopAtMs: number): number {
    this.stopAtMs = stopAtMs;
    this.#arm();
    return stopAtMs;
  }

  #arm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.stopAtMs === null) return;
    const delay = Math.max(0, this.stopAtMs - Date.now());
    const timer = setTimeout(() => void this.end("timeout"), delay);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  /** A connection closed: a `session` sandbox ends with its last connection. */
  disconnected(connection: SandboxConnection): void {
    this.connections.delete(connection);
    if (this.stopAtMs === null && this.connections.size === 0 && this.ended === null) {
      void this.end("session");
    }
  }

  /** Ends the sandbox: every process dies, every connection closes, the root folder goes. */
  async end(reason: StandInEndReason): Promise<void> {
    if (this.ended !== null) return;
    this.ended = reason;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#onEnd(this);
    const [code, text] = closeFrameFor(reason);
    for (const connection of [...this.connections]) connection.close(code, text);
    this.connections.clear();
    await killAllIn(this.#rootId);
    // A command still setting up its box (not yet under the root) is killed by pid.
    for (const process of this.processes.values()) {
      if (process.exited.done) continue;
      for (const pid of [process.pid, process.child.pid]) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* already gone */ }
      }
    }
    await Promise.allSettled([...this.processes.values()].map((process) => process.status));
    await killAllIn(this.#rootId);
    await Deno.remove(this.root, { recursive: true }).catch(() => {});
    this.#gone.resolve(reason);
  }
}

function closeFrameFor(reason: StandInEndReason): [number, string] {
  switch (reason) {
    case "killed":
      return [1000, "sandbox killed"];
    case "timeout":
      return [1001, "sandbox timed out"];
    case "forgotten":
      return [1011, "sandbox lost"];
    default:
      return [1001, "sandbox stopped"];
  }
}
