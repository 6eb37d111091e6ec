/**
 * The `tools` plugin (provides `ctx.tools`) and `createHarness()`, a root context with it loaded.
 *
 * @module
 */
import { Context, type ContextOptions, type Plugin } from "../core/context.ts";
import {
  checkRegistryOptions,
  createToolRegistry,
  type ToolRegistryOptions,
} from "./tool_registry.ts";
import type { ToolRegistry } from "./types.ts";
import type { ApprovalService } from "./hooks.ts";

/** A context on which `ctx.tools` is provided (and `ctx.approval` may be). */
export type ToolsContext = Context<{
  /** The tool registry. */
  readonly tools: ToolRegistry;
  /** The optional approval channel `ask` decisions are routed to. */
  readonly approval?: ApprovalService;
}>;

/**
 * The plugin that provides `ctx.tools` (a {@linkcode ToolRegistry}); its config is
 * {@linkcode ToolRegistryOptions}. Disposing it withdraws the service, which stops every plugin
 * that injects `tools`.
 *
 * @example Usage
 * ```ts
 * import { Context } from "../core/context.ts";
 * import { toolsPlugin, type ToolsContext } from "./tools_plugin.ts";
 * import { equal } from "node:assert/strict";
 * const root = new Context();
 * root.plugin(toolsPlugin, { defaultTimeoutMs: 60_000 });
 * equal((root as ToolsContext).tools.list().length, 0);
 * ```
 */
export const toolsPlugin: Plugin<ToolRegistryOptions | undefined> = {
  name: "tools",
  apply(ctx: Context, options: ToolRegistryOptions | undefined): void {
    ctx.provide("tools", createToolRegistry(ctx, options));
  },
};

/** Options of {@linkcode createHarness}: the root context's and the registry's. */
export interface CreateHarnessOptions extends ContextOptions, ToolRegistryOptions {}

/**
 * Builds a root context with `ctx.tools` provided — the usual starting point for embedders and
 * tests. Dispose everything with `await ctx.fiber.dispose()`.
 *
 * @param options Root name, logging, registry deadlines and reserved names.
 * @returns The root context.
 * @throws {RangeError} When a registry option is invalid.
 *
 * @example Usage
 * ```ts
 * import { createHarness, type ToolsContext } from "./tools_plugin.ts";
 * import { equal } from "node:assert/strict";
 * const ctx = await createHarness();
 * const fiber = ctx.plugin({
 *   name: "echo",
 *   inject: ["tools"],
 *   apply(ctx: ToolsContext) {
 *     ctx.tools.register({
 *       name: "echo",
 *       description: "Echo the text back",
 *       parameters: { type: "object" },
 *       execute: (args: { text: string }) => [{ type: "text", text: args.text }],
 *     });
 *   },
 * });
 * const outcome = await ctx.tools.execute({ callId: "1", name: "echo", arguments: { text: "hi" } });
 * equal(outcome.content[0]?.type === "text" && outcome.content[0].text, "hi");
 * await fiber.dispose();
 * equal(ctx.tools.get("echo"), undefined);
 * await ctx.fiber.dispose();
 * ```
 */
export async function createHarness(options: CreateHarnessOptions = {}): Promise<ToolsContext> {
  const { defaultTimeoutMs, abortGraceMs, reservedNames, ...contextOptions } = options;
  checkRegistryOptions(options);
  const root = new Context(contextOptions);
  const fiber = root.plugin(toolsPlugin, {
    ...(defaultTimeoutMs === undefined ? {} : { defaultTimeoutMs }),
    ...(abortGraceMs === undefined ? {} : { abortGraceMs }),
    ...(reservedNames === undefined ? {} : { reservedNames }),
  });
  try {
    await fiber.ready;
  } catch (error) {
    await root.fiber.dispose();
    throw error;
  }
  return root as ToolsContext;
}
