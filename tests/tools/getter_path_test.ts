/**
 * Issue 20: arguments with a getter that throws are refused with the path of that property,
 * through the registry (the lossless snapshot) and through a defineTool body called directly.
 */
import { equal, throws } from "node:assert/strict";
import { defineTool } from "../../tools/define_tool.ts";
import { harness } from "../registry/_harness.ts";

function hostile(): Record<string, unknown> {
  return {
    query: "ok",
    options: {
      list: [
        1,
        {
          get depth() {
            throw new RangeError("depth is not ready");
          },
        },
      ],
    },
  };
}

const tool = defineTool({
  name: "search",
  description: "Searches.",
  parameters: {
    query: { type: "string", required: true },
    options: { type: "json" },
  },
  execute: () => [{ type: "text", text: "ran" }],
});

Deno.test("the registry names the path of a throwing getter in the arguments", async () => {
  await using h = await harness();
  h.ctx.tools.register(tool);
  const outcome = await h.ctx.tools.execute({ callId: "c1", name: "search", arguments: hostile() });
  equal(outcome.error?.code, "INVALID_ARGS");
  equal(
    outcome.error?.message,
    'tool execution arguments must be losslessly JSON-serializable: "options.list[1].depth" could not be read (its getter threw: depth is not ready)',
  );
});

Deno.test("a defineTool body called directly names the path of a throwing getter", () => {
  throws(() => tool.execute(hostile() as never, {} as never), {
    message:
      'invalid arguments: "options.list[1].depth" could not be read (its getter threw: depth is not ready)',
  });
});
