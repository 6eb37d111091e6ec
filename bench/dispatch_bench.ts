/**
 * Per-call overhead of `ctx.tools.execute` with no listeners, against a floor and the peers a
 * user would pick instead. One tiny echo tool everywhere; arguments `{ text, n }` validated.
 *
 * - floor (baseline): ajv validate + structuredClone + deep freeze + direct call
 * - dsh: `ctx.tools.execute` (defineTool validation, lossless snapshot, identity, normalization)
 * - mcp-sdk: `client.callTool` over `InMemoryTransport` (MCP TypeScript SDK 1.32.2, zod schema)
 * - ai-sdk: the Vercel AI SDK's per-call path (`safeValidateTypes` + `executeTool`, ai 7.0.173)
 *
 * Run: `deno bench -A bench/dispatch_bench.ts`. Heap over 1M calls:
 * `deno run -A --v8-flags=--expose-gc bench/dispatch_bench.ts`.
 *
 * @module
 */
import { Ajv } from "ajv";
import { z } from "zod";
import { tool as aiTool, zodSchema } from "ai";
import { executeTool, safeValidateTypes } from "@ai-sdk/provider-utils";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createHarness } from "../mod.ts";
import { defineTool } from "../tools/define_tool.ts";

const ARGS = { text: "hello", n: 1 };
const signal = new AbortController().signal;

// --- floor ---------------------------------------------------------------------------------
const validate = new Ajv().compile({
  type: "object",
  properties: { text: { type: "string" }, n: { type: "number" } },
  required: ["text"],
});
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}
function echoBody(args: { text: string }) {
  return [{ type: "text" as const, text: args.text }];
}
async function floor(): Promise<unknown> {
  const args = deepFreeze(structuredClone(ARGS));
  if (!validate(args)) throw new Error("invalid");
  return await echoBody(args);
}

// --- dsh -----------------------------------------------------------------------------------
const ctx = await createHarness();
ctx.tools.register(defineTool({
  name: "echo",
  description: "Echo the text",
  parameters: { text: { type: "string", required: true }, n: { type: "number" } },
  execute: (args) => [{ type: "text", text: args.text }],
}));
let callSeq = 0;
function dsh() {
  return ctx.tools.execute({ callId: `c${callSeq++}`, name: "echo", arguments: ARGS, signal });
}

// --- MCP TypeScript SDK --------------------------------------------------------------------
const server = new McpServer({ name: "bench", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Echo the text", inputSchema: { text: z.string(), n: z.number().optional() } },
  (args: { text: string }) => ({ content: [{ type: "text" as const, text: args.text }] }),
);
const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
const client = new Client({ name: "bench-client", version: "1.0.0" });
await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
function mcp() {
  return client.callTool({ name: "echo", arguments: ARGS });
}

// --- Vercel AI SDK -------------------------------------------------------------------------
const echoAi = aiTool({
  description: "Echo the text",
  inputSchema: zodSchema(z.object({ text: z.string(), n: z.number().optional() })),
  execute: (args: { text: string }) => Promise.resolve([{ type: "text", text: args.text }]),
});
async function ai(): Promise<unknown> {
  const parsed = await safeValidateTypes({ value: ARGS, schema: echoAi.inputSchema });
  if (!parsed.success) throw parsed.error;
  let output: unknown;
  for await (
    const part of executeTool({
      tool: echoAi,
      input: parsed.value,
      options: {
        toolCallId: `c${callSeq++}`,
        messages: [],
        abortSignal: signal,
        context: undefined as never,
      },
    })
  ) {
    if (part.type === "final") output = part.output;
  }
  return output;
}

// Check every case once before timing.
for (const [name, run] of [["floor", floor], ["dsh", dsh], ["mcp", mcp], ["ai", ai]] as const) {
  const text = JSON.stringify(await run());
  if (!text.includes("hello")) throw new Error(`${name} returned ${text}`);
}

Deno.bench({
  group: "dispatch",
  name: "floor: ajv + structuredClone + freeze + call",
  baseline: true,
  fn: async () => void await floor(),
});
Deno.bench({
  group: "dispatch",
  name: "dsh: ctx.tools.execute (no listeners)",
  fn: async () => void await dsh(),
});
Deno.bench({
  group: "dispatch",
  name: "mcp-sdk: callTool over InMemoryTransport",
  fn: async () => void await mcp(),
});
Deno.bench({
  group: "dispatch",
  name: "ai-sdk: safeValidateTypes + executeTool",
  fn: async () => void await ai(),
});

// Listener cost, for reference: one listener on each pipeline event.
const withListeners = await createHarness();
withListeners.tools.register(defineTool({
  name: "echo",
  description: "Echo the text",
  parameters: { text: { type: "string", required: true }, n: { type: "number" } },
  execute: (args) => [{ type: "text", text: args.text }],
}));
withListeners.on("tools/pre-execute", () => undefined);
withListeners.tools.guard(() => undefined);
withListeners.on("tools/execute", (_exec: unknown, next: () => Promise<unknown>) => next());
withListeners.on("tools/post-execute", () => undefined);
withListeners.on("tools/result", () => {});
Deno.bench({
  group: "listeners",
  name: "dsh: one listener per pipeline event",
  fn: async () =>
    void await withListeners.tools.execute({ callId: "c", name: "echo", arguments: ARGS, signal }),
});

if (import.meta.main && !("bench" in Deno.args)) {
  // Heap over 1M calls (run with --v8-flags=--expose-gc).
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const measure = async (label: string, run: () => Promise<unknown>, calls: number) => {
    for (let i = 0; i < 10_000; i++) await run();
    gc();
    const before = Deno.memoryUsage().heapUsed;
    const start = performance.now();
    for (let i = 0; i < calls; i++) await run();
    const ms = performance.now() - start;
    gc();
    const after = Deno.memoryUsage().heapUsed;
    console.log(
      `${label}: ${calls} calls, ${(ms * 1000 / calls).toFixed(2)} µs/call, heap ${
        (before / 1048576).toFixed(1)
      } MiB → ${(after / 1048576).toFixed(1)} MiB (Δ ${((after - before) / 1024).toFixed(0)} KiB)`,
    );
  };
  await measure("floor", floor, 1_000_000);
  await measure("dsh", dsh, 1_000_000);
  await measure(
    "dsh+listeners",
    () => withListeners.tools.execute({ callId: "c", name: "echo", arguments: ARGS, signal }),
    1_000_000,
  );
  await client.close();
  await ctx.fiber.dispose();
  await withListeners.fiber.dispose();
}
