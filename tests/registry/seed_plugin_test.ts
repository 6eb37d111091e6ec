/** The seed page's plugin, written against the top-level `Context`, loaded and called for real. */
import { deepEqual, equal } from "node:assert/strict";
import { Context } from "../../core/context.ts";
import { toolsPlugin } from "../../registry/mod.ts";
import { tempDir } from "../_helpers.ts";
import * as seed from "./_seed_plugin.ts";
import { harness, text } from "./_harness.ts";

Deno.test("the seed read_file plugin registers, validates, runs and unregisters on dispose", async () => {
  await using h = await harness();
  await using dir = await tempDir();
  const file = `${dir.path}/a.txt`;
  await Deno.writeTextFile(file, "hello");
  const fiber = h.ctx.plugin(seed);
  equal(fiber.name, "my-tool");
  equal(fiber.state, "active");
  deepEqual(h.ctx.tools.schemas(), [{
    name: "read_file",
    description: "Read a file from disk.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "Absolute path" },
        limit: { type: "number" },
      },
      required: ["path"],
    },
  }]);
  const ok = await h.ctx.tools.execute({
    callId: "1",
    name: "read_file",
    arguments: { path: file },
  });
  deepEqual(ok, { isError: false, content: [{ type: "text", text: "hello" }] });
  const bad = await h.ctx.tools.execute({
    callId: "2",
    name: "read_file",
    arguments: { limit: "10" },
  });
  deepEqual(bad, {
    isError: true,
    content: [{
      type: "text",
      text:
        'Error: invalid arguments (2 problems):\n- "limit": expected number, received string "10"; fix: send 10\n- "path": expected string (required), received nothing (the key is missing); fix: send a string such as "text"',
    }],
    error: {
      message:
        'invalid arguments (2 problems):\n- "limit": expected number, received string "10"; fix: send 10\n- "path": expected string (required), received nothing (the key is missing); fix: send a string such as "text"',
      code: "INVALID_ARGS",
      name: "ToolArgsError",
    },
  });
  await fiber.dispose();
  equal(h.ctx.tools.get("read_file"), undefined);
  equal(
    text(await h.ctx.tools.execute({ callId: "3", name: "read_file", arguments: { path: file } })),
    'Error: unknown tool "read_file"',
  );
});

Deno.test("the seed plugin waits for ctx.tools and starts when it appears", async () => {
  const root = new Context({ logSink: () => {} });
  const fiber = root.plugin(seed);
  equal(fiber.state, "pending");
  root.plugin(toolsPlugin);
  equal(fiber.state, "active");
  equal(root.get<{ get(name: string): unknown }>("tools")?.get("read_file") !== undefined, true);
  await root.fiber.dispose();
});
