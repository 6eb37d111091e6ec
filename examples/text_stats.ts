/**
 * A tool plugin with zod parameters and an editor card: counts the lines, words and characters
 * of a text. The README's "Writing and testing your own tool" walks through it and its test
 * (`text_stats_test.ts`).
 *
 * @module
 */
import { z } from "zod";
import { defineTool, type ToolsContext } from "@dsh/harness";

/** The plugin name. */
export const name = "text-stats";
/** Services needed before `apply` runs. */
export const inject: readonly string[] = ["tools"];

/**
 * Registers `text_stats`.
 *
 * @param ctx The plugin context.
 */
export function apply(ctx: ToolsContext): void {
  ctx.tools.register(defineTool({
    name: "text_stats",
    description: "Count the lines, words and characters of a text.",
    parameters: z.object({
      text: z.string().describe("The text to measure"),
      unit: z.enum(["lines", "words", "chars"]).optional().describe("Only this count"),
    }),
    // The editor card (pure: no I/O); without it the editor shows a generic card.
    presentCall: (args) => ({
      card: "generic",
      kind: "other",
      title: `Measure ${args.text.length} characters`,
    }),
    execute(args) {
      // args is typed from the zod schema: { text: string; unit?: "lines" | "words" | "chars" }
      const counts = {
        lines: args.text === "" ? 0 : args.text.split("\n").length,
        words: args.text.split(/\s+/).filter((word) => word !== "").length,
        chars: [...args.text].length,
      };
      const text = args.unit === undefined
        ? `${counts.lines} lines, ${counts.words} words, ${counts.chars} characters`
        : `${counts[args.unit]} ${args.unit}`;
      return { content: [{ type: "text", text }], meta: counts };
    },
  }));
}
