/**
 * A tiny real MCP stdio server with faults, chosen by the first argument:
 * - `silent`: reads stdin and never answers (not even `initialize`), and outlives stdin EOF;
 * - `mute`: reads stdin and never answers, and exits with code 0 at stdin EOF (as most servers do);
 * - `exit`: writes a reason to stderr and exits with code 2 before answering;
 * - `big`: a working server whose tools `big` and `bigtail` (id last, as the TypeScript SDK
 *   writes it) answer with 11 MiB of text, `noid` sends an
 *   oversized notification (no id to fail), and `small` answers `ok`;
 * - `stubborn`: a working server that ignores stdin EOF and SIGTERM.
 */
const mode = Deno.args[0];
const encoder = new TextEncoder();
const write = (message: unknown) =>
  Deno.stdout.writeSync(encoder.encode(JSON.stringify(message) + "\n"));

if (mode === "exit") {
  console.error("fault server: missing API key FAULT_TOKEN; set it in the server's env");
  Deno.exit(2);
}
if (mode === "stubborn") Deno.addSignalListener("SIGTERM", () => {});

const tools = [
  { name: "big", description: "11 MiB of text", inputSchema: { type: "object" } },
  { name: "noid", description: "an oversized notification", inputSchema: { type: "object" } },
  { name: "bigtail", description: "11 MiB, id last", inputSchema: { type: "object" } },
  { name: "small", description: "ok", inputSchema: { type: "object" } },
];

function answer(
  request: { id?: number | string; method?: string; params?: Record<string, unknown> },
) {
  if (request.id === undefined) return; // a notification
  if (request.method === "initialize") {
    write({
      jsonrpc: "2.0",
      id: request.id,
      result: {
        protocolVersion: request.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "fault", version: "1.0.0" },
      },
    });
  } else if (request.method === "tools/list") {
    write({ jsonrpc: "2.0", id: request.id, result: { tools } });
  } else if (request.method === "tools/call") {
    const name = request.params?.name;
    if (name === "big") {
      const text = "x".repeat(11 * 1024 * 1024);
      write({ jsonrpc: "2.0", id: request.id, result: { content: [{ type: "text", text }] } });
    } else if (name === "bigtail") {
      const text = "z".repeat(11 * 1024 * 1024);
      write({ jsonrpc: "2.0", result: { content: [{ type: "text", text }] }, id: request.id });
    } else if (name === "noid") {
      const message = "y".repeat(11 * 1024 * 1024);
      write({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: message },
      });
    } else {
      write({
        jsonrpc: "2.0",
        id: request.id,
        result: { content: [{ type: "text", text: "ok" }] },
      });
    }
  } else {
    write({ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "method not found" } });
  }
}

let buffer = "";
const decoder = new TextDecoder();
for await (const chunk of Deno.stdin.readable) {
  if (mode === "silent" || mode === "mute") continue;
  buffer += decoder.decode(chunk, { stream: true });
  let index: number;
  while ((index = buffer.indexOf("\n")) !== -1) {
    const line = buffer.slice(0, index);
    buffer = buffer.slice(index + 1);
    if (line.trim() !== "") answer(JSON.parse(line));
  }
}
if (mode === "stubborn" || mode === "silent") await new Promise(() => setInterval(() => {}, 1000));
