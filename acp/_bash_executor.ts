/**
 * Picks the executor of the agent's bash from the `sandbox` setting. Under `"auto"` a machine
 * without bubblewrap gets the host executor, a warning on stderr, a notice for every session and
 * an "ask" rule for bash ({@linkcode defaultRules}); an explicit sandboxed level fails instead.
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import type { Executor } from "../tools/executor.ts";
import { LocalExecutor } from "../builtins/local_executor.ts";
import { createExecutor, hiddenPathList, SandboxUnavailableError } from "../builtins/sandbox.ts";
import type { AgentConfig } from "./config.ts";
import type { ProtectedPaths } from "../builtins/protected_paths.ts";
import { missingSandboxNotice, type SafetyState } from "./_safety_config.ts";
import type { LiveTrees } from "../jobs/process_containment.ts";

/** Options of {@linkcode createBashExecutor}. */
export interface BashExecutorOptions {
  /** The configuration (`sandbox`, `hiddenPaths`). */
  readonly config: AgentConfig;
  /** The writable workspace. */
  readonly workspace: string;
  /** More writable roots. */
  readonly roots: readonly string[];
  /** Receives whether bash is sandboxed, and the notice. */
  readonly safety?: SafetyState;
  /** The bwrap program. @default {"bwrap"} */
  readonly bwrap?: string;
  /** Bound read-only in the sandbox. @default {the defaults of the workspace and roots} */
  readonly protectedPaths?: ProtectedPaths;
  /** Where the executor registers its process trees (the shutdown kills them). @default {its own} */
  readonly liveTrees?: LiveTrees;
}

/**
 * Creates the executor for the agent's bash.
 *
 * @param ctx The harness (its logger gets the stderr warning).
 * @param options Config, workspace, roots and the state to fill in.
 * @returns The executor.
 * @throws {HarnessError} `SANDBOX_UNAVAILABLE` for an explicit sandboxed level bwrap cannot run.
 */
export async function createBashExecutor(
  ctx: Context,
  options: BashExecutorOptions,
): Promise<Executor> {
  const { config, workspace, roots, safety } = options;
  const level = config.sandbox === "auto" ? "workspace-write" : config.sandbox;
  const sandboxOptions = {
    workspace,
    writableRoots: roots,
    hiddenPaths: hiddenPathList(config.hiddenPaths),
    envPolicy: config.env,
    ...(options.liveTrees === undefined ? {} : { liveTrees: options.liveTrees }),
    ...(options.bwrap === undefined ? {} : { bwrap: options.bwrap }),
    ...(options.protectedPaths === undefined ? {} : { protectedPaths: options.protectedPaths }),
  };
  if (config.sandbox !== "auto") {
    const executor = await createExecutor({ ...sandboxOptions, sandbox: level });
    if (safety) safety.bashSandboxed = executor.kind === "bwrap";
    return executor;
  }
  try {
    const executor = await createExecutor({ ...sandboxOptions, sandbox: "workspace-write" });
    if (safety) safety.bashSandboxed = true;
    return executor;
  } catch (error) {
    // Only a missing sandbox falls back to asking; anything else is a real start-up failure.
    if (!(error instanceof SandboxUnavailableError)) throw error;
    const notice = missingSandboxNotice(error.reason);
    ctx.logger.warn(notice);
    if (safety) {
      safety.bashSandboxed = false;
      safety.notice = notice;
    }
    return new LocalExecutor({
      envPolicy: config.env,
      ...(options.liveTrees === undefined ? {} : { liveTrees: options.liveTrees }),
    });
  }
}
