import { deepEqual, equal } from "node:assert/strict";
import type { ToolsContext as Context } from "../../mod.ts";
import { defineTool } from "../../mod.ts";
import type { StandardSchemaV1 } from "../../tools/standard_schema.ts";
import { assertAcpSnapshot } from "../../testing/mod.ts";
import { textResponse, toolCallResponse } from "../../agent/mod.ts";

/** A Standard Schema whose validate counts its runs, so the test sees every validation. */
function countingSchema(runs: string[]): StandardSchemaV1<{ text: string }> {
  return {
    "~standard": {
      version: 1 as const,
      vendor: "counting",
      validate(value: unknown) {
        const text = (value as { text?: unknown }).text;
        runs.push(String(text));
        return typeof text === "string"
          ? { value: { text } }
          : { issues: [{ message: "expected a string", path: ["text"] }] };
      },
      jsonSchema: {
        input: () => ({
          type: "object",
          properties: { text: { type: "string" } },
          required: ["text"],
        }),
      },
    },
  };
}

Deno.test("a model call is validated once: presenters, isConcurrencySafe and the body share it", async () => {
  const runs: string[] = [];
  const plugin = {
    name: "shout",
    inject: ["tools"],
    apply(ctx: Context) {
      ctx.tools.register(defineTool({
        name: "shout",
        description: "Upper-case a text.",
        parameters: countingSchema(runs),
        isConcurrencySafe: () => true,
        presentCall: (args) => ({ card: "generic", kind: "other", title: `Shout ${args.text}` }),
        presentResult: (args) => ({ card: "generic", text: args.text.toUpperCase() }),
        execute: (args) => [{ type: "text", text: args.text.toUpperCase() }],
      }));
    },
  };
  const run = await assertAcpSnapshot(new URL("./snapshots/validate_once.jsonl", import.meta.url), {
    plugins: [plugin],
    script: [
      toolCallResponse("c1", "shout", { text: "hi" }),
      toolCallResponse("c2", "shout", { text: 5 }),
      textResponse("done"),
    ],
  });
  // One validation per call: "hi" for the valid one, "5" for the rejected one.
  deepEqual(runs, ["hi", "5"]);
  const cards = run.transcript.filter((line) => line.includes('"title":"Shout hi"'));
  equal(cards.length > 0, true);
});
