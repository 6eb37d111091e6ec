/**
 * Containment of tool process trees: each command runs as the child of a tiny init in its own
 * PID namespace (`unshare --pid --fork --kill-child --mount-proc`), so no descendant can outlive
 * its run, not even one that called `setsid`, double-forked and cleared its environment. When the
 * init exits or is killed, the kernel kills every process left in the namespace. `setpriv
 * --pdeathsig KILL` in front ties the namespace to this process: it dies even if this process is
 * killed with SIGKILL.
 *
 * As root the namespace needs no user namespace. A normal user gets one with
 * `--map-current-user` (the same uid inside). Without either (no `unshare`, no permission, user
 * namespaces disabled) runs fall back to process-group and environment-marker tracking, which a
 * double-forked daemon with a cleared environment can escape; {@linkcode probeContainment} says
 * why.
 *
 * Every executor registers its live trees in a {@linkcode LiveTrees} set (one per harness), so a
 * shutdown can take them all down at once.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";

/** How tool processes are contained. */
export type ContainmentKind = "pid-namespace" | "user-pid-namespace" | "none";

/** The result of {@linkcode probeContainment}. */
export interface Containment {
  /** `pid-namespace` (root), `user-pid-namespace` (a normal user) or `none`. */
  readonly kind: ContainmentKind;
  /**
   * The argv placed in front of the command (after `setsid`). It ends with the init that runs
   * the command as its child: `[..., "sh", "-c", INIT, "dsh-init"]`. Empty for `none`.
   */
  readonly prefix: readonly string[];
  /** Why no namespace is available (`none` only). */
  readonly reason?: string;
}

/**
 * The init script (pid 1 of the namespace). It runs the command in the foreground, so the
 * command keeps normal signal dispositions (an asynchronous list would ignore SIGINT), and exits
 * with its status (`128 + n` after signal `n`). Its own stderr is silenced (no "Terminated" job
 * report), the command keeps the original one. pid 1 ignores signals it has no handler for, so
 * SIGTERM to the process group reaches the command only; SIGKILL from outside ends the namespace.
 */
const INIT_SCRIPT = 'exec 3>&2 2>/dev/null; (exec "$@" 2>&3 3>&-); exit "$?"';

const UNSHARE_ROOT = ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--"];
const UNSHARE_USER = [
  "unshare",
  "--user",
  "--map-current-user",
  "--pid",
  "--fork",
  "--kill-child",
  "--mount-proc",
  "--",
];
const PDEATHSIG = ["setpriv", "--pdeathsig", "KILL", "--"];
const INIT = ["sh", "-c", INIT_SCRIPT, "dsh-init"];
/**
 * Inside the namespace, before the init: no capability survives the exec (root included), so
 * root cannot unmount the fresh `/proc` to reach the host's one underneath.
 */
const NO_CAPS = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all", "--"];

/**
 * The isolation's outer shell, the process its caller sees: the namespace runs as its foreground
 * child, so a SIGTERM or SIGKILL to it ends it (a non-interactive shell does not ignore SIGTERM,
 * unlike `unshare`), and with it the namespace (the parent-death signal).
 */
const OUTER = ["sh", "-c", '"$@"; exit "$?"', "dsh-isolate"];

let probed: Promise<Containment> | undefined;
let probedIsolation: Promise<Containment> | undefined;

async function works(argv: readonly string[]): Promise<string | undefined> {
  try {
    const output = await new Deno.Command(argv[0]!, {
      args: [...argv.slice(1), "true"],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (output.success) return undefined;
    const stderr = new TextDecoder().decode(output.stderr).trim().slice(0, 200);
    return `"${argv.join(" ")} true" exited with code ${output.code}${
      stderr ? ` (${stderr})` : ""
    }`;
  } catch (error) {
    return `cannot run "${argv[0]}": ${errorMessage(error)}`;
  }
}

async function probe(isolate = false): Promise<Containment> {
  const pdeathsig = await works(PDEATHSIG) === undefined ? PDEATHSIG : [];
  const root = isolate ? isolationPrefix(true) : [...UNSHARE_ROOT, ...INIT];
  const user = [...UNSHARE_USER, ...INIT];
  const outer = isolate ? [...pdeathsig, ...OUTER] : [];
  const rootFailure = await works([...pdeathsig, ...root.slice(0, -INIT.length)]);
  if (rootFailure === undefined) {
    return { kind: "pid-namespace", prefix: [...outer, ...pdeathsig, ...root] };
  }
  const userFailure = await works([...pdeathsig, ...UNSHARE_USER]);
  if (userFailure === undefined) {
    return { kind: "user-pid-namespace", prefix: [...outer, ...pdeathsig, ...user] };
  }
  return {
    kind: "none",
    prefix: [],
    reason: `no PID namespace for tool processes: ${rootFailure}; ${userFailure}`,
  };
}

/**
 * Finds out once per process which containment works here (two or three short probes on first
 * use; later calls share the answer).
 *
 * @returns The containment.
 *
 * @example Usage
 * ```ts
 * import { probeContainment } from "./process_containment.ts";
 * import { ok } from "node:assert/strict";
 * const containment = await probeContainment();
 * ok(["pid-namespace", "user-pid-namespace", "none"].includes(containment.kind));
 * ```
 */
export function probeContainment(): Promise<Containment> {
  return probed ??= probe();
}

/** Linux signal numbers, for statuses the namespace init reports as `128 + n`. */
const SIGNALS: readonly string[] = [
  "",
  "SIGHUP",
  "SIGINT",
  "SIGQUIT",
  "SIGILL",
  "SIGTRAP",
  "SIGABRT",
  "SIGBUS",
  "SIGFPE",
  "SIGKILL",
  "SIGUSR1",
  "SIGSEGV",
  "SIGUSR2",
  "SIGPIPE",
  "SIGALRM",
  "SIGTERM",
  "SIGSTKFLT",
  "SIGCHLD",
  "SIGCONT",
  "SIGSTOP",
  "SIGTSTP",
  "SIGTTIN",
  "SIGTTOU",
  "SIGURG",
  "SIGXCPU",
  "SIGXFSZ",
  "SIGVTALRM",
  "SIGPROF",
  "SIGWINCH",
  "SIGIO",
  "SIGPWR",
  "SIGSYS",
];

/**
 * The signal a contained command died of, from the status its init (or a shell in front of it)
 * exits with: `128 + n` for signal `n`.
 *
 * @param code The exit code.
 * @returns The signal name (`"SIGTERM"`), or `undefined` for an ordinary exit code.
 *
 * @example Usage
 * ```ts
 * import { initStatusSignal } from "./process_containment.ts";
 * import { equal } from "node:assert/strict";
 * equal(initStatusSignal(143), "SIGTERM");
 * equal(initStatusSignal(1), undefined);
 * ```
 */
export function initStatusSignal(code: number): string | undefined {
  return code > 128 ? SIGNALS[code - 128] || undefined : undefined;
}

/**
 * The namespace part of {@linkcode probeIsolation}'s prefix (without the outer shell and the
 * parent-death signal): as root, a PID and mount namespace with a fresh `/proc` and every
 * capability dropped; as a normal user, the same inside a user namespace of its own (whose
 * capabilities end at the exec of the init, the uid not being 0 there).
 *
 * @param asRoot The root variant.
 * @returns The argv to put in front of a command.
 *
 * @example Usage
 * ```ts
 * import { isolationPrefix } from "./process_containment.ts";
 * import { ok } from "node:assert/strict";
 * ok(isolationPrefix(false).includes("--user"));
 * ```
 */
export function isolationPrefix(asRoot: boolean): string[] {
  return asRoot ? [...UNSHARE_ROOT, ...NO_CAPS, ...INIT] : [...UNSHARE_USER, ...INIT];
}

/**
 * Like {@linkcode probeContainment}, for programs that must not see the agent: the namespace
 * gets a fresh `/proc` (no `/proc/<agent pid>/environ`), and as root every capability is dropped
 * before the init runs, so the fresh `/proc` cannot be unmounted. The prefix starts with a shell
 * whose pid the caller sees: a signal to it ends the whole namespace (its status is then
 * `128 + n`, see {@linkcode initStatusSignal}). Used for MCP stdio servers.
 *
 * @returns The containment.
 *
 * @example Usage
 * ```ts
 * import { probeIsolation } from "./process_containment.ts";
 * import { ok } from "node:assert/strict";
 * const isolation = await probeIsolation();
 * ok(["pid-namespace", "user-pid-namespace", "none"].includes(isolation.kind));
 * ```
 */
export function probeIsolation(): Promise<Containment> {
  return probedIsolation ??= probe(true);
}

/**
 * The name (`$0`) of the launcher shell in front of a program: `sh -c SCRIPT dsh-launch
 * PROGRAM…` (the sandbox opens its seccomp program this way). {@linkcode ownsPidNamespace} looks
 * through it.
 */
export const LAUNCHER_NAME = "dsh-launch";

/**
 * Whether an argv already runs its command in a PID namespace that dies with its parent
 * (bubblewrap with `--unshare-pid` or `--unshare-all`, and `--die-with-parent`), so no extra
 * containment is needed.
 *
 * @param argv The program and its arguments.
 * @returns True for such a bubblewrap argv.
 *
 * @example Usage
 * ```ts
 * import { ownsPidNamespace } from "./process_containment.ts";
 * import { equal } from "node:assert/strict";
 * equal(ownsPidNamespace(["bwrap", "--unshare-pid", "--die-with-parent", "--", "sh"]), true);
 * equal(ownsPidNamespace(["bash", "-c", "true"]), false);
 * // The sandbox's launcher shell in front is looked through.
 * const bwrap = ["bwrap", "--unshare-pid", "--die-with-parent", "--", "sh"];
 * equal(ownsPidNamespace(["sh", "-c", 'exec "$@"', "dsh-launch", ...bwrap]), true);
 * ```
 */
export function ownsPidNamespace(argv: readonly string[]): boolean {
  if (argv[0]?.split("/").at(-1) === "sh" && argv[1] === "-c" && argv[3] === LAUNCHER_NAME) {
    return ownsPidNamespace(argv.slice(4));
  }
  const program = argv[0]?.split("/").at(-1);
  if (program !== "bwrap") return false;
  const end = argv.indexOf("--");
  const options = end < 0 ? argv : argv.slice(0, end);
  return (options.includes("--unshare-pid") || options.includes("--unshare-all")) &&
    options.includes("--die-with-parent");
}

/** A live process tree a spawning layer registered. */
export interface LiveTree {
  /** Kills the whole tree at once (SIGKILL) and resolves when it is gone or cannot be helped. */
  kill(): Promise<void>;
}

/**
 * The live process trees of one harness (one agent binary, one embedder): an executor registers
 * each tree it starts here, and a shutdown kills them all at once with
 * {@linkcode LiveTrees.killAll}. Owned by whoever creates the executors; two harnesses in one
 * process keep separate sets (there is no process-wide registry).
 *
 * @example Usage
 * ```ts
 * import { LiveTrees } from "./process_containment.ts";
 * import { deepEqual } from "node:assert/strict";
 * const trees = new LiveTrees();
 * const killed: string[] = [];
 * const release = trees.register({ kill: () => Promise.resolve(void killed.push("a")) });
 * await trees.killAll();
 * release();
 * await trees.killAll();
 * deepEqual(killed, ["a"]);
 * ```
 */
export class LiveTrees {
  readonly #trees = new Set<LiveTree>();

  /** How many trees are registered. */
  get size(): number {
    return this.#trees.size;
  }

  /**
   * Registers a live tree until the returned function is called.
   *
   * @param tree The tree's hard kill.
   * @returns Unregisters the tree.
   */
  register(tree: LiveTree): () => void {
    this.#trees.add(tree);
    return () => void this.#trees.delete(tree);
  }

  /**
   * Kills every registered tree at once with SIGKILL (the shutdown path: no grace). Never throws.
   *
   * @returns Resolves when every kill finished.
   */
  async killAll(): Promise<void> {
    await Promise.all([...this.#trees].map((tree) => tree.kill().catch(() => {})));
  }
}
