/** defineTool definitions through the registry pipeline (INVALID_ARGS keeps its code). */
import { deepEqual, equal } from "node:assert/strict";
import { defineTool } from "../../tools/define_tool.ts";
import { harness, text } from "./_harness.ts";

Deno.test("execute() runs a defineTool body with validated arguments", async () => {
  await using h = await harness();
  h.ctx.tools.register(defineTool({
    name: "read_file",
    description: "Read a file",
    parameters: { path: { type: "string", required: true }, limit: { type: "number" } },
    execute: (args) => [{ type: "text", text: `${args.path}:${args.limit ?? "all"}` }],
  }));
  equal(
    text(await h.ctx.tools.execute({ callId: "1", name: "read_file", arguments: { path: "/a" } })),
    "/a:all",
  );
  deepEqual(h.ctx.tools.schemas()[0]?.name, "read_file");
});

Deno.test("execute() reports defineTool argument violations as INVALID_ARGS", async () => {
  await using h = await harness();
  let runs = 0;
  h.ctx.tools.register(defineTool({
    name: "read_file",
    description: "Read a file",
    parameters: { path: { type: "string", required: true } },
    execute: () => {
      runs++;
      return [];
    },
  }));
  const outcome = await h.ctx.tools.execute({
    callId: "1",
    name: "read_file",
    arguments: { path: 1 },
  });
  equal(outcome.isError, true);
  equal(outcome.error?.code, "INVALID_ARGS");
  equal(outcome.error?.name, "ToolArgsError");
  equal(text(outcome), `Error: ${outcome.error?.message}`);
  equal(outcome.error?.message.startsWith("invalid arguments: "), true);
  equal(runs, 0);
});
