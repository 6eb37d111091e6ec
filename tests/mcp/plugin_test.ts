import { deepEqual, equal, match, ok } from "node:assert/strict";
import { createHarness, type ToolsContext } from "../../mod.ts";
import { mcpPlugin, type McpProgressEvent, type McpStatusEvent } from "../../mcp/mod.ts";
import type { Fiber } from "../../core/context.ts";
import { EVERYTHING, isGone, nextEvent } from "./_server.ts";

interface Running extends AsyncDisposable {
  readonly ctx: ToolsContext;
  readonly fiber: Fiber;
  readonly pid: number;
}

async function startEverything(): Promise<Running> {
  const ctx = await createHarness({ logLevel: "error" });
  const connected = nextEvent<McpStatusEvent>(ctx, "mcp/status", (e) => e.state === "connected");
  const fiber = ctx.plugin(mcpPlugin, { servers: { everything: EVERYTHING } });
  await fiber.ready;
  const { pid } = await connected;
  ok(pid !== undefined);
  return { ctx, fiber, pid, [Symbol.asyncDispose]: () => ctx.fiber.dispose() };
}

const text = (value: string) => [{ type: "text", text: value }];

Deno.test("mcpPlugin serves a real server's tools through ctx.tools", async (t) => {
  await using server = await startEverything();

  await t.step("registers server tools as raw JSON-Schema tools with their schemas", () => {
    const echo = server.ctx.tools.get("mcp__everything__echo");
    ok(echo);
    equal(echo.description, "Echoes back the input string");
    deepEqual(echo.parameters, {
      type: "object",
      properties: { message: { type: "string", description: "Message to echo" } },
      required: ["message"],
      $schema: "http://json-schema.org/draft-07/schema#",
    });
    const schema = server.ctx.tools.schemas().find((s) => s.name === "mcp__everything__get-sum");
    deepEqual(schema?.parameters.required, ["a", "b"]);
    equal(server.ctx.tools.isConcurrencySafe("mcp__everything__echo", { message: "x" }), true);
    equal(
      server.ctx.tools.isConcurrencySafe("mcp__everything__toggle-simulated-logging", {}),
      false,
    );
    equal(server.ctx.tools.get("mcp__everything__simulate-research-query"), undefined);
  });

  await t.step("tools run through ctx.tools.execute()", async () => {
    const { tools } = server.ctx;
    const echo = await tools.execute({
      callId: "c1",
      name: "mcp__everything__echo",
      arguments: { message: "hi there" },
    });
    deepEqual(echo.content, text("Echo: hi there"));
    equal(echo.isError, false);
    deepEqual(echo.meta, { mcp: { server: "everything", tool: "echo" } });
    const sum = await tools.execute({
      callId: "c2",
      name: "mcp__everything__get-sum",
      arguments: { a: 2, b: 40 },
    });
    deepEqual(sum.content, text("The sum of 2 and 40 is 42."));
    const image = await tools.execute({
      callId: "c3",
      name: "mcp__everything__get-tiny-image",
      arguments: {},
    });
    deepEqual(image.content.map((block) => block.type), ["text", "image", "text"]);
  });

  await t.step("passes arguments unvalidated and maps server isError to Error: text", async () => {
    const outcome = await server.ctx.tools.execute({
      callId: "c1",
      name: "mcp__everything__get-sum",
      arguments: { a: "two" },
    });
    equal(outcome.isError, true);
    equal(outcome.content.length, 1);
    match(
      (outcome.content[0] as { text: string }).text,
      /^Error: MCP error -32602: Input validation error: Invalid arguments for tool get-sum/,
    );
  });

  await t.step("streams progress to exec.output and mcp/progress", async () => {
    const chunks: string[] = [];
    const events: McpProgressEvent[] = [];
    server.ctx.on("mcp/progress", (event: McpProgressEvent) => events.push(event));
    const outcome = await server.ctx.tools.execute({
      callId: "long",
      name: "mcp__everything__trigger-long-running-operation",
      arguments: { duration: 0.4, steps: 4 },
      onOutput: (chunk) => chunks.push(chunk),
    });
    deepEqual(
      outcome.content,
      text("Long running operation completed. Duration: 0.4 seconds, Steps: 4."),
    );
    // The SDK may drop the last notification before the result: expect the first.
    equal(chunks[0], "progress 1/4\n");
    deepEqual(events[0], {
      server: "everything",
      tool: "trigger-long-running-operation",
      callId: "long",
      progress: 1,
      total: 4,
    });
  });

  await t.step("cancels a running call when the caller aborts", async () => {
    const controller = new AbortController();
    server.ctx.on("mcp/progress", () => controller.abort());
    const outcome = await server.ctx.tools.execute({
      callId: "c1",
      name: "mcp__everything__trigger-long-running-operation",
      arguments: { duration: 1, steps: 10 },
      signal: controller.signal,
    });
    equal(outcome.isError, true);
    equal(outcome.error?.code, "ABORTED");
    const echo = await server.ctx.tools.execute({
      callId: "c2",
      name: "mcp__everything__echo",
      arguments: { message: "after cancel" },
    });
    deepEqual(echo.content, text("Echo: after cancel"));
  });
});

Deno.test("disposing mcpPlugin unregisters the tools and stops the server process", async () => {
  await using server = await startEverything();
  ok(server.ctx.tools.get("mcp__everything__echo"));
  equal(await isGone(server.pid), false);
  await server.fiber.dispose();
  equal(server.ctx.tools.get("mcp__everything__echo"), undefined);
  equal(await isGone(server.pid), true);
});
