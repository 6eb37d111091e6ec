/**
 * The minimal tool plugin: one typed parameter, one text result.
 *
 * Load it with `ctx.plugin(echo)` (or `ctx.plugin({ name, inject, apply })` from this module's
 * namespace); disposing the plugin's fiber unregisters the tool.
 *
 * @module
 */
import { defineTool, type ToolsContext } from "@dsh/harness";

/** The plugin name. */
export const name = "echo";
/** Services needed before `apply` runs. */
export const inject: readonly string[] = ["tools"];

/**
 * Registers the `echo` tool.
 *
 * @param ctx The plugin context.
 */
export function apply(ctx: ToolsContext): void {
  ctx.tools.register(defineTool({
    name: "echo",
    description: "Repeat the given text back.",
    parameters: { text: { type: "string", required: true, description: "What to repeat" } },
    execute(args) {
      // args is typed from the schema: { text: string }
      return [{ type: "text", text: args.text }];
    },
  }));
}
