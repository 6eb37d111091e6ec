/**
 * The bubblewrap command line of the sandboxed executor (see `sandbox.ts` for the levels and
 * what they hold): the hidden credential paths, the masked runtime and `/proc` paths, and
 * {@linkcode bwrapArgs}, which turns a resolved {@linkcode BwrapProfile} into flags.
 *
 * @module
 */
import { LAUNCHER_NAME } from "../jobs/process_containment.ts";
import { socketFilter } from "./_seccomp.ts";

/**
 * Credential files and folders hidden inside the sandbox (`~` is `$HOME`): ssh and gpg keys,
 * cloud and cluster credentials, registry and package-manager tokens, git credentials, password
 * stores, browser profiles, editor and coding-agent configs that hold API keys, shell and REPL
 * histories (commands typed with passwords), dsh's own user config and state folders, and the
 * system secrets only root can read (password hashes, ssh host keys), which a box run as root
 * would otherwise see. A folder shows empty, a file shows as `/dev/null`.
 */
export const DEFAULT_HIDDEN_PATHS: readonly string[] = [
  // Keys and agents.
  "~/.ssh",
  "~/.gnupg",
  "~/.password-store",
  "~/.local/share/keyrings",
  "~/.config/op",
  // Cloud, cluster and infrastructure CLIs.
  "~/.aws",
  "~/.azure",
  "~/.config/gcloud",
  "~/.kube",
  "~/.oci",
  "~/.config/doctl",
  "~/.config/hcloud",
  "~/.fly",
  "~/.config/rclone",
  "~/.s3cfg",
  "~/.boto",
  "~/.terraform.d/credentials.tfrc.json",
  "~/.terraformrc",
  "~/.pulumi/credentials.json",
  "~/.vault-token",
  // Source hosting and git.
  "~/.config/gh",
  "~/.config/hub",
  "~/.git-credentials",
  "~/.config/git/credentials",
  "~/.netrc",
  "~/.subversion/auth",
  // Registries and package managers.
  "~/.docker",
  "~/.config/containers/auth.json",
  "~/.npmrc",
  "~/.yarnrc.yml",
  "~/.pypirc",
  "~/.config/pip/pip.conf",
  "~/.pip/pip.conf",
  "~/.cargo/credentials",
  "~/.cargo/credentials.toml",
  "~/.gem/credentials",
  "~/.bundle/config",
  "~/.m2/settings.xml",
  "~/.m2/settings-security.xml",
  "~/.gradle/gradle.properties",
  "~/.ivy2/.credentials",
  "~/.config/composer/auth.json",
  "~/.composer/auth.json",
  "~/.nuget/NuGet/NuGet.Config",
  // Databases.
  "~/.pgpass",
  "~/.my.cnf",
  // Editors and coding agents (API keys, OAuth tokens).
  "~/.config/zed",
  "~/.claude",
  "~/.claude.json",
  "~/.codex",
  "~/.gemini",
  "~/.continue",
  "~/.config/github-copilot",
  "~/.local/share/opencode",
  // dsh's own user config (trust records, key references) and state (session logs).
  "~/.config/dsh",
  "~/.local/state/dsh",
  // Shell and REPL histories.
  "~/.bash_history",
  "~/.zsh_history",
  "~/.local/share/fish/fish_history",
  "~/.python_history",
  "~/.node_repl_history",
  "~/.psql_history",
  "~/.mysql_history",
  "~/.sqlite_history",
  "~/.rediscli_history",
  // Browser profiles.
  "~/.mozilla",
  "~/.config/google-chrome",
  "~/.config/chromium",
  // System secrets root can read (the agent often runs as root in containers and CI).
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
  "/etc/ssh/ssh_host_rsa_key",
  "/etc/ssh/ssh_host_ecdsa_key",
  "/etc/ssh/ssh_host_ed25519_key",
  "/etc/ssh/ssh_host_dsa_key",
];

/** Host folders replaced by an empty tmpfs: where host sockets live (docker, dbus, ssh-agent). */
export const MASKED_RUNTIME_DIRS: readonly string[] = ["/run", "/var/run"];

/**
 * Parts of the fresh `/proc` made read-only (the host's entries bound over them). Root inside
 * (uid 0 without capabilities) still owns `/proc/sys/kernel/core_pattern`: writable, it is a host
 * escape (the kernel runs the core handler as host root).
 */
export const PROC_READ_ONLY: readonly string[] = [
  "/proc/sys",
  "/proc/bus",
  "/proc/fs",
  "/proc/irq",
];

/**
 * Parts of `/proc` hidden like Docker's default profile (kernel memory, keys, timers), and
 * `/proc/sysrq-trigger` (a write reboots the host), which becomes `/dev/null`.
 */
export const PROC_MASKED: readonly string[] = [
  "/proc/sysrq-trigger",
  "/proc/kcore",
  "/proc/keys",
  "/proc/timer_list",
  "/proc/sched_debug",
  "/proc/latency_stats",
  "/proc/acpi",
  "/proc/asound",
  "/proc/scsi",
];

/**
 * The hidden-path list after a configured list changes the defaults: entries add paths,
 * entries starting with `!` remove one.
 *
 * @param configured The configured entries (for example `["~/.secrets", "!~/.docker"]`).
 * @param defaults The starting list. @default {DEFAULT_HIDDEN_PATHS}
 * @returns The paths to hide (unexpanded).
 *
 * @example Usage
 * ```ts
 * import { hiddenPathList } from "./bwrap_args.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(hiddenPathList(["~/.x", "!~/.ssh"], ["~/.ssh", "~/.aws"]), ["~/.aws", "~/.x"]);
 * ```
 */
export function hiddenPathList(
  configured: readonly string[],
  defaults: readonly string[] = DEFAULT_HIDDEN_PATHS,
): string[] {
  const list = [...defaults];
  for (const entry of configured) {
    if (entry.startsWith("!")) {
      const drop = entry.slice(1);
      for (let i = list.indexOf(drop); i !== -1; i = list.indexOf(drop)) list.splice(i, 1);
    } else if (!list.includes(entry)) list.push(entry);
  }
  return list;
}

/** One path hidden inside the sandbox. */
export interface HiddenPath {
  /** The absolute path. */
  readonly path: string;
  /** A folder shows empty (tmpfs), a file shows as `/dev/null`. */
  readonly kind: "dir" | "file";
}

/**
 * The protected paths of one spawn (see `protected_paths.ts`), resolved against the host: bound
 * after the writable roots, so the sandbox can neither change them nor create them.
 */
export interface ProtectedMounts {
  /** Folders above a protected path bound onto themselves (writable): a mount point cannot be renamed, so the path cannot be swapped by moving its folder. */
  readonly pinned: readonly string[];
  /** Existing protected files and folders, bound read-only. */
  readonly readOnly: readonly string[];
  /** Missing protected names whose folder is writable: an empty read-only folder holds the name for the run (the executor creates the mount point just before and removes it after). */
  readonly placeholders: readonly string[];
}

/** The profile {@linkcode bwrapArgs} turns into flags (all optional). */
export interface BwrapProfile {
  /** `"workspace-write"` binds the workspace roots writable; `"read-only"` does not. @default {"workspace-write"} */
  readonly level?: "read-only" | "workspace-write";
  /** More writable roots besides the workspace (skipped when missing). @default {[]} */
  readonly writableRoots?: readonly string[];
  /** Host folders replaced by an empty tmpfs. @default {MASKED_RUNTIME_DIRS} */
  readonly masked?: readonly string[];
  /** Credential paths to hide (existing ones, classified). @default {[]} */
  readonly hidden?: readonly HiddenPath[];
  /** Existing parts of `/proc` made read-only. @default {["/proc/sys"]} */
  readonly procReadOnly?: readonly string[];
  /** Existing parts of `/proc` hidden (classified). @default {[]} */
  readonly procMasked?: readonly HiddenPath[];
  /** Create a user namespace and disable further ones inside. @default {true} */
  readonly userns?: boolean;
  /**
   * Install the seccomp program the launcher opened on fd 3 (`--seccomp 3`): no `AF_UNIX` or
   * `AF_VSOCK` sockets (see `_seccomp.ts`). @default {false}
   */
  readonly seccomp?: boolean;
  /** The protected paths of this spawn. @default {none} */
  readonly protect?: ProtectedMounts;
}

/**
 * The bubblewrap argv prefix for a workspace.
 *
 * @param workspace The writable directory (absolute).
 * @param cwd The working directory inside the sandbox.
 * @param profile Level, extra roots, masks, hidden paths, user namespace.
 * @returns The bwrap arguments, ending with `--`.
 *
 * @example Usage
 * ```ts
 * import { bwrapArgs } from "./bwrap_args.ts";
 * import { ok } from "node:assert/strict";
 * const args = bwrapArgs("/work/ws", "/work/ws");
 * ok(args.includes("--unshare-net") && args.includes("--cap-drop") && args.at(-1) === "--");
 * ```
 */
export function bwrapArgs(
  workspace: string,
  cwd: string | undefined,
  profile: BwrapProfile = {},
): string[] {
  const {
    level = "workspace-write",
    writableRoots = [],
    masked = MASKED_RUNTIME_DIRS,
    hidden = [],
    userns = true,
    procReadOnly = ["/proc/sys"],
    procMasked = [{ path: "/proc/sysrq-trigger", kind: "file" }],
    seccomp = false,
    protect,
  } = profile;
  const args = seccomp ? ["--seccomp", "3"] : [];
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
  // The host's entries, read-only, over the fresh ones: sysctls are global anyway.
  for (const path of procReadOnly) args.push("--ro-bind", path, path);
  pushHidden(args, procMasked);
  args.push("--tmpfs", "/tmp");
  for (const dir of masked) args.push("--tmpfs", dir);
  // Order matters: the roots are bound after the tmpfs masks so a workspace under /tmp or /run
  // stays visible, and hidden paths come last so they stay hidden inside a workspace.
  if (level === "workspace-write") {
    args.push("--bind", workspace, workspace);
    for (const root of writableRoots) {
      if (root !== workspace) args.push("--bind-try", root, root);
    }
  } else {
    // The masks may cover the workspace: show it again, read-only.
    args.push("--ro-bind", workspace, workspace);
  }
  if (protect !== undefined && level === "workspace-write") pushProtected(args, protect);
  pushHidden(args, hidden);
  if (userns) args.push("--unshare-user", "--disable-userns");
  args.push(
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--unshare-net",
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--new-session",
    "--chdir",
    cwd ?? workspace,
    "--",
  );
  return args;
}

/** Pinned folders first (outermost first), then the read-only binds and the placeholders. */
function pushProtected(args: string[], protect: ProtectedMounts): void {
  const outerFirst = (a: string, b: string) => a.length - b.length || (a < b ? -1 : 1);
  for (const dir of [...protect.pinned].sort(outerFirst)) args.push("--bind", dir, dir);
  for (const path of [...protect.readOnly].sort(outerFirst)) args.push("--ro-bind", path, path);
  for (const path of protect.placeholders) args.push("--tmpfs", path, "--remount-ro", path);
}

/** A folder becomes an empty read-only tmpfs, a file `/dev/null` (reads empty). */
function pushHidden(args: string[], hidden: readonly HiddenPath[]): void {
  for (const { path, kind } of hidden) {
    if (kind === "dir") args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--dev-bind", "/dev/null", path);
  }
}

/**
 * The launcher in front of bwrap: it moves its stdin (the seccomp program) to fd 3, gives the
 * command `/dev/null` instead, and execs bwrap (same pid, so `--die-with-parent` still ties the
 * sandbox to the agent).
 */
const LAUNCHER_SCRIPT = 'exec "$@" 3<&0 </dev/null';

/**
 * The argv that runs a bwrap argv whose profile has `seccomp`: write the program
 * ({@linkcode sandboxFilter}) to its stdin and close it.
 *
 * @param bwrapArgv The bwrap program and its arguments.
 * @returns `sh -c … dsh-launch bwrap …`.
 *
 * @example Usage
 * ```ts
 * import { launcherArgv } from "./bwrap_args.ts";
 * import { equal } from "node:assert/strict";
 * equal(launcherArgv(["bwrap", "--", "true"])[4], "bwrap");
 * ```
 */
export function launcherArgv(bwrapArgv: readonly string[]): string[] {
  return ["sh", "-c", LAUNCHER_SCRIPT, LAUNCHER_NAME, ...bwrapArgv];
}

/**
 * The sandbox's seccomp program for this machine: `socket(AF_UNIX)` (unless `allowUnixSockets`),
 * `socket(AF_VSOCK)` and `io_uring_setup` fail with `EPERM`; `socketpair` works (SECURITY.md,
 * sockets).
 *
 * @param allowUnixSockets Leave Unix sockets allowed. @default {false}
 * @returns The BPF program bubblewrap reads from fd 3.
 * @throws {RangeError} On an architecture other than x86_64 and aarch64.
 *
 * @example Usage
 * ```ts
 * import { sandboxFilter } from "./bwrap_args.ts";
 * import { equal } from "node:assert/strict";
 * equal(sandboxFilter().length % 8, 0);
 * ```
 */
export function sandboxFilter(allowUnixSockets = false): Uint8Array {
  return FILTERS[allowUnixSockets ? 1 : 0] ??= socketFilter(allowUnixSockets);
}

const FILTERS: (Uint8Array | undefined)[] = [];
