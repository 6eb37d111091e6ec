/**
 * MCP faults of issue 14 with real server processes: a server that never answers initialize,
 * one that exits at start, a reconnect window, an oversized result, and a stubborn close.
 */
import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { HarnessError } from "../../core/errors.ts";
import { McpClient, mcpPlugin, mcpServerPlugin, type McpStatusEvent } from "../../mcp/mod.ts";
import type { McpStdioServerConfig } from "../../mcp/config.ts";
import { EVERYTHING, harness, isGone, nextEvent } from "./_server.ts";

const FAULT_SERVER = new URL("./_fault_server.ts", import.meta.url).pathname;

function fault(mode: string, extra: Partial<McpStdioServerConfig> = {}): McpStdioServerConfig {
  return { command: Deno.execPath(), args: ["run", "--quiet", FAULT_SERVER, mode], ...extra };
}

const text = (value: string) => [{ type: "text", text: value }];

Deno.test("connectTimeoutMs bounds a server that never answers initialize, and the process is gone", async () => {
  let pid: number | undefined;
  await rejects(
    McpClient.connect("silent", fault("silent", { connectTimeoutMs: 300 }), {
      onStderr: () => {},
    }).then((client) => (pid = client.pid, client.close())),
    (error: unknown) => {
      ok(error instanceof HarnessError, String(error));
      equal(error.code, "MCP_CONNECT_TIMEOUT");
      equal(
        error.message,
        'Cannot connect to MCP server "silent": the server did not answer initialize within 300 ms (connectTimeoutMs)',
      );
      return true;
    },
  );
  equal(pid, undefined);
  // No process of the fault server is left behind.
  const left = await new Deno.Command("pgrep", {
    args: ["-f", `${FAULT_SERVER} silent`],
    stdout: "piped",
  }).output();
  equal(new TextDecoder().decode(left.stdout).trim(), "");
});

Deno.test("mcpServerPlugin reports a silent server as disconnected after connectTimeoutMs and retries", async () => {
  await using ctx = await harness();
  const down = nextEvent<McpStatusEvent>(ctx, "mcp/status");
  const fiber = ctx.plugin(mcpServerPlugin, {
    name: "silent",
    server: fault("silent"),
    connectTimeoutMs: 200,
    reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
  });
  await fiber.ready;
  deepEqual(await down, {
    server: "silent",
    state: "disconnected",
    reason: "the server did not answer initialize within 200 ms (connectTimeoutMs)",
    retryInMs: 60_000,
    attempt: 1,
  });
  // Its tools were never listed: a call says the server is not connected and why.
  const outcome = await ctx.tools.execute({
    callId: "c1",
    name: "mcp__silent__echo",
    arguments: {},
  });
  equal(outcome.error?.code, "MCP_SERVER_NOT_CONNECTED");
  match(
    outcome.error?.message ?? "",
    /^MCP server "silent" is not connected, so its tool "mcp__silent__echo" is not known: the server did not answer initialize within 200 ms \(connectTimeoutMs\) \(next try in \d+\.\d s\); its tools register when it answers$/,
  );
  // Other names are still unknown tools.
  equal(
    (await ctx.tools.execute({ callId: "c2", name: "nope", arguments: {} })).error?.code,
    "UNKNOWN_TOOL",
  );
  await fiber.dispose();
  const after = await ctx.tools.execute({ callId: "c3", name: "mcp__silent__echo", arguments: {} });
  equal(after.error?.code, "UNKNOWN_TOOL");
});

Deno.test("a server that never answers initialize is a timeout, not its exit at stdin EOF", async () => {
  // The timed-out handshake closes the server's stdin and this server then exits with code 0:
  // that exit is not the cause. Whichever of the SDK's request timeout and the connect deadline
  // fires first, the message is the same.
  for (let i = 0; i < 3; i++) {
    await rejects(
      McpClient.connect("silent", fault("mute", { connectTimeoutMs: 100 + 50 * i }), {
        onStderr: () => {},
      }),
      (error: unknown) => {
        ok(error instanceof HarnessError, String(error));
        equal(
          error.message,
          `Cannot connect to MCP server "silent": the server did not answer initialize within ${
            100 + 50 * i
          } ms (connectTimeoutMs)`,
        );
        return true;
      },
    );
  }
});

Deno.test("a server that exits at start names its exit code and stderr reason", async () => {
  await rejects(
    McpClient.connect("broken", fault("exit")),
    (error: unknown) => {
      ok(error instanceof HarnessError, String(error));
      equal(error.code, "MCP_SERVER_EXITED");
      equal(
        error.message,
        'Cannot connect to MCP server "broken": the server exited with code 2 during start-up; its stderr ends with: fault server: missing API key FAULT_TOKEN; set it in the server\'s env',
      );
      return true;
    },
  );
});

Deno.test("a call during a reconnect says the server is restarting, with attempt and next try", async () => {
  await using ctx = await harness();
  const up = nextEvent<McpStatusEvent>(ctx, "mcp/status", (e) => e.state === "connected");
  const fiber = ctx.plugin(mcpServerPlugin, {
    name: "everything",
    server: EVERYTHING,
    reconnect: { initialDelayMs: 60_000 },
  });
  await fiber.ready;
  const { pid } = await up;
  const down = nextEvent<McpStatusEvent>(ctx, "mcp/status", (e) => e.state === "disconnected");
  Deno.kill(pid!, "SIGKILL");
  equal((await down).reason, "was killed by SIGKILL");
  const outcome = await ctx.tools.execute({
    callId: "c1",
    name: "mcp__everything__echo",
    arguments: { message: "hi" },
  });
  equal(outcome.error?.code, "MCP_SERVER_RESTARTING");
  match(
    outcome.content[0]!.type === "text" ? outcome.content[0]!.text : "",
    /^Error: MCP server "everything" is restarting \(attempt 1, next try in \d+\.\d s\): was killed by SIGKILL$/,
  );
  await fiber.dispose();
  equal(ctx.tools.get("mcp__everything__echo"), undefined);
});

Deno.test("a result over the stdio size limit says so, and the connection keeps working", async () => {
  await using ctx = await harness();
  const fiber = ctx.plugin(mcpServerPlugin, { name: "fault", server: fault("big") });
  await fiber.ready;
  const big = await ctx.tools.execute({ callId: "c1", name: "mcp__fault__big", arguments: {} });
  equal(big.isError, true);
  match(
    big.error?.message ?? "",
    /^MCP server "fault" failed the call to "big": MCP error -32603: the server sent a message of \d+ bytes, over the 10 MiB \(10485760 bytes\) limit of the MCP stdio transport; the result was dropped/,
  );
  const tail = await ctx.tools.execute({
    callId: "c3",
    name: "mcp__fault__bigtail",
    arguments: {},
  });
  match(tail.error?.message ?? "", /MCP error -32603: the server sent a message of \d+ bytes/);
  const small = await ctx.tools.execute({ callId: "c2", name: "mcp__fault__small", arguments: {} });
  deepEqual(small.content, text("ok"));
  await fiber.dispose();
});

Deno.test("an oversized message without an id closes the connection with that reason", async () => {
  await using ctx = await harness();
  const fiber = ctx.plugin(mcpServerPlugin, {
    name: "fault",
    server: fault("big"),
    reconnect: { initialDelayMs: 60_000 },
  });
  await fiber.ready;
  const down = nextEvent<McpStatusEvent>(ctx, "mcp/status", (e) => e.state === "disconnected");
  const outcome = await ctx.tools.execute({
    callId: "c1",
    name: "mcp__fault__noid",
    arguments: {},
  });
  equal(outcome.error?.code, "MCP_SERVER_EXITED");
  match(
    outcome.error?.message ?? "",
    /^MCP server "fault" sent a message of \d+ bytes, over the 10 MiB \(10485760 bytes\) limit of the MCP stdio transport during the call to "noid"/,
  );
  match((await down).reason ?? "", /^sent a message of \d+ bytes, over the 10 MiB/);
  await fiber.dispose();
});

Deno.test("close() kills a server that ignores stdin EOF and SIGTERM", async () => {
  const client = await McpClient.connect("stubborn", fault("stubborn"));
  const pid = client.pid!;
  ok(pid > 0);
  await client.close();
  equal(await isGone(pid), true);
});

Deno.test("disposing mcpPlugin closes stubborn servers together and leaves no process", async () => {
  await using ctx = await harness();
  const pids: number[] = [];
  ctx.on("mcp/status", (e: McpStatusEvent) => e.pid !== undefined && pids.push(e.pid));
  const fiber = ctx.plugin(mcpPlugin, {
    servers: { one: fault("stubborn"), two: fault("stubborn") },
  });
  await fiber.ready;
  equal(pids.length, 2);
  await fiber.dispose();
  deepEqual(await Promise.all(pids.map(isGone)), [true, true]);
});
