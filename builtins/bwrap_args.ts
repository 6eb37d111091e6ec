/**
 * The bubblewrap command line of the sandboxed executor (see `sandbox.ts` for the levels and
 * what they hold): the hidden credential paths, the masked runtime and `/proc` paths, and
 * {@linkcode bwrapArgs}, which turns a resolved {@linkcode BwrapProfile} into flags.
 *
 * @module
 */

/**
 * Credential files and folders hidden inside the sandbox (`~` is `$HOME`): ssh and gpg keys,
 * cloud and cluster credentials, registry tokens, git credentials, password stores and browser
 * profiles. A folder shows empty, a file shows as `/dev/null`.
 */
export const DEFAULT_HIDDEN_PATHS: readonly string[] = [
  "~/.ssh",
  "~/.gnupg",
  "~/.aws",
  "~/.azure",
  "~/.config/gcloud",
  "~/.config/gh",
  "~/.config/hub",
  "~/.kube",
  "~/.docker",
  "~/.netrc",
  "~/.npmrc",
  "~/.yarnrc.yml",
  "~/.pypirc",
  "~/.git-credentials",
  "~/.config/git/credentials",
  "~/.cargo/credentials",
  "~/.cargo/credentials.toml",
  "~/.gem/credentials",
  "~/.terraform.d/credentials.tfrc.json",
  "~/.vault-token",
  "~/.password-store",
  "~/.local/share/keyrings",
  "~/.config/op",
  "~/.mozilla",
  "~/.config/google-chrome",
  "~/.config/chromium",
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
  } = profile;
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
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

/** A folder becomes an empty read-only tmpfs, a file `/dev/null` (reads empty). */
function pushHidden(args: string[], hidden: readonly HiddenPath[]): void {
  for (const { path, kind } of hidden) {
    if (kind === "dir") args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--dev-bind", "/dev/null", path);
  }
}
