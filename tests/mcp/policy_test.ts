import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { ToolExecution } from "../../tools/definition.ts";
import type { PreExecuteDecision } from "../../registry/mod.ts";
import { spillPolicy } from "../../jobs/mod.ts";
import { createRunCodeTool, generateSdk } from "../../codemode/mod.ts";
import { mcpPlugin } from "../../mcp/mod.ts";
import { tempDir } from "../_helpers.ts";
import { EVERYTHING, harness } from "./_server.ts";

const text = (value: string) => [{ type: "text", text: value }];

Deno.test("a tools/pre-execute deny stops an MCP call before it reaches the server", async () => {
  await using ctx = await harness();
  await ctx.plugin(mcpPlugin, { servers: { everything: EVERYTHING } }).ready;
  const seen: string[] = [];
  ctx.on("tools/pre-execute", (_: PreExecuteDecision, exec: ToolExecution) => {
    seen.push(exec.name);
    return exec.name.startsWith("mcp__everything__")
      ? { kind: "deny", reason: 'MCP server "everything" is not allowed here' }
      : undefined;
  });
  const progress: unknown[] = [];
  ctx.on("mcp/progress", (event: unknown) => progress.push(event));
  const outcome = await ctx.tools.execute({
    callId: "c1",
    name: "mcp__everything__trigger-long-running-operation",
    arguments: { duration: 1, steps: 2 },
  });
  deepEqual(outcome.content, text('Error: MCP server "everything" is not allowed here'));
  equal(outcome.isError, true);
  deepEqual(seen, ["mcp__everything__trigger-long-running-operation"]);
  deepEqual(progress, []);
});

Deno.test("the spill policy cuts a large MCP result like a native one", async () => {
  await using dir = await tempDir();
  await using ctx = await harness();
  await ctx.plugin(mcpPlugin, { servers: { everything: EVERYTHING } }).ready;
  ctx.tools.use("tools/post-execute", spillPolicy({ maxInlineBytes: 1024, dir: dir.path }));
  const message = Array.from({ length: 400 }, (_, i) => `line ${i}`).join("\n");
  const outcome = await ctx.tools.execute({
    callId: "big",
    name: "mcp__everything__echo",
    arguments: { message },
  });
  equal(outcome.isError, false);
  const preview = (outcome.content[0] as { text: string }).text;
  ok(preview.length <= 1024);
  ok(preview.startsWith("Echo: line 0\n"));
  ok(preview.endsWith("line 399"));
  const [file] = [...Deno.readDirSync(dir.path)];
  ok(file);
  match(preview, new RegExp(file.name));
  equal(await Deno.readTextFile(`${dir.path}/${file.name}`), `Echo: ${message}`);
});

Deno.test("Code Mode calls MCP tools through the same pipeline and renders their schemas", async () => {
  await using ctx = await harness();
  await ctx.plugin(mcpPlugin, { servers: { everything: EVERYTHING } }).ready;
  const sdk = generateSdk(ctx.tools.list());
  ok(sdk.includes('"mcp__everything__get-sum"(args: {'));
  const names: string[] = [];
  ctx.on("tools/pre-execute", (_: PreExecuteDecision, exec: ToolExecution) => {
    names.push(exec.name);
    return undefined;
  });
  ctx.tools.register(createRunCodeTool(ctx.tools), { reserved: true });
  const outcome = await ctx.tools.execute({
    callId: "run",
    name: "run_code",
    arguments: {
      code: 'return await tools["mcp__everything__get-sum"]({ a: 2, b: 40 });',
    },
  });
  equal(outcome.isError, false, JSON.stringify(outcome));
  match((outcome.content[0] as { text: string }).text, /The sum of 2 and 40 is 42\./);
  deepEqual(names, ["run_code", "mcp__everything__get-sum"]);
});
