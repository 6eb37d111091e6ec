/** A tool plugin under test, as a tool author would write it (zod parameters, a generic card). */
import { z } from "zod";
import { defineTool } from "../../mod.ts";
import type { ToolsContext } from "../../mod.ts";

/** The plugin name. */
export const name = "word-count";
/** Needs the registry. */
export const inject: readonly string[] = ["tools"];

/** Registers `word_count`. */
export function apply(ctx: ToolsContext): void {
  ctx.tools.register(defineTool({
    name: "word_count",
    description: "Count the words of a text.",
    parameters: z.object({ text: z.string().describe("The text to count") }),
    presentCall: (args) => ({
      card: "generic",
      kind: "other",
      title: `Count words of "${args.text}"`,
    }),
    presentResult: (_args, result) => ({
      card: "generic",
      title: result.isError ? "failed" : "counted",
    }),
    execute(args) {
      const words = args.text.split(/\s+/).filter((word) => word !== "").length;
      return { content: [{ type: "text", text: `${words} words` }], meta: { words } };
    },
  }));
}
