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
  readBeforeEditPlugin,
  workspacePolicyPlugin,
} from "../builtins/mod.ts";
import { jobsPlugin } from "../jobs/mod.ts";
import type { AgentConfig } from "./config.ts";

/** Options of {@linkcode loadBuiltins}. */
export interface LoadBuiltinsOptions {
  /** The configuration (sandbox, tool mode, MCP servers). */
  readonly config: AgentConfig;
  /** The sandbox's writable workspace. */
  readonly workspace: string;
}

/**
 * Loads bash, read/write/edit with the read-before-edit and workspace policies, the jobs tools,
 * Code Mode (for `code`/`both`) and the config's MCP servers.
 *
 * @param ctx The harness.
 * @param options Config and workspace.
 * @throws {Error} When a plugin fails to apply (for example a missing sandbox).
 */
export async function loadBuiltins(ctx: ToolsContext, options: LoadBuiltinsOptions): Promise<void> {
  const { config, workspace } = options;
  const fibers: Fiber[] = [
    ctx.plugin(jobsPlugin, {}),
    ctx.plugin(bashPlugin, { sandbox: config.sandbox, workspace }),
    ctx.plugin(fsPlugin, {}),
    ctx.plugin(readBeforeEditPlugin, {}),
    ctx.plugin(workspacePolicyPlugin, {}),
  ];
  if (config.toolMode !== "native") {
    const { codeModePlugin } = await import("../codemode/mod.ts");
    fibers.push(ctx.plugin(codeModePlugin, { mode: config.toolMode }));
  }
  if (Object.keys(config.mcpServers).length > 0) {
    const { mcpPlugin } = await import("../mcp/mod.ts");
    fibers.push(ctx.plugin(mcpPlugin, { servers: config.mcpServers }));
  }
  // `ready` rejects with the error of a plugin that failed to apply.
  for (const fiber of fibers) await fiber.ready;
}
