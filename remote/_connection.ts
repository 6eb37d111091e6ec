/**
 * Private: one session's link to its Deno Sandbox. It creates the sandbox lazily, reuses it,
 * reconnects by id after a dropped WebSocket, reattaches by a recorded id (or creates a fresh one
 * and says which it replaced), detaches (`close`) and destroys (`kill`).
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import { Sandbox, type SandboxOptions, type SecretConfig } from "@deno/sandbox";
import type { ExecutorRecord } from "../tools/executor.ts";
import { gone, isGoneAnswer, sandboxName, unavailable } from "./_errors.ts";
import { HarnessError } from "../core/errors.ts";

/** The provider name in records. */
export const PROVIDER = "deno-sandbox";

/** How long a create or connect may take before the call fails (the SDK has no deadline). */
const ATTACH_MS = 60_000;

/** A `"<n>m"` or `"<n>s"` timeout in milliseconds. */
function timeoutMs(timeout: `${number}s` | `${number}m`): number {
  return Number.parseInt(timeout, 10) * (timeout.endsWith("m") ? 60_000 : 1000);
}

/** A run whose call lost its connection: its group (once known) and its marker. */
export interface Orphan {
  readonly pgid?: number;
  readonly marker: string;
}

/** Kills `g:<pgid>` groups and every process whose environment holds `m:<marker>`. */
const KILL_ORPHANS = [
  'for a in "$@"; do',
  '  case "$a" in',
  '    g:*) kill -KILL -- "-${a#g:}" 2>/dev/null ;;',
  '    m:*) for f in $(grep -lsxzF "DSH_EXEC_TREE=${a#m:}" /proc/[0-9]*/environ); do',
  '      p=${f#/proc/}; kill -KILL "${p%/environ}" 2>/dev/null',
  "    done ;;",
  "  esac",
  "done",
  "true",
].join("\n");

/** What every sandbox of a provider is created with. */
export interface LinkSettings {
  readonly token: string;
  readonly org?: string;
  readonly endpoint?: string;
  readonly region?: "ord" | "ams";
  readonly memoryMiB?: number;
  readonly allowNet: readonly string[];
  readonly timeout: `${number}s` | `${number}m`;
  readonly secrets?: Readonly<Record<string, SecretConfig>>;
  readonly labels?: Readonly<Record<string, string>>;
}

/** Called when a session's environment was created or reattached (not on a mere reconnect). */
export type OpenedListener = (record: ExecutorRecord) => void | Promise<void>;

/** Resolves with `promise`, or fails after `ms`; a late value is handed to `late`. */
async function within<T>(promise: Promise<T>, ms: number, late: (value: T) => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let expired = false;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      expired = true;
      reject(new Error(`no answer within ${ms / 1000} s`));
    }, ms);
  });
  promise.then((value) => expired && late(value), () => {});
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** One session's sandbox. */
export class SandboxLink {
  /** The session this link serves. */
  readonly sessionId: string;
  /** Bumped at every create or reattach: the workspace sync uploads once per generation. */
  generation = 0;
  readonly #settings: LinkSettings;
  readonly #opened: OpenedListener;
  #sandbox: Sandbox | undefined;
  #live = false;
  #id: string | undefined;
  #record: ExecutorRecord | undefined;
  /** The id of a sandbox found gone, named as `replaced` in the next record. */
  #lost: string | undefined;
  #pending: Promise<Sandbox> | undefined;
  /** When the next call extends the timeout (half a timeout after the last extension). */
  #renewAt = Number.POSITIVE_INFINITY;
  /** Runs whose call lost its connection (group and marker): killed once the link is back. */
  #orphans: Orphan[] = [];

  constructor(sessionId: string, settings: LinkSettings, opened: OpenedListener) {
    this.sessionId = sessionId;
    this.#settings = settings;
    this.#opened = opened;
  }

  /** The sandbox id, once there is one. */
  get id(): string | undefined {
    return this.#id;
  }

  /** The sandbox's name for messages. */
  get name(): string {
    return sandboxName(this.#id, this.sessionId);
  }

  /** The record of the current sandbox. */
  get record(): ExecutorRecord {
    return this.#record ?? { provider: PROVIDER };
  }

  /** Remembers a run to kill when the connection is back. */
  orphan(run: Orphan): void {
    this.#orphans.push(run);
  }

  /** The live sandbox: the current one, a reconnect to it, or a new one. */
  async sandbox(): Promise<Sandbox> {
    if (this.#sandbox === undefined || !this.#live) {
      await (this.#pending ??= this.#attach().finally(() => this.#pending = undefined));
    }
    const sandbox = this.#sandbox!;
    if (Date.now() >= this.#renewAt) await this.#renew(sandbox);
    return sandbox;
  }

  /**
   * Pushes the sandbox's end to a full timeout from now, so a session in use keeps its sandbox
   * and the timeout counts from the last use (a failure only leaves the old end).
   */
  async #renew(sandbox: Sandbox): Promise<void> {
    this.#renewAt = Date.now() + timeoutMs(this.#settings.timeout) / 2;
    await sandbox.extendTimeout(this.#settings.timeout).catch(() => {});
  }

  /**
   * After a call lost its connection: reconnects now, so the error can say whether the sandbox
   * is still there (and the next call finds it ready).
   *
   * @returns True when the sandbox is back; false when it is gone (the next call creates one).
   */
  async recover(): Promise<boolean> {
    try {
      await this.sandbox();
      return true;
    } catch (error) {
      if (error instanceof HarnessError && error.code === "REMOTE_GONE") return false;
      throw error;
    }
  }

  /**
   * Reattaches the sandbox `resume` names, or creates one (without `resume`, or when it is gone).
   *
   * @param resume A record from the session log.
   * @returns The record to log.
   */
  async open(resume?: ExecutorRecord): Promise<ExecutorRecord> {
    const id = resume?.provider === PROVIDER && typeof resume.id === "string"
      ? resume.id
      : undefined;
    if (id === undefined || id === this.#id) {
      await this.sandbox();
      return this.record;
    }
    await this.detach();
    let sandbox: Sandbox;
    try {
      sandbox = await this.#connect(id);
    } catch (error) {
      if (!(error instanceof HarnessError && error.code === "REMOTE_GONE")) throw error;
      this.#lost = id;
      await this.#create();
      return this.record;
    }
    await this.#adopt(sandbox, { provider: PROVIDER, id: sandbox.id, reattached: true });
    return this.record;
  }

  /** Closes the connection; the sandbox runs on until its timeout, reattachable by id. */
  async detach(): Promise<void> {
    const sandbox = this.#sandbox;
    this.#live = false;
    if (sandbox === undefined) return;
    await sandbox.close().catch(() => {});
  }

  /** Destroys the sandbox (every process and file in it); a gone one is fine. */
  async destroy(): Promise<void> {
    const id = this.#id;
    if (id === undefined) return;
    const sandbox = this.#sandbox ?? await this.#connect(id).catch(() => undefined);
    this.#forget();
    if (sandbox === undefined) return;
    try {
      await sandbox.kill();
    } catch (error) {
      if ((error as { status?: number }).status === 404) return;
      throw unavailable("destroy the sandbox", sandboxName(id, this.sessionId), error);
    } finally {
      await sandbox.close().catch(() => {});
    }
  }

  /** Drops the current sandbox: the next call creates one. */
  #forget(): void {
    this.#sandbox = undefined;
    this.#live = false;
    this.#id = undefined;
    this.#record = undefined;
    this.#orphans = [];
  }

  async #attach(): Promise<Sandbox> {
    if (this.#id === undefined) return await this.#create();
    const id = this.#id;
    let sandbox: Sandbox;
    try {
      sandbox = await this.#connect(id);
    } catch (error) {
      if (error instanceof HarnessError && error.code === "REMOTE_GONE") {
        this.#lost = id;
        this.#forget();
      }
      throw error;
    }
    this.#use(sandbox);
    await this.#killOrphans(sandbox);
    return sandbox;
  }

  async #create(): Promise<Sandbox> {
    const s = this.#settings;
    const options: SandboxOptions = {
      token: s.token,
      allowNet: [...s.allowNet],
      timeout: s.timeout,
      ...(s.org === undefined ? {} : { org: s.org }),
      ...(s.endpoint === undefined ? {} : { sandboxEndpoint: s.endpoint }),
      ...(s.region === undefined ? {} : { region: s.region }),
      ...(s.memoryMiB === undefined ? {} : { memory: `${s.memoryMiB}MiB` as const }),
      ...(s.secrets === undefined ? {} : { secrets: { ...s.secrets } }),
      ...(s.labels === undefined ? {} : { labels: { ...s.labels } }),
    };
    let sandbox: Sandbox;
    try {
      sandbox = await within(
        Sandbox.create(options),
        ATTACH_MS,
        (late) => void late.kill().catch(() => {}),
      );
    } catch (error) {
      throw unavailable("create a sandbox", sandboxName(undefined, this.sessionId), error);
    }
    const replaced = this.#lost;
    this.#lost = undefined;
    await this.#adopt(sandbox, {
      provider: PROVIDER,
      id: sandbox.id,
      ...(s.region === undefined ? {} : { region: s.region }),
      timeout: s.timeout,
      ...(replaced === undefined ? {} : { replaced }),
    }, true);
    return sandbox;
  }

  /** Connects to `id`; a gone sandbox fails with `REMOTE_GONE`. */
  async #connect(id: string): Promise<Sandbox> {
    const s = this.#settings;
    const name = sandboxName(id, this.sessionId);
    try {
      return await within(
        Sandbox.connect(id, {
          token: s.token,
          ...(s.org === undefined ? {} : { org: s.org }),
          ...(s.endpoint === undefined ? {} : { sandboxEndpoint: s.endpoint }),
        }),
        ATTACH_MS,
        (late) => void late.close().catch(() => {}),
      );
    } catch (error) {
      if (isGoneAnswer(error)) throw gone("reconnect", name, error);
      if (error instanceof TypeError && errorMessage(error).startsWith("Invalid sandbox ID")) {
        throw new HarnessError(
          "REMOTE_GONE",
          `Cannot reattach the ${name}: "${id}" is not a Deno Sandbox id`,
          { cause: error },
        );
      }
      throw unavailable("reconnect", name, error);
    }
  }

  /** Makes `sandbox` current and tells the listener (create or reattach). */
  async #adopt(sandbox: Sandbox, record: ExecutorRecord, created = false): Promise<void> {
    this.#use(sandbox, created);
    this.#record = record;
    this.generation++;
    // The log append may fail (the agent is gone): the sandbox still serves this call.
    await Promise.resolve().then(() => this.#opened(record)).catch(() => {});
  }

  #use(sandbox: Sandbox, created = false): void {
    // A created sandbox has a full timeout; a reattached one is extended on its first use.
    this.#renewAt = created ? Date.now() + timeoutMs(this.#settings.timeout) / 2 : 0;
    this.#sandbox = sandbox;
    this.#id = sandbox.id;
    this.#live = true;
    const dead = () => {
      if (this.#sandbox === sandbox) this.#live = false;
    };
    sandbox.closed.then(dead, dead);
  }

  async #killOrphans(sandbox: Sandbox): Promise<void> {
    const runs = this.#orphans.splice(0);
    if (runs.length === 0) return;
    const args = runs.flatMap((run) => [
      ...(run.pgid === undefined ? [] : [`g:${run.pgid}`]),
      `m:${run.marker}`,
    ]);
    const child = await sandbox.spawn("bash", {
      args: ["-c", KILL_ORPHANS, "dsh-orphans", ...args],
      stdout: "piped",
      stderr: "piped",
    }).catch(() => undefined);
    await child?.output().catch(() => {});
  }
}
