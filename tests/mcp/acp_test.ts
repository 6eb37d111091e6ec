import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { acpMcpServersToConfig, type McpStatusEvent, startAcpMcpServers } from "../../mcp/mod.ts";
import { EVERYTHING_BIN, harness, isGone, nextEvent } from "./_server.ts";
import { tempDir } from "../_helpers.ts";

Deno.test("acpMcpServersToConfig() converts stdio, http and sse entries", () => {
  deepEqual(
    acpMcpServersToConfig([
      { name: "a", command: "node", args: ["x.js"], env: [{ name: "K", value: "V" }] },
      { type: "stdio", name: "b", command: "b", args: [], env: [] },
      {
        type: "http",
        name: "c",
        url: "https://h/mcp",
        headers: [{ name: "Authorization", value: "t" }],
      },
      { type: "sse", name: "d", url: "https://h/sse", headers: [] },
    ], { reconnect: { initialDelayMs: 5 } }),
    {
      servers: {
        a: { command: "node", args: ["x.js"], env: { K: "V" } },
        b: { command: "b", args: [], env: {} },
        c: { url: "https://h/mcp", headers: { Authorization: "t" }, transport: "http" },
        d: { url: "https://h/sse", headers: {}, transport: "sse" },
      },
      reconnect: { initialDelayMs: 5 },
    },
  );
});

Deno.test("acpMcpServersToConfig() throws TypeError on duplicate names and unknown types", () => {
  throws(
    () =>
      acpMcpServersToConfig([
        { name: "a", command: "x", args: [], env: [] },
        { name: "a", command: "y", args: [], env: [] },
      ]),
    { name: "TypeError", message: 'Cannot start MCP servers: the name "a" is used twice' },
  );
  throws(
    () => acpMcpServersToConfig([{ type: "ws", name: "w", url: "x", headers: [] } as never]),
    {
      name: "TypeError",
      message:
        'Cannot start MCP server "w": type "ws" is not supported, expected "http", "sse" or a stdio entry',
    },
  );
});

Deno.test("startAcpMcpServers() starts session servers with env and cwd, scoped to a fiber", async () => {
  await using dir = await tempDir();
  await using ctx = await harness();
  const up = nextEvent<McpStatusEvent>(ctx, "mcp/status", (e) => e.state === "connected");
  const fiber = startAcpMcpServers(ctx, [{
    name: "editor",
    command: "node",
    args: [EVERYTHING_BIN, "stdio"],
    env: [{ name: "DSH_ACP_TEST", value: "from-acp" }],
  }], { cwd: dir.path });
  await fiber.ready;
  const { pid } = await up;
  ok(pid !== undefined);
  const outcome = await ctx.tools.execute({
    callId: "c1",
    name: "mcp__editor__get-env",
    arguments: {},
  });
  const env = JSON.parse((outcome.content[0] as { text: string }).text);
  equal(env.DSH_ACP_TEST, "from-acp");
  equal(await Deno.realPath(`/proc/${pid}/cwd`), await Deno.realPath(dir.path));
  await fiber.dispose();
  equal(ctx.tools.get("mcp__editor__get-env"), undefined);
  equal(await isGone(pid), true);
});

Deno.test("startAcpMcpServers() rejects an invalid entry before starting anything", async () => {
  await using ctx = await harness();
  throws(
    () => startAcpMcpServers(ctx, [{ type: "http", name: "bad", url: "ftp://x", headers: [] }]),
    {
      name: "TypeError",
      message:
        'Cannot configure MCP server "bad": "url" must be an http or https URL, current value is "ftp://x"',
    },
  );
});
