/**
 * Per-call overhead of an MCP tool over stdio (server-everything's `echo`, through the whole
 * `ctx.tools.execute()` pipeline) against a native echo tool in the same registry (baseline),
 * plus the bare SDK round trip without the registry. Run: `deno bench -A bench/mcp_bench.ts`.
 */
import { createHarness } from "../mod.ts";
import { McpClient, mcpPlugin } from "../mcp/mod.ts";

const bin = new URL(
  "../test_deps/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
  import.meta.url,
).pathname;
const server = { command: "node", args: [bin, "stdio"] };

const ctx = await createHarness({ logLevel: "error" });
ctx.tools.register({
  name: "echo",
  description: "Echoes back the input string",
  parameters: { type: "object", properties: { message: { type: "string" } } },
  execute: (args: { message: string }) => [{ type: "text", text: `Echo: ${args.message}` }],
});
await ctx.plugin(mcpPlugin, { servers: { everything: server } }).ready;
const client = await McpClient.connect("bare", server);
const signal = new AbortController().signal;
const args = { message: "hello" };

const native = await ctx.tools.execute({ callId: "n", name: "echo", arguments: args });
const viaMcp = await ctx.tools.execute({
  callId: "m",
  name: "mcp__everything__echo",
  arguments: args,
});
if (JSON.stringify(native.content) !== JSON.stringify(viaMcp.content)) {
  throw new Error(`Cannot bench: results differ ${JSON.stringify([native, viaMcp])}`);
}
for (let i = 0; i < 50; i++) {
  await ctx.tools.execute({ callId: "w", name: "mcp__everything__echo", arguments: args });
  await client.callTool("echo", args, { signal });
}

Deno.bench({
  group: "echo call",
  name: "native tool via ctx.tools.execute",
  baseline: true,
  async fn() {
    await ctx.tools.execute({ callId: "n", name: "echo", arguments: args });
  },
});

Deno.bench({
  group: "echo call",
  name: "MCP stdio tool via ctx.tools.execute",
  async fn() {
    await ctx.tools.execute({ callId: "m", name: "mcp__everything__echo", arguments: args });
  },
});

Deno.bench({
  group: "echo call",
  name: "MCP stdio bare McpClient.callTool (no registry)",
  async fn() {
    await client.callTool("echo", args, { signal });
  },
});

// Closing here would race the benches; stdin EOF at process exit stops both servers.
globalThis.addEventListener("unload", () => {
  void client.close();
  void ctx.fiber.dispose();
});
