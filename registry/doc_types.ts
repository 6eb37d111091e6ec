/**
 * The core, tools and registry types that the entry points' signatures use; each entry point
 * re-exports them with `export type * from` so it passes `deno doc --lint` on its own.
 *
 * @module
 */
export type * from "../core/plugin.ts";
export type * from "../tools/definition.ts";
export type * from "../tools/views.ts";
export type * from "./types.ts";
export type { Context, Listener } from "../core/context.ts";
export type { Fiber, FiberState } from "../core/fiber.ts";
export type { JsonArray, JsonObject, JsonPrimitive, JsonValue } from "../core/json.ts";
export type { Logger } from "../core/logger.ts";
export type { ContentBlock, ImageBlock, ResourceBlock, TextBlock } from "../tools/content.ts";
export type { ToolFilter } from "../tools/tool_filter.ts";
export type { ToolCall } from "./tool_call.ts";
