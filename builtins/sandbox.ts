/**
 * The sandboxed executor: the same {@linkcode Executor} interface with every command inside
 * bubblewrap. The levels are named as in Codex:
 *
 * - `read-only`: the whole file system read-only, a private `/tmp`;
 * - `workspace-write`: the same, plus the workspace roots writable;
 * - `danger-full-access` (alias `"off"`): no sandbox, commands run on the host.
 *
 * Both sandboxed levels hold as root and as a normal user: every capability dropped
 * (`--cap-drop ALL`, CapEff 0), new user (when the kernel allows it, with further user
 * namespaces disabled), pid, ipc, uts, cgroup and network namespaces, a fresh `/proc`, a fresh
 * `/dev`, `/proc/sys` read-only and `/proc/sysrq-trigger` masked (root inside still owns them),
 * `/run`, `/var/run` and `$XDG_RUNTIME_DIR` masked by empty tmpfs (no host socket is
 * reachable), well-known credential folders hidden ({@linkcode DEFAULT_HIDDEN_PATHS}), the sandbox
 * killed with its parent and in a new session (no terminal injection). The environment is
 * scrubbed by the executor (see `core/env_policy.ts`). File tools stay in-process (Deno
 * permissions). See SECURITY.md for the threat model and known limits.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import { describeRunError } from "./_fs_errors.ts";
import type { Executor } from "../tools/executor.ts";
import { type Launch, LocalExecutor, type LocalExecutorOptions } from "./local_executor.ts";
import {
  bwrapArgs,
  type BwrapProfile,
  DEFAULT_HIDDEN_PATHS,
  type HiddenPath,
  hiddenPathList,
  launcherArgv,
  MASKED_RUNTIME_DIRS,
  PROC_MASKED,
  PROC_READ_ONLY,
  type ProtectedMounts,
  sandboxFilter,
} from "./bwrap_args.ts";
import { ProtectedPaths } from "./protected_paths.ts";
import { envValue, resolveProfile } from "./_sandbox_profile.ts";
import { protectForSpawn } from "./_protected_mounts.ts";

export {
  bwrapArgs,
  DEFAULT_HIDDEN_PATHS,
  hiddenPathList,
  launcherArgv,
  MASKED_RUNTIME_DIRS,
  PROC_MASKED,
  PROC_READ_ONLY,
  sandboxFilter,
};
export type { BwrapProfile, HiddenPath, ProtectedMounts };

/** A sandbox level, named as in Codex. */
export type SandboxLevel = "read-only" | "workspace-write" | "danger-full-access";

/** The sandbox setting: a {@linkcode SandboxLevel}, or `"off"` (alias of `"danger-full-access"`). */
export type SandboxMode = SandboxLevel | "off";

/** Every accepted {@linkcode SandboxMode} value. */
export const SANDBOX_MODES: readonly SandboxMode[] = [
  "read-only",
  "workspace-write",
  "danger-full-access",
  "off",
];

/** Options for {@linkcode BwrapExecutor}. */
export interface BwrapExecutorOptions extends LocalExecutorOptions {
  /** The writable workspace (absolute). */
  readonly workspace: string;
  /** The bwrap program. @default {"bwrap"} */
  readonly bwrap?: string;
  /** `"read-only"` or `"workspace-write"`. @default {"workspace-write"} */
  readonly level?: "read-only" | "workspace-write";
  /** More writable roots (absolute). @default {[]} */
  readonly writableRoots?: readonly string[];
  /**
   * Paths to hide, `~` for `$HOME` (see {@linkcode hiddenPathList}).
   * @default {DEFAULT_HIDDEN_PATHS}
   */
  readonly hiddenPaths?: readonly string[];
  /** The home folder `~` stands for. @default {$HOME} */
  readonly home?: string;
  /** The user's runtime folder (host sockets), masked like `/run`. @default {$XDG_RUNTIME_DIR} */
  readonly runtimeDir?: string;
  /** Where dsh's user config folder (`dsh/`, hidden) lives. @default {$XDG_CONFIG_HOME, else ~/.config} */
  readonly configHome?: string;
  /** Where dsh's user state folder (`dsh/`, hidden) lives. @default {$XDG_STATE_HOME, else ~/.local/state} */
  readonly stateHome?: string;
  /**
   * The files the agent trusts or executes, bound read-only in every spawn (read again each
   * time: plugins change it on reload). @default {new ProtectedPaths([workspace, ...writableRoots])}
   */
  readonly protectedPaths?: ProtectedPaths;
  /**
   * Let commands create Unix sockets (and so connect to any host socket in a readable folder,
   * such as a Docker socket in a home folder). `AF_VSOCK` stays denied. @default {false}
   */
  readonly allowUnixSockets?: boolean;
}

/** Runs every command inside bubblewrap; create it with {@linkcode createSandboxExecutor}. */
export class BwrapExecutor extends LocalExecutor {
  /** `"bwrap"`. */
  override readonly kind: string = "bwrap";
  /** The writable workspace. */
  readonly workspace: string;
  /** The bwrap program. */
  readonly bwrap: string;
  /** The profile (filled in by {@linkcode createSandboxExecutor}'s probe). */
  profile: BwrapProfile;
  /** The protected paths, read at every spawn. */
  readonly protectedPaths: ProtectedPaths;
  /** Whether commands may create Unix sockets. */
  readonly allowUnixSockets: boolean;

  /**
   * Creates the executor without probing bwrap (use {@linkcode createSandboxExecutor}).
   *
   * @param options Workspace, level and bwrap program.
   * @param profile The resolved profile. @default {{ level: options.level }}
   * @throws {TypeError} When `workspace` is not absolute.
   */
  constructor(options: BwrapExecutorOptions, profile?: BwrapProfile) {
    super(options);
    if (!options.workspace.startsWith("/")) {
      throw new TypeError(
        `Cannot create the sandbox as 'workspace' must be an absolute path: current value is ${
          JSON.stringify(options.workspace)
        }`,
      );
    }
    this.workspace = options.workspace;
    this.bwrap = options.bwrap ?? "bwrap";
    this.profile = profile ?? { level: options.level ?? "workspace-write" };
    this.allowUnixSockets = options.allowUnixSockets ?? false;
    this.protectedPaths = options.protectedPaths ??
      new ProtectedPaths([options.workspace, ...(options.writableRoots ?? [])]);
  }

  /**
   * The argv: the launcher (with the seccomp filter), bwrap, its profile, then the shell.
   *
   * @param command The user's command.
   * @param cwd The working directory.
   * @param protect The protected paths' mounts. @default {none}
   * @returns The argv.
   */
  override argv(command: string, cwd: string | undefined, protect?: ProtectedMounts): string[] {
    const profile = protect === undefined ? this.profile : { ...this.profile, protect };
    const argv = [
      this.bwrap,
      ...bwrapArgs(this.workspace, cwd, profile),
      ...super.argv(command, cwd),
    ];
    return profile.seccomp ? launcherArgv(argv) : argv;
  }

  /**
   * Reads the protected paths from the host and holds the placeholders of missing ones until the
   * run ends.
   *
   * @param command The user's command.
   * @param cwd The working directory.
   * @returns The launch.
   */
  override async launch(command: string, cwd: string | undefined): Promise<Launch> {
    const input = this.profile.seccomp ? sandboxFilter(this.allowUnixSockets) : undefined;
    if (this.profile.level === "read-only") {
      return { argv: this.argv(command, cwd), ...(input ? { input } : {}) };
    }
    const roots = [this.workspace, ...(this.profile.writableRoots ?? [])];
    const { mounts, release } = await protectForSpawn(
      this.protectedPaths.list().map((entry) => entry.path),
      await existing(roots),
    );
    return { argv: this.argv(command, cwd, mounts), ...(input ? { input } : {}), done: release };
  }
}

/** The roots that exist as folders (bwrap skips the others: `--bind-try`). */
async function existing(roots: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const root of new Set(roots)) {
    const info = await Deno.stat(root).catch(() => undefined);
    if (info?.isDirectory) out.push(root);
  }
  return out;
}

async function probe(
  executor: BwrapExecutor,
  profile: BwrapProfile,
): Promise<{ ok: true } | { ok: false; reason: string; error?: unknown }> {
  let output: Deno.CommandOutput;
  const argv = [executor.bwrap, ...bwrapArgs(executor.workspace, undefined, profile), "true"];
  const launched = profile.seccomp ? launcherArgv(argv) : argv;
  try {
    // Directly first: a missing or forbidden bwrap is named as such, not as the launcher's 127.
    await new Deno.Command(executor.bwrap, {
      args: ["--version"],
      stdin: "null",
      stdout: "null",
      stderr: "null",
      clearEnv: true,
      env: { PATH: envValue("PATH") ?? "/usr/bin:/bin" },
    }).output();
  } catch (error) {
    return { ok: false, reason: describeRunError(executor.bwrap, "", error).message, error };
  }
  try {
    const child = new Deno.Command(launched[0]!, {
      args: launched.slice(1),
      stdin: profile.seccomp ? "piped" : "null",
      stdout: "null",
      stderr: "piped",
      clearEnv: true,
      env: { PATH: envValue("PATH") ?? "/usr/bin:/bin" },
    }).spawn();
    if (profile.seccomp) {
      const writer = child.stdin.getWriter();
      await writer.write(sandboxFilter(executor.allowUnixSockets)).then(() => writer.close()).catch(
        () => {},
      );
    }
    output = await child.output();
  } catch (error) {
    return { ok: false, reason: describeRunError(launched[0]!, "", error).message, error };
  }
  if (output.success) return { ok: true };
  const stderr = new TextDecoder().decode(output.stderr).trim().slice(0, 200);
  return {
    ok: false,
    reason: `"${executor.bwrap}" exited with code ${output.code} (${stderr})`,
  };
}

/**
 * Bubblewrap cannot run here (code `SANDBOX_UNAVAILABLE`); `reason` says why, without the hint.
 *
 * @example Usage
 * ```ts
 * import { SandboxUnavailableError } from "./sandbox.ts";
 * import { equal } from "node:assert/strict";
 * const error = new SandboxUnavailableError("workspace-write", "bwrap was not found", "install it");
 * equal(error.code, "SANDBOX_UNAVAILABLE");
 * equal(error.reason, "bwrap was not found");
 * ```
 */
export class SandboxUnavailableError extends HarnessError {
  /** Why the sandbox cannot run. */
  readonly reason: string;

  /**
   * Creates the error.
   *
   * @param level The level that was asked for.
   * @param reason Why it cannot run.
   * @param hint What to do about it (appended to the message).
   * @param options Standard error options (`cause`).
   */
  constructor(level: string, reason: string, hint?: string, options?: ErrorOptions) {
    super(
      "SANDBOX_UNAVAILABLE",
      `Cannot create the ${level} sandbox: ${reason}${hint === undefined ? "" : `; ${hint}`}`,
      options,
    );
    // Still a HarnessError to callers and tests that branch on the name; `code` says which.
    this.name = "HarnessError";
    this.reason = reason;
  }
}

/**
 * Creates a {@linkcode BwrapExecutor} after proving bubblewrap works here with the full profile.
 * Without user namespaces (disabled by the kernel) the profile runs without one, which still
 * drops every capability. Never falls back to running unconfined.
 *
 * @param options Workspace, level, extra roots, hidden paths and bwrap program.
 * @returns The executor.
 * @throws {HarnessError} `SANDBOX_UNAVAILABLE` when bwrap is missing, not permitted or fails.
 *
 * @example Usage
 * ```ts ignore
 * import { createSandboxExecutor } from "./sandbox.ts";
 * const executor = await createSandboxExecutor({ workspace: Deno.cwd() });
 * await executor.run("touch ok && curl example.com"); // the write works, the network does not
 * ```
 */
export async function createSandboxExecutor(options: BwrapExecutorOptions): Promise<BwrapExecutor> {
  const executor = new BwrapExecutor(options);
  const level = options.level ?? "workspace-write";
  const hint =
    'install bubblewrap (apt-get install bubblewrap) or set "sandbox" to "danger-full-access"';
  let profile: BwrapProfile;
  try {
    profile = await resolveProfile(options);
  } catch (error) {
    // Never a sandbox without its masks: no profile, no executor.
    throw new SandboxUnavailableError(
      level,
      `cannot inspect the paths to hide with bash: ${describeRunError("bash", "", error).message}`,
      undefined,
      { cause: error },
    );
  }
  let result = await probe(executor, profile);
  if (!result.ok && result.error === undefined) {
    const withoutUserns = { ...profile, userns: false };
    const retry = await probe(executor, withoutUserns);
    if (retry.ok) {
      executor.profile = withoutUserns;
      return executor;
    }
    result = retry;
  }
  if (!result.ok) {
    throw new SandboxUnavailableError(
      level,
      result.reason,
      hint,
      result.error === undefined ? undefined : { cause: result.error },
    );
  }
  executor.profile = profile;
  return executor;
}

/** Options for {@linkcode createExecutor}. */
export interface CreateExecutorOptions extends LocalExecutorOptions {
  /** The sandbox setting. @default {"workspace-write"} */
  readonly sandbox?: SandboxMode;
  /** The writable workspace for the sandbox. @default {Deno.cwd()} */
  readonly workspace?: string;
  /** More writable roots. @default {[]} */
  readonly writableRoots?: readonly string[];
  /** Paths to hide (see {@linkcode BwrapExecutorOptions.hiddenPaths}). @default {DEFAULT_HIDDEN_PATHS} */
  readonly hiddenPaths?: readonly string[];
  /** The bwrap program. @default {"bwrap"} */
  readonly bwrap?: string;
  /** Bound read-only in the sandbox (see {@linkcode BwrapExecutorOptions.protectedPaths}). */
  readonly protectedPaths?: ProtectedPaths;
  /** See {@linkcode BwrapExecutorOptions.allowUnixSockets}. @default {false} */
  readonly allowUnixSockets?: boolean;
}

/**
 * Picks the executor for a `sandbox` setting.
 *
 * @param options The setting and its parameters.
 * @returns A {@linkcode LocalExecutor} for `"danger-full-access"` / `"off"`, a probed
 *   {@linkcode BwrapExecutor} otherwise.
 * @throws {HarnessError} `SANDBOX_UNAVAILABLE` (see {@linkcode createSandboxExecutor}).
 * @throws {TypeError} On an unknown `sandbox` value.
 *
 * @example Usage
 * ```ts
 * import { createExecutor } from "./sandbox.ts";
 * import { equal } from "node:assert/strict";
 * const executor = await createExecutor({ sandbox: "danger-full-access" });
 * equal(executor.kind, "local");
 * ```
 */
export async function createExecutor(options: CreateExecutorOptions = {}): Promise<Executor> {
  const { sandbox = "workspace-write", workspace, ...rest } = options;
  if (!SANDBOX_MODES.includes(sandbox)) {
    throw new TypeError(
      `Cannot create an executor as 'sandbox' must be one of ${
        SANDBOX_MODES.map((m) => `"${m}"`).join(", ")
      }: current value is ${JSON.stringify(sandbox)}`,
    );
  }
  if (sandbox === "off" || sandbox === "danger-full-access") {
    return new LocalExecutor({
      ...(rest.shell === undefined ? {} : { shell: rest.shell }),
      ...(rest.envPolicy === undefined ? {} : { envPolicy: rest.envPolicy }),
      ...(rest.liveTrees === undefined ? {} : { liveTrees: rest.liveTrees }),
    });
  }
  return await createSandboxExecutor({
    ...rest,
    level: sandbox,
    workspace: workspace ?? Deno.cwd(),
  });
}
