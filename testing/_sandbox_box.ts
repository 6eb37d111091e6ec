/**
 * The stand-in's box: every command of a sandbox runs under bubblewrap with `/` = the sandbox's
 * private host folder, the host's `/usr`, `/etc` (and `/bin`, `/lib`, … when they are folders)
 * read-only, fresh `/proc` and `/dev`, and the host's `deno` binary. The host pid namespace is
 * shared on purpose: a `setsid nohup … &` job started by one spawn stays signalable by pid and
 * process group from the next spawn, as in one VM. A process belongs to a sandbox when its root
 * (`/proc/<pid>/root`) is the sandbox's folder (same device and inode), so destroying the
 * sandbox kills every process that runs in it, detached ones too. (Mount namespace ids are not
 * used: the kernel reuses them once a namespace is freed.)
 *
 * @module
 */
import { dirname, posix } from "node:path";
import { SIGNAL_NAMES, WireFailure } from "./_sandbox_wire.ts";
import { errorMessage } from "../core/error_message.ts";

/** The PATH a command sees by default (the deno binary's folder is appended). */
export const BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/** The home folder (and default cwd) inside a sandbox. */
export const SANDBOX_HOME = "/home/app";

const HOST_DIRS = ["/usr", "/etc"] as const;
const HOST_TOP = ["/bin", "/lib", "/lib64", "/sbin"] as const;

let bwrapChecked: Promise<void> | undefined;

/** Fails with a clear error when the process table is closed to us (Deno opens /proc only to -A). */
export async function ensureProcAccess(): Promise<void> {
  try {
    await Deno.stat("/proc/self/root");
  } catch (error) {
    throw new Error(
      "startSandboxStandIn: cannot read /proc (it finds and kills its box processes there); " +
        `run with -A (Deno grants /proc only with --allow-all): ${errorMessage(error)}`,
    );
  }
}

/** Fails with a clear error when bubblewrap is missing (CI installs it). */
export function ensureBwrap(): Promise<void> {
  bwrapChecked ??= (async () => {
    try {
      const { success } = await new Deno.Command("bwrap", {
        args: ["--version"],
        stdout: "null",
        stderr: "null",
      }).output();
      if (success) return;
    } catch { /* fall through */ }
    bwrapChecked = undefined;
    throw new Error(
      "startSandboxStandIn: bubblewrap ('bwrap') is not on PATH; the stand-in runs every " +
        "sandbox command in a bwrap box (install it: apt-get install bubblewrap)",
    );
  })();
  return bwrapChecked;
}

/** The folder holding the real deno binary (bound read-only at the same path). */
export function denoBinDir(): string {
  return dirname(denoBinary());
}

/** The real deno binary (bound into every box at the same path). */
export function denoBinary(): string {
  return Deno.realPathSync(Deno.execPath());
}

/** Lays out a fresh sandbox root: home, tmp, and the host's top-level symlinks (`/bin` → usr/bin). */
export async function prepareRoot(root: string): Promise<void> {
  await Deno.mkdir(`${root}${SANDBOX_HOME}`, { recursive: true });
  await Deno.mkdir(`${root}/tmp`, { recursive: true });
  await Deno.chmod(`${root}/tmp`, 0o1777);
  for (const top of HOST_TOP) {
    const info = await Deno.lstat(top).catch(() => null);
    if (info?.isSymlink) await Deno.symlink(await Deno.readLink(top), `${root}${top}`);
  }
}

/** Normalizes a remote path (relative paths start at the sandbox home); `..` cannot climb out. */
export function remotePath(path: string, cwd: string = SANDBOX_HOME): string {
  return posix.resolve("/", cwd, path);
}

/** The bwrap arguments that build the box for one command. */
async function boxArgs(root: string, cwd: string, network: boolean): Promise<string[]> {
  // No --die-with-parent: box commands were seen dying of SIGKILL under parallel test load with
  // it (PDEATHSIG follows the spawning thread); the stand-in kills its processes itself.
  const args = ["--bind", root, "/"];
  for (const dir of HOST_DIRS) args.push("--ro-bind", dir, dir);
  for (const top of HOST_TOP) {
    const info = await Deno.lstat(top).catch(() => null);
    if (info?.isDirectory) args.push("--ro-bind", top, top);
  }
  const deno = denoBinDir();
  args.push("--ro-bind", deno, deno, "--proc", "/proc", "--dev", "/dev", "--chdir", cwd);
  if (!network) args.push("--unshare-net");
  return args;
}

/** Where a remote path lives on the host for a command lookup (host binds, else the root). */
function lookupPath(root: string, path: string): string {
  const deno = denoBinDir();
  if (path === deno || path.startsWith(`${deno}/`)) return path;
  for (const dir of [...HOST_DIRS, ...HOST_TOP]) {
    if (path === dir || path.startsWith(`${dir}/`)) return path;
  }
  return `${root}${path}`;
}

async function isExecutable(hostPath: string): Promise<boolean> {
  const info = await Deno.stat(hostPath).catch(() => null);
  return info !== null && info.isFile && ((info.mode ?? 0) & 0o111) !== 0;
}

/** Resolves a command as the box would (PATH search), or fails like Deno's spawn does. */
export async function resolveCommand(
  root: string,
  command: string,
  cwd: string,
  path: string | undefined,
): Promise<void> {
  const candidates = command.includes("/")
    ? [remotePath(command, cwd)]
    : (path ?? "/usr/bin:/bin").split(":").filter((dir) => dir !== "").map((dir) =>
      posix.join(remotePath(dir, cwd), command)
    );
  for (const candidate of candidates) {
    if (await isExecutable(lookupPath(root, candidate))) return;
  }
  throw new WireFailure(
    "NotFound",
    `Failed to spawn '${command}': No such file or directory (os error 2)`,
    "ENOENT",
  );
}

/** A running box process as the stand-in tracks it. */
export interface BoxProcess {
  /** The command's own pid (host pid namespace, shared by the sandbox's processes). */
  readonly pid: number;
  readonly child: Deno.ChildProcess;
  /** Whether bwrap (and so the command itself) has exited. */
  readonly exited: { done: boolean };
  /** Resolves with the SDK's `processWait` result. */
  readonly status: Promise<{ success: boolean; code: number; signal: string | null; oom: null }>;
}

/** The status a bwrap exit code stands for: 128 + n is death by signal n, as a shell shows it. */
function statusOf(code: number): BoxProcess["status"] extends Promise<infer S> ? S : never {
  const signal = code > 128 ? SIGNAL_NAMES[code - 128] ?? null : null;
  return { success: code === 0, code, signal, oom: null };
}

async function childPidOf(bwrapPid: number, exited: { done: boolean }): Promise<number | null> {
  const file = `/proc/${bwrapPid}/task/${bwrapPid}/children`;
  for (let attempt = 0; !exited.done; attempt++) {
    const text = await Deno.readTextFile(file).catch(() => "");
    const first = text.trim().split(/\s+/)[0];
    if (first) return Number(first);
    // bwrap clones its child within moments; yield to the event loop until it shows.
    await new Promise((resolve) => setTimeout(resolve, attempt < 20 ? 0 : 2));
  }
  return null;
}

/** Options for {@linkcode startBoxProcess}. */
export interface BoxSpawn {
  readonly root: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly network: boolean;
}

/** Starts one command in the box and learns its real pid. */
export async function startBoxProcess(spawn: BoxSpawn): Promise<BoxProcess> {
  const child = new Deno.Command("bwrap", {
    args: [
      ...await boxArgs(spawn.root, spawn.cwd, spawn.network),
      "--",
      spawn.command,
      ...spawn.args,
    ],
    clearEnv: true,
    env: spawn.env,
    stdin: spawn.stdin ? "piped" : "null",
    stdout: spawn.stdout ? "piped" : "null",
    stderr: spawn.stderr ? "piped" : "null",
  }).spawn();
  const exited = { done: false };
  const status = child.status.then((s) => {
    exited.done = true;
    return statusOf(s.code);
  });
  const inner = await childPidOf(child.pid, exited);
  return { pid: inner ?? child.pid, child, exited, status };
}

/** A folder's identity (device and inode), which a box process's root shares. */
export interface RootId {
  readonly dev: number;
  readonly ino: number;
}

/** The identity of a sandbox root folder. */
export async function rootIdOf(root: string): Promise<RootId> {
  const info = await Deno.stat(root);
  return { dev: info.dev, ino: info.ino ?? -1 };
}

/** Whether the live process `pid` runs with `root` as its `/`. */
export async function runsIn(pid: number, root: RootId): Promise<boolean> {
  const info = await Deno.stat(`/proc/${pid}/root`).catch(() => null);
  return info !== null && info.dev === root.dev && info.ino === root.ino;
}

/** The pids on this machine whose `/` is the sandbox root. */
async function pidsIn(root: RootId): Promise<number[]> {
  const pids: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    if (await runsIn(Number(entry.name), root)) pids.push(Number(entry.name));
  }
  return pids;
}

/** SIGKILLs every process running in the root until none is left (a forking loop included). */
export async function killAllIn(root: RootId): Promise<void> {
  for (let pass = 0; pass < 50; pass++) {
    const pids = await pidsIn(root);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* already gone */ }
    }
    await new Promise((resolve) => setTimeout(resolve, pass < 5 ? 0 : 5));
  }
}
