import { deepEqual, equal, notEqual, ok } from "node:assert/strict";
import { mcpServerPlugin, type McpStatusEvent } from "../../mcp/mod.ts";
import { DYNAMIC, EVERYTHING, EVERYTHING_BIN, harness, isGone, nextEvent } from "./_server.ts";

const text = (value: string) => [{ type: "text", text: value }];
const isConnected = (e: McpStatusEvent) => e.state === "connected";

Deno.test("mcpServerPlugin re-registers tools on tools/list_changed", async () => {
  await using ctx = await harness();
  const fiber = ctx.plugin(mcpServerPlugin, { name: "dyn", server: DYNAMIC });
  await fiber.ready;
  deepEqual(ctx.tools.list().map((t) => t.name), ["mcp__dyn__add_tool", "mcp__dyn__remove_tool"]);
  const before = ctx.tools.get("mcp__dyn__add_tool");

  const added = nextEvent<McpStatusEvent>(ctx, "mcp/status", (e) => e.tools?.length === 3);
  const add = await ctx.tools.execute({
    callId: "c1",
    name: "mcp__dyn__add_tool",
    arguments: { name: "extra" },
  });
  deepEqual(add.content, text("ok"));
  deepEqual((await added).tools, [
    "mcp__dyn__add_tool",
    "mcp__dyn__remove_tool",
    "mcp__dyn__extra",
  ]);
  // Old definitions were disposed and new ones registered.
  notEqual(ctx.tools.get("mcp__dyn__add_tool"), before);
  equal(ctx.tools.get("mcp__dyn__extra")?.description, "Added tool extra");
  const extra = await ctx.tools.execute({ callId: "c2", name: "mcp__dyn__extra", arguments: {} });
  deepEqual(extra.content, text("extra ran"));

  const removed = nextEvent<McpStatusEvent>(ctx, "mcp/status", (e) => e.tools?.length === 2);
  await ctx.tools.execute({
    callId: "c3",
    name: "mcp__dyn__remove_tool",
    arguments: { name: "extra" },
  });
  await removed;
  equal(ctx.tools.get("mcp__dyn__extra"), undefined);
});

Deno.test("mcpServerPlugin fails a call in flight when the server dies, unregisters and reconnects", async () => {
  await using ctx = await harness();
  const first = nextEvent<McpStatusEvent>(ctx, "mcp/status", isConnected);
  const fiber = ctx.plugin(mcpServerPlugin, {
    name: "everything",
    server: EVERYTHING,
    reconnect: { initialDelayMs: 1, maxDelayMs: 10 },
  });
  await fiber.ready;
  const { pid } = await first;
  ok(pid !== undefined);

  const disconnected = nextEvent<McpStatusEvent>(
    ctx,
    "mcp/status",
    (e) => e.state === "disconnected",
  );
  const reconnected = nextEvent<McpStatusEvent>(
    ctx,
    "mcp/status",
    (e) => isConnected(e) && e.pid !== pid,
  );
  ctx.on(
    "mcp/progress",
    (e: { progress: number }) => e.progress === 1 && Deno.kill(pid, "SIGKILL"),
  );
  const outcome = await ctx.tools.execute({
    callId: "c1",
    name: "mcp__everything__trigger-long-running-operation",
    arguments: { duration: 30, steps: 300 },
  });
  equal(outcome.isError, true);
  deepEqual(
    outcome.content,
    text(
      'Error: MCP server "everything" was killed by SIGKILL during the call to "trigger-long-running-operation"; its tools are unavailable until it restarts',
    ),
  );
  equal(outcome.error?.code, "MCP_SERVER_EXITED");
  const down = await disconnected;
  equal(down.reason, "was killed by SIGKILL");
  equal(down.retryInMs, 1);

  const up = await reconnected;
  ok(up.pid !== undefined && up.pid !== pid);
  const echo = await ctx.tools.execute({
    callId: "c2",
    name: "mcp__everything__echo",
    arguments: { message: "back" },
  });
  deepEqual(echo.content, text("Echo: back"));
  await fiber.dispose();
  equal(await isGone(up.pid), true);
});

Deno.test("mcpServerPlugin keeps the tools of a server that exits, answering why they cannot run", async () => {
  await using ctx = await harness();
  const fiber = ctx.plugin(mcpServerPlugin, {
    name: "everything",
    server: EVERYTHING,
    reconnect: { enabled: false },
  });
  const up = nextEvent<McpStatusEvent>(ctx, "mcp/status", isConnected);
  await fiber.ready;
  const { pid } = await up;
  ok(ctx.tools.get("mcp__everything__echo"));
  const down = nextEvent<McpStatusEvent>(ctx, "mcp/status", (e) => e.state === "disconnected");
  Deno.kill(pid!, "SIGTERM");
  deepEqual(await down, {
    server: "everything",
    state: "disconnected",
    reason: "was killed by SIGTERM",
  });
  const outcome = await ctx.tools.execute({
    callId: "c1",
    name: "mcp__everything__echo",
    arguments: { message: "hi" },
  });
  deepEqual(
    outcome.content,
    text(
      'Error: MCP server "everything" was killed by SIGTERM; reconnecting is off, so its tools are unavailable',
    ),
  );
  equal(outcome.error?.code, "MCP_SERVER_EXITED");
});

Deno.test("mcpServerPlugin keeps retrying a server that fails to start", async () => {
  await using ctx = await harness();
  const attempts: McpStatusEvent[] = [];
  const third = Promise.withResolvers<void>();
  ctx.on("mcp/status", (e: McpStatusEvent) => {
    attempts.push(e);
    if (attempts.length === 3) third.resolve();
  });
  const fiber = ctx.plugin(mcpServerPlugin, {
    name: "broken",
    server: { command: "node", args: [EVERYTHING_BIN, "no-such-transport"] },
    reconnect: { initialDelayMs: 1, factor: 3 },
  });
  await fiber.ready;
  equal(fiber.state, "active");
  await third.promise;
  deepEqual(attempts.map((e) => [e.state, e.retryInMs]), [
    ["disconnected", 1],
    ["disconnected", 3],
    ["disconnected", 9],
  ]);
  equal(ctx.tools.list().length, 0);
});

Deno.test("mcpServerPlugin progress restarts the call deadline; silence times out", async () => {
  await using ctx = await harness();
  const fiber = ctx.plugin(mcpServerPlugin, {
    name: "everything",
    server: { ...EVERYTHING, timeoutMs: 1000 },
  });
  await fiber.ready;
  // 2 s in total, one notification every 100 ms: only the restarts let it finish.
  const long = await ctx.tools.execute({
    callId: "c1",
    name: "mcp__everything__trigger-long-running-operation",
    arguments: { duration: 2, steps: 20 },
  });
  deepEqual(
    long.content,
    text("Long running operation completed. Duration: 2 seconds, Steps: 20."),
  );
  const silent = await ctx.tools.execute({
    callId: "c2",
    name: "mcp__everything__trigger-long-running-operation",
    arguments: { duration: 60, steps: 1 },
  });
  deepEqual(
    silent.content,
    text(
      'Error: MCP tool "trigger-long-running-operation" on server "everything" timed out: no result or progress for 1000 ms',
    ),
  );
  equal(silent.error?.code, "TOOL_TIMEOUT");
});
