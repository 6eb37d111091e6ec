// The seed page's "minimal shape" example, as written except for the import paths.
import { readFile } from "node:fs/promises";
import type { ToolsContext as Context } from "../../mod.ts";
import { defineTool } from "../../mod.ts";

export const name = "my-tool";
export const inject = ["tools"];

export function apply(ctx: Context) {
  ctx.tools.register(defineTool({
    name: "read_file",
    description: "Read a file from disk.", // what the model sees
    parameters: {
      path: { type: "string", required: true, description: "Absolute path" },
      limit: { type: "number" }, // optional by default
    },
    // deno-lint-ignore no-unused-vars
    async execute(args, exec) {
      // args is TYPED from the schema: { path: string; limit?: number }
      // exec carries immutable identity + token; signal is the operational field
      return [{ type: "text", text: await readFile(args.path, "utf8") }];
    },
  }));
}
