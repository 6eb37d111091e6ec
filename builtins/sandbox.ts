/**
 * The sandboxed executor: the same {@linkcode Executor} interface with every command inside
 * bubblewrap. The system is read-only, the workspace writable, `/tmp` a fresh tmpfs, the network
 * and pid namespaces are private, and the sandbox dies with its parent. Deno permissions cannot
 * confine what `bash` does; this can. File operations stay in-process (Deno permissions).
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import { describeRunError } from "./_fs_errors.ts";
import { type Executor, LocalExecutor, type LocalExecutorOptions } from "./executor.ts";

/** The sandbox setting: `"workspace-write"` (bubblewrap) or `"off"` (host). */
export type SandboxMode = "workspace-write" | "off";

/** Options for {@linkcode BwrapExecutor}. */
export interface BwrapExecutorOptions extends LocalExecutorOptions {
  /** The writable workspace (absolute). */
  readonly workspace: string;
  /** The bwrap program. @default {"bwrap"} */
  readonly bwrap?: string;
}

/**
 * The bubblewrap argv prefix for a workspace.
 *
 * @param workspace The writable directory (absolute).
 * @param cwd The working directory inside the sandbox.
 * @returns The bwrap arguments, ending with `--`.
 *
 * @example Usage
 * ```ts
 * import { bwrapArgs } from "./sandbox.ts";
 * import { ok } from "node:assert/strict";
 * const args = bwrapArgs("/work/ws", "/work/ws");
 * ok(args.includes("--unshare-net") && args.at(-1) === "--");
 * ```
 */
export function bwrapArgs(workspace: string, cwd: string | undefined): string[] {
  // Order matters: the workspace bind comes after the /tmp tmpfs so a workspace under /tmp stays visible.
  return [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--bind",
    workspace,
    workspace,
    "--unshare-net",
    "--unshare-pid",
    "--die-with-parent",
    "--new-session",
    "--chdir",
    cwd ?? workspace,
    "--",
  ];
}

/** Runs every command inside bubblewrap; create it with {@linkcode createSandboxExecutor}. */
export class BwrapExecutor extends LocalExecutor {
  /** `"bwrap"`. */
  override readonly kind: string = "bwrap";
  /** The writable workspace. */
  readonly workspace: string;
  /** The bwrap program. */
  readonly bwrap: string;

  /**
   * Creates the executor without probing bwrap (use {@linkcode createSandboxExecutor}).
   *
   * @param options Workspace and bwrap program.
   * @throws {TypeError} When `workspace` is not absolute.
   */
  constructor(options: BwrapExecutorOptions) {
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
  }

  /**
   * The argv: bwrap, its profile, then the shell.
   *
   * @param command The user's command.
   * @param cwd The working directory.
   * @returns The argv.
   */
  override argv(command: string, cwd: string | undefined): string[] {
    return [this.bwrap, ...bwrapArgs(this.workspace, cwd), ...super.argv(command, cwd)];
  }
}

/**
 * Creates a {@linkcode BwrapExecutor} after proving bubblewrap works here with the full profile.
 * Never falls back to running unconfined.
 *
 * @param options Workspace and bwrap program.
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
  const hint = 'install bubblewrap or set "sandbox" to "off"';
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(executor.bwrap, {
      args: [...bwrapArgs(executor.workspace, undefined), "true"],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
  } catch (error) {
    const reason = describeRunError(executor.bwrap, "", error).message;
    throw new HarnessError(
      "SANDBOX_UNAVAILABLE",
      `Cannot create the workspace-write sandbox: ${reason}; ${hint}`,
      { cause: error },
    );
  }
  if (!output.success) {
    const stderr = new TextDecoder().decode(output.stderr).trim().slice(0, 200);
    throw new HarnessError(
      "SANDBOX_UNAVAILABLE",
      `Cannot create the workspace-write sandbox: "${executor.bwrap}" exited with code ${output.code} (${stderr}); ${hint}`,
    );
  }
  return executor;
}

/** Options for {@linkcode createExecutor}. */
export interface CreateExecutorOptions extends LocalExecutorOptions {
  /** The sandbox setting. @default {"workspace-write"} */
  readonly sandbox?: SandboxMode;
  /** The writable workspace for the sandbox. @default {Deno.cwd()} */
  readonly workspace?: string;
  /** The bwrap program. @default {"bwrap"} */
  readonly bwrap?: string;
}

/**
 * Picks the executor for a `sandbox` setting.
 *
 * @param options The setting and its parameters.
 * @returns A {@linkcode LocalExecutor} for `"off"`, a probed {@linkcode BwrapExecutor} otherwise.
 * @throws {HarnessError} `SANDBOX_UNAVAILABLE` (see {@linkcode createSandboxExecutor}).
 * @throws {TypeError} On an unknown `sandbox` value.
 *
 * @example Usage
 * ```ts
 * import { createExecutor } from "./sandbox.ts";
 * import { equal } from "node:assert/strict";
 * const executor = await createExecutor({ sandbox: "off" });
 * equal(executor.kind, "local");
 * ```
 */
export async function createExecutor(options: CreateExecutorOptions = {}): Promise<Executor> {
  const { sandbox = "workspace-write", workspace, ...rest } = options;
  if (sandbox === "off") return new LocalExecutor(rest);
  if (sandbox !== "workspace-write") {
    throw new TypeError(
      `Cannot create an executor as 'sandbox' must be "workspace-write" or "off": current value is ${
        JSON.stringify(sandbox)
      }`,
    );
  }
  return await createSandboxExecutor({ ...rest, workspace: workspace ?? Deno.cwd() });
}
