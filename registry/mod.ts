/**
 * The tool registry: the `ctx.tools` service, its `tools` plugin, `createHarness()` and the
 * pipeline types (pre-execute, guards, around-execute, post-execute, result).
 *
 * @example Usage
 * ```ts
 * import { createHarness } from "./mod.ts";
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
export { checkRegistryOptions, CODE_RUNNER_NAME, createToolRegistry } from "./tool_registry.ts";
export type { ToolRegistryOptions } from "./tool_registry.ts";
export { createHarness, toolsPlugin } from "./tools_plugin.ts";
export {
  checkPermissionRules,
  compilePermissionRules,
  globToRegExp,
  matchGlob,
} from "../tools/permission_rules.ts";
export { checkToolFilter, compileToolFilter } from "../tools/tool_filter.ts";
export type { ToolFilter } from "../tools/tool_filter.ts";
export type {
  PermissionMatcher,
  PermissionRule,
  RuleDecision,
  RuleMatch,
} from "../tools/permission_rules.ts";
export type { CreateHarnessOptions, ToolsContext } from "./tools_plugin.ts";
export type { ToolCall } from "./tool_call.ts";
export type * from "./types.ts";

// Types the signatures above use, re-exported so this entry point documents itself.
export type { Context, ContextOptions, Listener } from "../core/context.ts";
export type { Fiber, FiberState } from "../core/fiber.ts";
export type { JsonArray, JsonObject, JsonPrimitive, JsonValue } from "../core/json.ts";
export type { Logger, LogLevel, LogRecord, LogSink } from "../core/logger.ts";
export type { Disposer, Plugin, PluginFunction } from "../core/plugin.ts";
export type { ContentBlock, ImageBlock, ResourceBlock, TextBlock } from "../tools/content.ts";
export type * from "../tools/definition.ts";
export type * from "../tools/views.ts";
export type * from "./doc_types.ts";
