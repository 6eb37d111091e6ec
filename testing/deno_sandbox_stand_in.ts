/**
 * A loopback stand-in for the Deno Sandbox service that the UNMODIFIED pinned SDK
 * (`npm:@deno/sandbox@0.13.2`) talks to when `DENO_SANDBOX_ENDPOINT` (or the `sandboxEndpoint`
 * option) points at it. Each sandbox gets its own private host folder as `/`, and its commands
 * run in a bubblewrap box, so tests drive a remote executor offline, with real processes and
 * real files.
 *
 * Emulated wire (server side of the SDK's `transport.ts`, `sandbox.ts`, `fs.ts`, `stream.ts`):
 * - WebSocket upgrades at `/api/v3/sandboxes/create` (config from the base64 JSON header
 *   `x-deno-sandbox-config`; the id answered in `x-deno-sandbox-id`) and
 *   `/api/v3/sandbox/{id}/connect`; `authorization: Bearer <token>` is checked (a wrong token is
 *   a 401 `INVALID_TOKEN`, which the SDK turns into `InvalidTokenError`); an unknown, killed,
 *   expired or forgotten id is a 404 `SANDBOX_NOT_FOUND` (`ConnectionEstablishmentError`,
 *   `status` 404);
 * - `"ping"` → `"pong"`; JSON-RPC `spawn`, `processWait`, `processKill` (per pid), `envGet`,
 *   `envSet`, `envToObject`, `envDelete`, `abort` (accepted, no effect); `spawnDeno`
 *   (`sandbox.deno.run({ code | entrypoint })` as `deno run -A` in the box, no watch) with
 *   `denoHttpWait` (answers `false` when the process ends: no HTTP routing);
 * - fs: `readFile`, `readTextFile`, `writeFile`, `writeTextFile` (inline or streamed content),
 *   `stat`, `lstat`, `readDir`, `mkdir`, `remove`, `rename`, `copyFile`, `chmod`, `symlink`,
 *   `readLink`, `realPath`, `truncate`, `makeTempDir`, `makeTempFile`, `walk` (so `download`
 *   works), and file handles (`open`, `create`, `fileRead`, `fileWrite`, `fileSeek`, `fileStat`,
 *   `fileTruncate`, `fileSync`, `fileSyncData`, `fileClose`);
 * - streams `$sandbox.stream.start/enqueue/end/error/cancel` both ways (stdout and stderr out,
 *   stdin and file contents in);
 * - `DELETE /api/v3/sandbox/{id}` (kill: every process, then the folder) and
 *   `PATCH /api/v3/sandbox/{id}` (`{ stop_at_ms }`, answered with the new stop time).
 *
 * Not emulated: `fetch`, `exposeHttp`/`exposeSsh`/`exposeVscode`, `deno.eval`/`deno.repl`
 * (`spawnDenoRepl`, `denoRepl*`), `expandGlob`, `link`, `utime`, `chown`, `umask`, file locks, the
 * console API (apps, volumes, snapshots), labels and volumes (recorded only), memory limits,
 * `allowNet` filtering (an empty or missing list unshares the network, a non-empty one shares
 * the host's), and `secrets` substitution (the config is recorded so tests can assert what was
 * sent; no value ever reaches a command). Unknown methods answer JSON-RPC -32601 (`RpcError`).
 *
 * Semantics: the default cwd and `HOME` is `/home/app`, and relative fs paths start there;
 * processes outlive their WebSocket (the pid namespace is the host's, so a detached
 * `setsid nohup … &` job can be signalled by pid or process group from a later spawn, as in one
 * VM); output of a process whose connection is gone is discarded. `timeout: "session"` ends the
 * sandbox when its last connection closes; `"<n>s"`/`"<n>m"` end it at `stop_at_ms`. An exit
 * code of 128 + n is reported as death by signal n (bwrap passes the shell's convention on).
 * The fs methods see only the sandbox folder: the host `/usr` and `/etc` bound into the box are
 * visible to commands, not to `readFile`. Clients reach the server through a TCP pass-through,
 * so a dropped connection is a real cut without a close frame: the SDK sees code 1006 and
 * rejects the pending calls with `ConnectionClosedError`, as on a network drop. A timeout closes
 * with 1001, a kill with 1000, a forgotten sandbox with 1011.
 *
 * The box gives each sandbox its own files for test fidelity; it is not a security boundary:
 * commands run as root in the host's pid namespace (a determined command can reach the host
 * through `/proc/<pid>/root`). Never point untrusted code at the stand-in.
 *
 * @example Usage
 * ```ts
 * import { startSandboxStandIn } from "./deno_sandbox_stand_in.ts";
 * import { Sandbox } from "@deno/sandbox";
 * import { equal } from "node:assert/strict";
 *
 * await using standIn = await startSandboxStandIn();
 * const options = { sandboxEndpoint: standIn.endpoint, token: standIn.token };
 * await using sandbox = await Sandbox.create({ ...options, allowNet: [], timeout: "5m" });
 * const child = await sandbox.spawn("bash", {
 *   args: ["-c", "echo hi > note.txt; cat note.txt"],
 *   stdout: "piped",
 *   stderr: "piped",
 * });
 * equal((await child.output()).stdoutText, "hi\n");
 * equal(await Deno.readTextFile(standIn.path(sandbox.id, "/home/app/note.txt")), "hi\n");
 * ```
 *
 * @module
 */
import { ensureBwrap, ensureProcAccess, remotePath } from "./_sandbox_box.ts";
import { type DropRule, StandInConnection } from "./_sandbox_conn.ts";
import {
  type StandInEndReason,
  StandInSandbox,
  type StandInSpawnRecord,
} from "./_sandbox_state.ts";
import { DropProxy } from "./_sandbox_proxy.ts";
import { newSandboxId } from "./_sandbox_wire.ts";

export type { StandInEndReason, StandInSpawnRecord } from "./_sandbox_state.ts";

/** Options for {@linkcode startSandboxStandIn}. */
export interface SandboxStandInOptions {
  /** The host folder that holds every sandbox's root. @default {a fresh temp folder} */
  readonly rootDir?: string;
  /** The token the stand-in accepts (`ddo_` tokens need no org). @default {a random `ddo_…`} */
  readonly token?: string;
  /** The region in sandbox ids (`sbx_<region>_…`). @default {"ord"} */
  readonly region?: string;
}

/** What a test may inspect about one sandbox. */
export interface StandInSandboxInfo {
  /** The sandbox id. */
  readonly id: string;
  /** The decoded create config (`stop_at_ms`, `memory_mb`, `allow_net`, `secrets`, `labels`, …). */
  readonly config: Readonly<Record<string, unknown>>;
  /** The `X-Deno-Org` header of the create call, or null. */
  readonly org: string | null;
  /** The sandbox-wide env now (what `Sandbox.create({ env })` and `sandbox.env.set` sent). */
  readonly env: Readonly<Record<string, string>>;
  /** Every `envSet` call in order, even of keys deleted since (what ever reached the sandbox). */
  readonly envSets: readonly { readonly key: string; readonly value: string }[];
  /** Every spawn: command, args, cwd and the exact env it started with. */
  readonly spawns: readonly StandInSpawnRecord[];
  /** Every JSON-RPC method called, in order. */
  readonly calls: readonly string[];
  /** The stop time (ms since epoch), or null for a `session` sandbox. */
  readonly stopAtMs: number | null;
  /** Open WebSocket connections. */
  readonly connections: number;
  /** Why it ended, or null while it lives. */
  readonly ended: StandInEndReason | null;
}

/** Options for {@linkcode SandboxStandIn.dropOnNextCall}. */
export interface DropOptions {
  /** Only a call on this sandbox. @default {any sandbox} */
  readonly sandboxId?: string;
  /** Run the call, then drop before the answer (the effect happens, the answer is lost). @default {false} */
  readonly afterRunning?: boolean;
}

/** A running stand-in (see {@linkcode startSandboxStandIn}). */
export interface SandboxStandIn extends AsyncDisposable {
  /** The URL for `DENO_SANDBOX_ENDPOINT` / the SDK's `sandboxEndpoint` (no trailing slash). */
  readonly endpoint: string;
  /** A `DENO_DEPLOY_TOKEN` the stand-in accepts. */
  readonly token: string;
  /** The host folder holding the sandboxes' roots. */
  readonly rootDir: string;
  /** Every sandbox ever created (ended ones too), oldest first. */
  sandboxes(): StandInSandboxInfo[];
  /** Resolves when the sandbox has ended (its processes dead, its folder removed). */
  ended(id: string): Promise<StandInEndReason>;
  /** The host path of a sandbox's remote path (relative paths start at `/home/app`). */
  path(id: string, remotePath: string): string;
  /** Closes the WebSocket connections (of one sandbox, or all) now; sandboxes live on. */
  dropConnections(id?: string): void;
  /** The next call of `method` closes its connection (before running it, or before answering). */
  dropOnNextCall(method: string, options?: DropOptions): void;
  /** The service loses the sandbox: processes die, the folder goes, reattach gets a 404. */
  forget(id: string): Promise<void>;
  /** The sandbox's timeout fires now (as when `stop_at_ms` passes). */
  expire(id: string): Promise<void>;
  /** Ends every sandbox and stops the server. */
  close(): Promise<void>;
}

function jsonError(status: number, code: string, message: string): Response {
  return Response.json({ code, message }, { status });
}

function decodeConfig(header: string | null): Record<string, unknown> | null {
  if (header === null) return {};
  try {
    const value = JSON.parse(atob(header));
    return typeof value === "object" && value !== null ? value : null;
  } catch {
    return null;
  }
}

function info(sandbox: StandInSandbox): StandInSandboxInfo {
  return {
    id: sandbox.id,
    config: sandbox.config,
    org: sandbox.org,
    env: Object.fromEntries(sandbox.env),
    envSets: sandbox.envSets.map((set) => ({ ...set })),
    spawns: [...sandbox.spawns],
    calls: [...sandbox.calls],
    stopAtMs: sandbox.stopAtMs,
    connections: sandbox.connections.size,
    ended: sandbox.ended,
  };
}

/**
 * Starts the stand-in on a random loopback port. Needs `-A` (it reads `/proc`), bubblewrap
 * (`bwrap`) on PATH and root (or unprivileged user namespaces); fails with a clear error
 * otherwise.
 *
 * @param options Root folder, token, region.
 * @returns The running stand-in; `close()` (or `await using`) ends it.
 *
 * @example Usage
 * ```ts
 * import { startSandboxStandIn } from "./deno_sandbox_stand_in.ts";
 * import { Sandbox } from "@deno/sandbox";
 * import { deepEqual, rejects } from "node:assert/strict";
 *
 * await using standIn = await startSandboxStandIn();
 * // The SDK reads these per call (or pass `sandboxEndpoint` and `token` as options).
 * Deno.env.set("DENO_SANDBOX_ENDPOINT", standIn.endpoint);
 * Deno.env.set("DENO_DEPLOY_TOKEN", standIn.token);
 * const sandbox = await Sandbox.create({ allowNet: [], timeout: "10m" });
 * deepEqual(standIn.sandboxes()[0]?.config.allow_net, []);
 * await sandbox.close();
 * // Fault switch: the service loses the sandbox; reattaching is a 404.
 * await standIn.forget(sandbox.id);
 * await rejects(Sandbox.connect(sandbox.id), /not found/);
 * Deno.env.delete("DENO_SANDBOX_ENDPOINT");
 * Deno.env.delete("DENO_DEPLOY_TOKEN");
 * ```
 */
export async function startSandboxStandIn(
  options: SandboxStandInOptions = {},
): Promise<SandboxStandIn> {
  await ensureProcAccess();
  await ensureBwrap();
  const ownRoot = options.rootDir === undefined;
  const rootDir = await Deno.realPath(
    options.rootDir ?? await Deno.makeTempDir({ prefix: "dsh-sandbox-stand-in-" }),
  );
  const token = options.token ?? `ddo_standin_${crypto.randomUUID().replaceAll("-", "")}`;
  const region = options.region ?? "ord";
  const all = new Map<string, StandInSandbox>();
  const live = new Map<string, StandInSandbox>();
  const drops: DropRule[] = [];
  const host = {
    takeDrop(method: string, sandboxId: string): DropRule | undefined {
      const index = drops.findIndex((rule) =>
        rule.method === method && (rule.sandboxId === undefined || rule.sandboxId === sandboxId)
      );
      return index < 0 ? undefined : drops.splice(index, 1)[0];
    },
  };
  const state: RouterState = { token, region, rootDir, all, live, host, cut: () => false };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, router(state));
  const proxy = DropProxy.start(server.addr.port);
  state.cut = (port) => proxy.drop(port);
  const endpoint = `http://127.0.0.1:${proxy.port}`;
  const known = (id: string) => {
    const sandbox = all.get(id);
    if (sandbox === undefined) throw new Error(`stand-in: no sandbox '${id}'`);
    return sandbox;
  };
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await Promise.all([...live.values()].map((sandbox) => sandbox.end("closed")));
    await proxy.close();
    await server.shutdown();
    if (ownRoot) await Deno.remove(rootDir, { recursive: true }).catch(() => {});
  };
  return {
    endpoint,
    token,
    rootDir,
    sandboxes: () => [...all.values()].map(info),
    ended: (id) => known(id).gone,
    path: (id, path) => `${known(id).root}${remotePath(path)}`,
    dropConnections: (id) => {
      const targets = id === undefined ? [...live.values()] : [known(id)];
      for (const sandbox of targets) {
        for (const connection of [...sandbox.connections]) connection.drop("connection dropped");
      }
    },
    dropOnNextCall: (method, drop = {}) => {
      drops.push({ method, sandboxId: drop.sandboxId, afterRunning: drop.afterRunning === true });
    },
    forget: (id) => known(id).end("forgotten"),
    expire: (id) => known(id).end("timeout"),
    close,
    [Symbol.asyncDispose]: close,
  };
}

interface RouterState {
  readonly token: string;
  readonly region: string;
  readonly rootDir: string;
  readonly all: Map<string, StandInSandbox>;
  readonly live: Map<string, StandInSandbox>;
  readonly host: { takeDrop(method: string, sandboxId: string): DropRule | undefined };
  /** Cuts the proxied TCP connection the server sees from this remote port. */
  cut: (remotePort: number) => boolean;
}

type Handler = (request: Request, info: Deno.ServeHandlerInfo) => Promise<Response>;

function router(state: RouterState): Handler {
  return async (request, info) => {
    const remotePort = (info.remoteAddr as Deno.NetAddr).port;
    const url = new URL(request.url);
    if (request.headers.get("authorization") !== `Bearer ${state.token}`) {
      return jsonError(401, "INVALID_TOKEN", "The access token is invalid or expired (stand-in)");
    }
    if (url.pathname === "/api/v3/sandboxes/create") {
      return await create(request, state, remotePort);
    }
    const match = /^\/api\/v3\/sandbox\/([^/]+)(\/connect)?$/.exec(url.pathname);
    if (match === null) return jsonError(404, "NOT_FOUND", `No route ${url.pathname} (stand-in)`);
    const id = match[1]!;
    const sandbox = state.live.get(id);
    if (sandbox === undefined) {
      return jsonError(404, "SANDBOX_NOT_FOUND", `Sandbox ${id} not found or no longer running`);
    }
    if (match[2] !== undefined) return upgrade(request, sandbox, state, remotePort);
    if (request.method === "DELETE") {
      await sandbox.end("killed");
      return Response.json({});
    }
    if (request.method === "PATCH") {
      const body = await request.json().catch(() => null) as { stop_at_ms?: unknown } | null;
      if (typeof body?.stop_at_ms !== "number") {
        return jsonError(400, "INVALID_BODY", "PATCH needs { stop_at_ms: number }");
      }
      return Response.json({ stop_at_ms: sandbox.extend(body.stop_at_ms) });
    }
    return jsonError(405, "METHOD_NOT_ALLOWED", `${request.method} ${url.pathname} (stand-in)`);
  };
}

async function create(
  request: Request,
  state: RouterState,
  remotePort: number,
): Promise<Response> {
  const config = decodeConfig(request.headers.get("x-deno-sandbox-config"));
  if (config === null) {
    return jsonError(400, "INVALID_CONFIG", "x-deno-sandbox-config is not base64 JSON");
  }
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
    return jsonError(400, "UPGRADE_REQUIRED", "Expected a WebSocket upgrade");
  }
  const id = newSandboxId(state.region);
  const org = request.headers.get("x-deno-org");
  const sandbox = new StandInSandbox(id, `${state.rootDir}/${id}`, config, org, (ended) => {
    state.live.delete(ended.id);
  });
  await sandbox.prepare();
  state.all.set(id, sandbox);
  state.live.set(id, sandbox);
  return upgrade(request, sandbox, state, remotePort);
}

function upgrade(
  request: Request,
  sandbox: StandInSandbox,
  state: RouterState,
  remotePort: number,
): Response {
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
    return jsonError(400, "UPGRADE_REQUIRED", "Expected a WebSocket upgrade");
  }
  const { socket, response } = Deno.upgradeWebSocket(request);
  const connection = new StandInConnection(
    socket,
    sandbox,
    state.host,
    () => state.cut(remotePort),
  );
  sandbox.connections.add(connection);
  response.headers.set("x-deno-sandbox-id", sandbox.id);
  return response;
}
