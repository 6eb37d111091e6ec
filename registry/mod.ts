/**
 * The tool registry: the `ctx.tools` service, its `tools` plugin and the pipeline types
 * (pre-execute, guards, around-execute, post-execute, result). `createHarness()` comes out of the
 * root door.
 *
 * @example Usage
 * ```ts
 * import { createHarness } from "./tools_plugin.ts";
 * import { equal } from "node:assert/strict";
 * const ctx = await createHarness();
 * ctx.tools.register({
 *   name: "ping",
 *   description: "Answers pong",
 *   parameters: { type: "object" },
 *   execute: () => [{ type: "text", text: "pong" }],
 * });
 * const outcome = await ctx.tools.execute({ callId: "c1", name: "ping", arguments: {} });
 * equal(outcome.isError, false);
 * await ctx.fiber.dispose();
 * ```
 *
 * @module
 */
export { checkRegistryOptions, createToolRegistry } from "./tool_registry.ts";
export type { ToolRegistryOptions } from "./tool_registry.ts";
export { toolsPlugin } from "./tools_plugin.ts";

export type {
  DefinitionHook,
  ExecuteRequest,
  ListingHook,
  Next,
  PreExecuteMiddleware,
  RegisterOptions,
  ToolCall,
  ToolMiddleware,
  ToolRegistry,
} from "./types.ts";
export { TOOL_PHASES } from "./hooks.ts";
export type {
  ApprovalOutcome,
  ApprovalScope,
  ApprovalService,
  AroundExecution,
  AroundWrapper,
  Guard,
  PostExecuteDecision,
  PostExecuteListener,
  PreExecuteDecision,
  PreExecuteListener,
  ResultObserver,
  ToolPhase,
} from "./hooks.ts";
export type { ToolSchema } from "./types.ts";
