/**
 * Private to bench/editor_bench.ts: a raw JSON-RPC client over the agent's stdio (what an editor
 * is), the agent started the way `deno task agent` starts it, in temp HOME/XDG dirs so the bench
 * never touches the user's own, plus the statistics the rows print.
 *
 * @module
 */

/** The repository root. */
export const ROOT: string = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** The `agent` task's permission flags (see deno.json). */
export const AGENT_FLAGS: readonly string[] = [
  "--allow-read",
  "--allow-env",
  "--allow-run=deno,bash",
];

/** A temp HOME with its XDG dirs, and Deno's cache kept where it is. */
export interface BenchHome {
  readonly path: string;
  readonly env: Record<string, string>;
  /** `$XDG_CONFIG_HOME/dsh`: the user-level (trusted) config folder. */
  readonly userConfigDir: string;
}

/** Creates a temp HOME; nothing outside it is written by the agent. */
export async function benchHome(denoDir: string): Promise<BenchHome> {
  const path = await Deno.makeTempDir({ prefix: "dsh_editor_home_" });
  const env = {
    HOME: path,
    XDG_CONFIG_HOME: `${path}/.config`,
    XDG_STATE_HOME: `${path}/.local/state`,
    XDG_CACHE_HOME: `${path}/.cache`,
    DENO_DIR: denoDir,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    DSH_LOG_LEVEL: "warn",
    NO_COLOR: "1",
  };
  await Deno.mkdir(`${env.XDG_CONFIG_HOME}/dsh`, { recursive: true });
  return { path, env, userConfigDir: `${env.XDG_CONFIG_HOME}/dsh` };
}

/** Grants the workspace's dsh.jsonc with the real trust command (its plugins need it). */
export async function trustWorkspace(home: BenchHome, ws: string): Promise<void> {
  const launch = `${ROOT}/acp/launch.ts`;
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...AGENT_FLAGS, launch, "trust", "--yes", ws],
    cwd: ws,
    env: home.env,
    clearEnv: true,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(`trust failed: ${new TextDecoder().decode(stderr)}`);
}

/** Deno's cache folder (so a temp HOME does not mean a cold cache). */
export async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir as string;
}

/** A JSON-RPC message as read from the agent. */
export type Frame = Record<string, unknown>;

/** One agent process and a raw client on its stdio. */
export interface RawAgent {
  readonly child: Deno.ChildProcess;
  /** Every notification received. */
  readonly notifications: Frame[];
  /** Sends a request; resolves with the whole response frame. */
  request(method: string, params: unknown): Promise<Frame>;
  /** Its stderr so far. */
  stderr(): string;
  /** Closes stdin and waits for the exit. */
  close(): Promise<void>;
}

/** Spawns `command args` and speaks JSON-RPC over its stdio. */
export function rawAgent(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): RawAgent {
  const child = new Deno.Command(command, {
    args: [...args],
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const pending = new Map<number, (frame: Frame) => void>();
  const notifications: Frame[] = [];
  let errText = "";
  void (async () => {
    let buffer = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
        const frame = JSON.parse(buffer.slice(0, i)) as Frame;
        buffer = buffer.slice(i + 1);
        const id = frame.id as number | undefined;
        if (id !== undefined && "method" in frame) {
          // A permission request: allow once, as a user clicking through would.
          void writer.write(encode({ jsonrpc: "2.0", id, result: allowOnce(frame) }));
        } else if (id !== undefined) {
          pending.get(id)?.(frame);
          pending.delete(id);
        } else notifications.push(frame);
      }
    }
  })().catch(() => {});
  void (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) errText += chunk;
  })().catch(() => {});
  let next = 1;
  return {
    child,
    notifications,
    request(method, params) {
      const id = next++;
      const answer = new Promise<Frame>((resolve) => pending.set(id, resolve));
      void writer.write(encode({ jsonrpc: "2.0", id, method, params }));
      return answer;
    },
    stderr: () => errText,
    async close() {
      await writer.close().catch(() => {});
      await child.status;
    },
  };
}

function allowOnce(frame: Frame): unknown {
  const options = (frame.params as { options?: { optionId: string; kind: string }[] })?.options;
  const allow = options?.find((o) => o.kind === "allow_once") ?? options?.[0];
  return { outcome: { outcome: "selected", optionId: allow?.optionId ?? "allow" } };
}

function encode(frame: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(frame) + "\n");
}

/** The `agent` task's entry (launch.ts before dsh_agent.ts existed: the bench runs on both). */
export const DEFAULT_ENTRY: string = (() => {
  try {
    Deno.statSync(`${ROOT}/acp/dsh_agent.ts`);
    return "dsh_agent.ts";
  } catch {
    return "launch.ts";
  }
})();

/** Starts the agent as `deno task agent` does (the launcher, the task's flags). */
export function startAgent(
  ws: string,
  home: BenchHome,
  options: { entry?: string; args?: readonly string[] } = {},
): RawAgent {
  const entry = `${ROOT}/acp/${options.entry ?? DEFAULT_ENTRY}`;
  return rawAgent(Deno.execPath(), ["run", ...AGENT_FLAGS, entry, ...(options.args ?? [])], {
    cwd: ws,
    env: { ...home.env, INIT_CWD: ws },
  });
}

/** Throws with the agent's error when a response is one. */
export function ok(frame: Frame, what: string): Record<string, unknown> {
  if (frame.error !== undefined) throw new Error(`${what}: ${JSON.stringify(frame.error)}`);
  return frame.result as Record<string, unknown>;
}

/** The agent process under the launcher (bash execs deno in place). */
export function agentPid(launcher: number): number | undefined {
  for (const task of Deno.readDirSync(`/proc/${launcher}/task`)) {
    const children = Deno.readTextFileSync(`/proc/${launcher}/task/${task.name}/children`).trim();
    if (children !== "") return Number(children.split(" ")[0]);
  }
  return undefined;
}

/** VmRSS of a process, in MB. */
export function rssMb(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** The median of `values`. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** `ms` with a unit that fits. */
export function fmt(ms: number): string {
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  return ms < 100 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(0)} ms`;
}

/** Waits until `check` returns a value (polling every 5 ms), or throws after `ms`. */
export async function until<T>(what: string, check: () => T | undefined, ms = 60_000): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (performance.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
