/**
 * dsh: a Deno-first tool harness for coding agents. This door names the embedder API: define a
 * tool, build a harness (a plugin's `apply(ctx)` gets its {@linkcode ToolsContext}), run an
 * agent. Every other name comes out of exactly one folder door, the one of the folder that
 * defines it (`@dsh/harness/core`, `/tools`, `/registry`, `/jobs`, `/agent`, `/testing`,
 * `/codemode`, `/acp`, `/mcp`, `/builtins`, `/remote`); `.ci/check_layers.ts` rule `one-door`
 * keeps it so.
 *
 * @example Usage
 * ```ts
 * import { createHarness, defineTool } from "./mod.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const ctx = await createHarness();
 * ctx.tools.register(defineTool({
 *   name: "echo",
 *   description: "Echo the text back.",
 *   parameters: { text: { type: "string", required: true } },
 *   execute: (args) => [{ type: "text", text: args.text }],
 * }));
 * const outcome = await ctx.tools.execute({ callId: "c1", name: "echo", arguments: { text: "hi" } });
 * deepEqual(outcome.content, [{ type: "text", text: "hi" }]);
 * await ctx.fiber.dispose();
 * ```
 *
 * @module
 */
export { defineTool } from "./tools/define_tool.ts";
export type {
  DefinedTool,
  DefineToolOptions,
  ToolArgs,
  ToolParameters,
} from "./tools/define_tool.ts";
export { createHarness } from "./registry/tools_plugin.ts";
export type { CreateHarnessOptions, ToolsContext } from "./registry/tools_plugin.ts";
export { Agent, createAgent } from "./agent/agent.ts";
export type { CreateAgentOptions } from "./agent/agent_options.ts";
