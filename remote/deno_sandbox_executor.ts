/**
 * The Deno Sandbox executor: every tool call of a session runs in that session's own Deno
 * Sandbox microVM (`npm:@deno/sandbox`, pinned), behind the same {@linkcode Executor} interface
 * as the local executors, so no tool changes.
 *
 * - **One sandbox per session**, created on the session's first call and reused; `open(record)`
 *   reattaches it by id after a restart (or creates a fresh one and records `replaced`),
 *   `detach()` leaves it to its timeout, `destroy()` ends it. Calls without a session (an
 *   embedder) use the `"default"` session.
 * - **Same paths**: the workspace sits at the same absolute path in the sandbox; paths outside
 *   the workspace and the writable roots fail with `PERMISSION_DENIED`.
 * - **Process trees** run in their own session (`setsid`) and are killed as a group on abort,
 *   timeout or shell exit (the SDK itself only kills one pid).
 * - **Nothing of the host environment** enters the sandbox: commands see the sandbox's own
 *   variables plus `env`; `DEEPSEEK_API_KEY` is refused. Keys a command needs go through
 *   `secrets`, substituted on the wire for outbound HTTPS, never inside the sandbox.
 * - **Faults** fail the call with a clear error, never a hang: `REMOTE_DISCONNECTED` (the
 *   WebSocket dropped: the link is re-established and the call's group killed),
 *   `REMOTE_GONE` (timed out or destroyed: the next call creates a fresh sandbox and its record
 *   says `replaced`), `REMOTE_UNAVAILABLE` (cannot be created or reached).
 *
 * @module
 */
import type { SecretConfig } from "@deno/sandbox";
import type {
  DetachedRead,
  DetachedRun,
  DirEntry,
  ExecChild,
  Executor,
  ExecutorRecord,
  FileStat,
  RunOptions,
  RunResult,
  SpawnOptions,
} from "../tools/executor.ts";
import { NEVER_PASSED_ENV_VARS } from "../core/env_policy.ts";
import { type LinkSettings, PROVIDER, SandboxLink } from "./_connection.ts";
import { resolvePath } from "../tools/paths.ts";
import { SandboxSessionExecutor } from "./_session.ts";
import type { WorkspaceSync } from "./workspace_sync.ts";

/** The session calls without a session id use. */
export const DEFAULT_SESSION = "default";

/** A secret for {@linkcode DenoSandboxExecutorOptions.secrets}: its value and the hosts it is for. */
export interface SandboxSecret {
  /** Hosts whose outbound HTTPS requests get the value substituted (`api.github.com`). */
  readonly hosts: readonly string[];
  /** The value (held by the engine, never inside the sandbox). */
  readonly value: string;
}

/** Options for {@linkcode denoSandboxExecutor}. */
export interface DenoSandboxExecutorOptions {
  /** The workspace (host absolute path), mirrored at the same path in the sandbox. */
  readonly workspace: string;
  /** More absolute paths calls may use in the sandbox. @default {[]} */
  readonly writableRoots?: readonly string[];
  /** Hosts the sandbox may reach (`[]`: none). Required: the SDK's default is ambiguous. */
  readonly allowNet: readonly string[];
  /** `"ord"` or `"ams"`. @default {the SDK's default region} */
  readonly region?: "ord" | "ams";
  /** Memory in MiB (768-4096). @default {1280} */
  readonly memory?: number;
  /**
   * How long each sandbox outlives its last use, `"<n>m"` or `"<n>s"`: a session in use extends it
   * (once half of it has passed, and on reattach), a detached one ends that long after. Not
   * `"session"`: that ends the sandbox when our connection drops, which would kill durable jobs
   * and make every reattach fail. @default {"30m"}
   */
  readonly timeout?: `${number}m` | `${number}s`;
  /**
   * The environment of every command, explicit only (nothing is inherited from this process).
   * @default {{}}
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Secrets the engine substitutes on the wire (`NAME` is the placeholder variable). */
  readonly secrets?: Readonly<Record<string, SandboxSecret>>;
  /** Labels on each sandbox (at most 5). @default {none} */
  readonly labels?: Readonly<Record<string, string>>;
  /** Deno Deploy token. @default {$DENO_DEPLOY_TOKEN} */
  readonly token?: string;
  /** Deno Deploy organization (personal tokens). @default {$DENO_DEPLOY_ORG} */
  readonly org?: string;
  /** Sandbox API endpoint (a loopback stand-in in tests). @default {$DENO_SANDBOX_ENDPOINT} */
  readonly endpoint?: string;
  /**
   * Told when a session's sandbox was created or reattached: the agent appends
   * `executor/opened` with the record to the session log.
   */
  readonly onRecord?: (sessionId: string, record: ExecutorRecord) => void | Promise<void>;
  /**
   * The workspace sync (`createWorkspaceSync` in `workspace_sync.ts`): uploaded once
   * per created or reattached sandbox, pushed before each call, pulled after each run or spawn
   * and after a write or remove. @default {none: files stay in the sandbox}
   */
  readonly sync?: WorkspaceSync;
}

function env(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

function fail(what: string, value: unknown): never {
  throw new TypeError(
    `Cannot create the Deno Sandbox executor as ${what}: current value is ${JSON.stringify(value)}`,
  );
}

function checkOptions(options: DenoSandboxExecutorOptions): void {
  const { workspace, writableRoots = [], allowNet, memory, timeout, region } = options;
  if (typeof workspace !== "string" || !workspace.startsWith("/")) {
    fail("'workspace' must be an absolute path", workspace);
  }
  for (const root of writableRoots) {
    if (typeof root !== "string" || !root.startsWith("/")) {
      fail("every 'writableRoots' entry must be an absolute path", root);
    }
  }
  if (!Array.isArray(allowNet) || allowNet.some((host) => typeof host !== "string")) {
    fail("'allowNet' must be an array of hosts (an empty array for no network)", allowNet);
  }
  if (memory !== undefined && (!Number.isInteger(memory) || memory < 768 || memory > 4096)) {
    fail("'memory' must be an integer number of MiB from 768 to 4096", memory);
  }
  if (timeout !== undefined && !/^[1-9][0-9]*[ms]$/.test(timeout)) {
    fail(
      `'timeout' must be like "30m" or "600s" (not "session": that ends the sandbox when the connection drops)`,
      timeout,
    );
  }
  if (region !== undefined && region !== "ord" && region !== "ams") {
    fail(`'region' must be "ord" or "ams"`, region);
  }
  for (const name of NEVER_PASSED_ENV_VARS) {
    if (options.env !== undefined && name in options.env) {
      fail(`'env' must not hold ${name} (the model key never enters the sandbox)`, name);
    }
  }
}

function linkSettings(options: DenoSandboxExecutorOptions): LinkSettings {
  const token = options.token ?? env("DENO_DEPLOY_TOKEN");
  if (token === undefined || token === "") {
    throw new TypeError(
      "Cannot create the Deno Sandbox executor: no Deno Deploy token; set DENO_DEPLOY_TOKEN (and DENO_DEPLOY_ORG for a personal token) or pass 'token'",
    );
  }
  const org = options.org ?? env("DENO_DEPLOY_ORG");
  const endpoint = options.endpoint ?? env("DENO_SANDBOX_ENDPOINT");
  const secrets = options.secrets === undefined ? undefined : Object.fromEntries(
    Object.entries(options.secrets).map((
      [name, secret],
    ): [string, SecretConfig] => [name, { hosts: [...secret.hosts], value: secret.value }]),
  );
  return {
    token,
    allowNet: [...options.allowNet],
    timeout: options.timeout ?? "30m",
    ...(org === undefined || org === "" ? {} : { org }),
    ...(endpoint === undefined || endpoint === "" ? {} : { endpoint }),
    ...(options.region === undefined ? {} : { region: options.region }),
    ...(options.memory === undefined ? {} : { memoryMiB: options.memory }),
    ...(secrets === undefined ? {} : { secrets }),
    ...(options.labels === undefined ? {} : { labels: options.labels }),
  };
}

/**
 * The provider: routes each session to its own sandbox ({@linkcode DenoSandboxExecutor.forSession});
 * its own methods act on the {@linkcode DEFAULT_SESSION}. Create it with
 * {@linkcode denoSandboxExecutor}.
 */
export class DenoSandboxExecutor implements Executor {
  /** `"deno-sandbox"`. */
  readonly kind: string = PROVIDER;
  /** The sandbox's paths are not this machine's. */
  readonly hostFiles: boolean = false;
  readonly #settings: LinkSettings;
  readonly #options: DenoSandboxExecutorOptions;
  readonly #roots: readonly string[];
  readonly #sessions = new Map<string, SandboxSessionExecutor>();

  /**
   * Creates the provider (no sandbox yet: each is created on its session's first call).
   *
   * @param options See {@linkcode DenoSandboxExecutorOptions}.
   * @throws {TypeError} On bad options or without a token.
   */
  constructor(options: DenoSandboxExecutorOptions) {
    checkOptions(options);
    this.#options = options;
    this.#settings = linkSettings(options);
    const roots = [options.workspace, ...options.writableRoots ?? []].map((r) =>
      resolvePath(r, "/")
    );
    this.#roots = [...new Set(roots)];
  }

  /** The sessions that have an executor so far. */
  get sessions(): readonly string[] {
    return [...this.#sessions.keys()];
  }

  /**
   * The executor of `sessionId` (one sandbox per session, created on its first call).
   *
   * @param sessionId The session.
   * @returns Its executor (the same object on every call).
   */
  forSession(sessionId: string): SandboxSessionExecutor {
    let session = this.#sessions.get(sessionId);
    if (session !== undefined) return session;
    const onRecord = this.#options.onRecord;
    const link = new SandboxLink(
      sessionId,
      this.#settings,
      (record) => onRecord?.(sessionId, record),
    );
    session = new SandboxSessionExecutor(link, {
      roots: this.#roots,
      env: this.#options.env ?? {},
      ...(this.#options.sync === undefined ? {} : { sync: this.#options.sync }),
      forSession: (id) => this.forSession(id),
    });
    this.#sessions.set(sessionId, session);
    return session;
  }

  get #default(): SandboxSessionExecutor {
    return this.forSession(DEFAULT_SESSION);
  }

  /** Runs `command` in the default session's sandbox. */
  run(command: string, options?: RunOptions): Promise<RunResult> {
    return this.#default.run(command, options);
  }
  /** Starts `program` in the default session's sandbox. */
  spawn(program: string, options?: SpawnOptions): Promise<ExecChild> {
    return this.#default.spawn(program, options);
  }
  /** Reads a file in the default session's sandbox. */
  readFile(path: string): Promise<Uint8Array> {
    return this.#default.readFile(path);
  }
  /** Writes a file in the default session's sandbox. */
  writeFile(path: string, data: string | Uint8Array): Promise<void> {
    return this.#default.writeFile(path, data);
  }
  /** Metadata in the default session's sandbox. */
  stat(path: string): Promise<FileStat | undefined> {
    return this.#default.stat(path);
  }
  /** Lists a directory in the default session's sandbox. */
  readDir(path: string): Promise<DirEntry[]> {
    return this.#default.readDir(path);
  }
  /** Removes a path in the default session's sandbox. */
  remove(path: string, options?: { readonly recursive?: boolean }): Promise<void> {
    return this.#default.remove(path, options);
  }
  /** Opens (creates or reattaches) the default session's sandbox. */
  open(resume?: ExecutorRecord): Promise<ExecutorRecord> {
    return this.#default.open(resume);
  }
  /** Detaches every session's sandbox (each lives on until its timeout). */
  async detach(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((session) => session.detach()));
  }
  /** Destroys every session's sandbox this provider made or reattached. */
  async destroy(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((session) => session.destroy()));
  }
  /** Starts a durable run in the default session's sandbox. */
  startDetached(
    command: string,
    options: { readonly id: string; readonly cwd?: string; readonly env?: Record<string, string> },
  ): Promise<DetachedRun> {
    return this.#default.startDetached(command, options);
  }
  /** Reads a durable run (in the default session's sandbox). */
  readDetached(run: DetachedRun, cursor: number, maxBytes: number): Promise<DetachedRead> {
    return this.#default.readDetached(run, cursor, maxBytes);
  }
  /** Signals a durable run (in the default session's sandbox). */
  killDetached(run: DetachedRun, signal: string): Promise<void> {
    return this.#default.killDetached(run, signal);
  }
}

/**
 * Creates the Deno Sandbox executor (see the module doc). No sandbox is created until a
 * session's first call.
 *
 * @param options The workspace, network allowlist, sizing, lifetime, env, secrets, auth.
 * @returns The provider; `forSession(id)` gives a session's executor.
 * @throws {TypeError} On bad options or without a Deno Deploy token.
 *
 * @example Usage
 * ```ts ignore
 * import { denoSandboxExecutor } from "./deno_sandbox_executor.ts";
 * const executor = denoSandboxExecutor({
 *   workspace: "/home/me/project",
 *   allowNet: ["registry.npmjs.org", "jsr.io"],
 *   memory: 2048,
 *   onRecord: (sessionId, record) => console.log(sessionId, record.id),
 * });
 * const session = executor.forSession("s1");
 * const result = await session.run("deno --version", { cwd: "/home/me/project" });
 * await session.detach(); // the sandbox lives on until its timeout ("30m")
 * ```
 */
export function denoSandboxExecutor(options: DenoSandboxExecutorOptions): DenoSandboxExecutor {
  return new DenoSandboxExecutor(options);
}
