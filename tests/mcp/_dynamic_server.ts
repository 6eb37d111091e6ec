/**
 * A tiny stdio MCP server (built on the pinned SDK's low-level Server) whose tool list changes
 * at runtime: `add_tool {name}` adds a tool and `remove_tool {name}` removes one, each followed
 * by `notifications/tools/list_changed`. Used only by the list_changed tests.
 */
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const extra = new Set<string>();
const nameArg = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
} as const;
const server = new Server(
  { name: "dynamic", version: "1.0.0" },
  { capabilities: { tools: { listChanged: true } } },
);
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    { name: "add_tool", description: "Adds a tool", inputSchema: nameArg },
    { name: "remove_tool", description: "Removes a tool", inputSchema: nameArg },
    ...[...extra].map((name) => ({
      name,
      description: `Added tool ${name}`,
      inputSchema: { type: "object" as const, properties: {} },
    })),
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args } = request.params;
  const target = String((args as { name?: unknown } | undefined)?.name);
  if (name === "add_tool") extra.add(target);
  else if (name === "remove_tool") extra.delete(target);
  else if (extra.has(name)) return { content: [{ type: "text", text: `${name} ran` }] };
  else return { content: [{ type: "text", text: `no tool ${name}` }], isError: true };
  await server.sendToolListChanged();
  return { content: [{ type: "text", text: "ok" }] };
});
await server.connect(new StdioServerTransport());
