/**
 * Loads the built-in tools, the jobs layer, Code Mode and the configured MCP servers into the
 * agent binary's harness.
 *
 * @module
 */
import type { Fiber } from "../core/mod.ts";
import type { ToolsContext } from "../registry/mod.ts";
import {
  bashPlugin,
  fsPlugin,
  ProtectedPaths,
  readBeforeEditPlugin,
  workspacePolicyPlugin,
} from "../builtins/mod.ts";
import { jobsPlugin } from "../jobs/mod.ts";

export { usePinnedOpen } from "../builtins/mod.ts";
import type { AgentConfig } from "./config.ts";
import { createBashExecutor } from "./_bash_executor.ts";
import { LazyExecutor } from "./_lazy_bash.ts";
import type { SafetyState } from "./_safety_config.ts";
import type { Executor } from "../tools/executor.ts";

/** Options of {@linkcode loadBuiltins}. */
export interface LoadBuiltinsOptions {
  /** The configuration (sandbox, tool mode, MCP servers). */
  readonly config: AgentConfig;
  /** The sandbox's writable workspace. */
  readonly workspace: string;
  /** More writable roots (the config's `roots`, absolute). @default {[]} */
  readonly roots?: readonly string[];
  /** Filled in with what the sandbox probe found. */
  readonly safety?: SafetyState;
  /** The files the agent trusts or executes: the sandbox binds them read-only, fs tools ask or deny. */
  readonly protectedPaths?: ProtectedPaths;
  /** Where the config's relative paths resolve (secret files of a remote executor). @default {workspace} */
  readonly base?: string;
  /** The launcher's stdin secrets (a remote executor's token and secrets). @default {{}} */
  readonly secrets?: Readonly<Record<string, string>>;
}

/**
 * The tools' executor: with `"executor": {"provider": "deno-sandbox"}` one Deno Sandbox per
 * session (loaded only then: the local path never loads the SDK), which counts as sandboxed;
 * else bash's local executor, probed when a session first needs it under `"auto"`.
 */
async function chooseExecutor(
  ctx: ToolsContext,
  options: LoadBuiltinsOptions,
  protectedPaths: ProtectedPaths,
): Promise<Executor> {
  const { config, workspace, safety } = options;
  if (config.executor.provider === "deno-sandbox") {
    const { createRemoteExecutor } = await import("./_remote_executor.ts");
    const executor = await createRemoteExecutor(ctx, {
      config,
      workspace,
      roots: options.roots ?? [],
      protectedPaths,
      base: options.base ?? workspace,
      secrets: options.secrets ?? {},
    });
    // Commands run in the session's microVM, never on this machine.
    if (safety !== undefined) safety.bashSandboxed = true;
    return executor;
  }
  // Under "auto", probed when a session first needs bash (its first prompt), not at start-up.
  const executor = new LazyExecutor(() =>
    createBashExecutor(ctx, {
      config,
      workspace,
      roots: options.roots ?? [],
      ...(safety === undefined ? {} : { safety }),
      protectedPaths,
    })
  );
  if (safety !== undefined) safety.probe = () => executor.ready();
  // An explicit sandbox mode still fails start-up where bubblewrap cannot run (documented).
  if (config.sandbox !== "auto") await executor.ready();
  return executor;
}

/**
 * Loads bash, read/write/edit with the read-before-edit and workspace policies, the jobs tools,
 * Code Mode (for `code`/`both`) and the config's MCP servers (started, not awaited).
 *
 * @param ctx The harness.
 * @param options Config and workspace.
 * @throws {Error} When a plugin fails to apply (for example a missing sandbox).
 */
export async function loadBuiltins(ctx: ToolsContext, options: LoadBuiltinsOptions): Promise<void> {
  const { config, workspace } = options;
  const protectedPaths = options.protectedPaths ??
    new ProtectedPaths([workspace, ...options.roots ?? []]);
  const executor = await chooseExecutor(ctx, options, protectedPaths);
  const fibers: Fiber[] = [
    ctx.plugin(jobsPlugin, {}),
    ctx.plugin(bashPlugin, { executor }),
    // One executor for bash and the fs tools (and Code Mode): one environment per session.
    ctx.plugin(fsPlugin, { executor }),
    ctx.plugin(readBeforeEditPlugin, { executor }),
    ctx.plugin(workspacePolicyPlugin, { protectedPaths }),
  ];
  if (config.toolMode !== "native") {
    const { codeModePlugin } = await import("../codemode/mod.ts");
    fibers.push(ctx.plugin(codeModePlugin, { mode: config.toolMode, executor }));
  }
  if (Object.keys(config.mcpServers).length > 0) {
    const { mcpPlugin } = await import("../mcp/mod.ts");
    // Not awaited: start-up never waits for a server; its tools register when it answers, a
    // prompt waits for first attempts (at most connectTimeoutMs), and failures reach open
    // sessions as messages (acp/_mcp_notices.ts). The config was checked.
    const fiber = ctx.plugin(mcpPlugin, { servers: config.mcpServers });
    ctx.emit("mcp/starting", { ready: fiber.ready });
  }
  // `ready` rejects with the error of a plugin that failed to apply.
  for (const fiber of fibers) await fiber.ready;
}
