import { equal, throws } from "node:assert/strict";
import { checkMcpServerConfig } from "../../mcp/config.ts";

Deno.test("checkMcpServerConfig() accepts stdio and http entries", () => {
  const stdio = { command: "node", args: ["a.js"], env: { A: "1" }, cwd: "/tmp" };
  equal(checkMcpServerConfig("a", stdio), stdio);
  const http = { url: "https://example.com/mcp", headers: { Authorization: "x" } };
  equal(checkMcpServerConfig("b", http), http);
});

Deno.test("checkMcpServerConfig() throws TypeError on malformed entries", () => {
  throws(() => checkMcpServerConfig("x", null), {
    name: "TypeError",
    message:
      'Cannot configure MCP server "x": current value is null, expected an object with "command" or "url"',
  });
  throws(() => checkMcpServerConfig("x", { command: "a", url: "http://b" }), {
    name: "TypeError",
    message:
      'Cannot configure MCP server "x": expected exactly one of a non-empty "command" string or a "url" string',
  });
  throws(() => checkMcpServerConfig("x", { command: "a", args: [1] }), {
    name: "TypeError",
    message:
      'Cannot configure MCP server "x": "args" must be an array of strings, current value is [1]',
  });
  throws(() => checkMcpServerConfig("x", { url: "ftp://host" }), {
    name: "TypeError",
    message:
      'Cannot configure MCP server "x": "url" must be an http or https URL, current value is "ftp://host"',
  });
  throws(() => checkMcpServerConfig("x", { url: "http://h", headers: { a: 1 } }), {
    name: "TypeError",
    message:
      'Cannot configure MCP server "x": "headers" must map names to strings, current value is {"a":1}',
  });
});

Deno.test("checkMcpServerConfig() throws RangeError on a bad timeoutMs", () => {
  throws(() => checkMcpServerConfig("x", { command: "a", timeoutMs: 0 }), {
    name: "RangeError",
    message:
      'Cannot configure MCP server "x": "timeoutMs" must be a positive finite number, current value is 0',
  });
});

Deno.test("checkMcpServerConfig() accepts connectTimeoutMs and throws RangeError on a bad one", () => {
  checkMcpServerConfig("a", { command: "x", connectTimeoutMs: 2500 });
  checkMcpServerConfig("b", { url: "https://example.com/mcp", connectTimeoutMs: 1 });
  throws(
    () => checkMcpServerConfig("c", { command: "x", connectTimeoutMs: 0 }),
    {
      name: "RangeError",
      message:
        'Cannot configure MCP server "c": "connectTimeoutMs" must be a positive finite number, current value is 0',
    },
  );
});
