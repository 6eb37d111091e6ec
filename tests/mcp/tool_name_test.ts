import { equal, match, notEqual } from "node:assert/strict";
import { mcpToolName } from "../../mcp/tool_name.ts";

Deno.test("mcpToolName() prefixes the server and keeps safe names", () => {
  equal(mcpToolName("everything", "get-sum"), "mcp__everything__get-sum");
});

Deno.test("mcpToolName() replaces characters outside [a-zA-Z0-9_-]", () => {
  equal(mcpToolName("my.server", "read file/ü"), "mcp__my_server__read_file__");
});

Deno.test("mcpToolName() cuts long names to 64 characters and keeps them distinct", () => {
  const a = mcpToolName("server", `${"x".repeat(80)}a`);
  const b = mcpToolName("server", `${"x".repeat(80)}b`);
  equal(a.length, 64);
  equal(b.length, 64);
  notEqual(a, b);
  match(a, /^[a-zA-Z0-9_-]{1,64}$/);
});
