import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { errorMessage } from "../../core/error_message.ts";
import { createHarness } from "../../mod.ts";
import { createAgent } from "../../mod.ts";
import { MockAdapter, textResponse, toolCallResponse } from "../../agent/mod.ts";
import {
  CODE_RUNNER_NAME,
  type CodeModeConfig,
  codeModePlugin,
  codeModePrompt,
} from "../../codemode/mod.ts";
import { tempDir } from "../_helpers.ts";

async function setup(config: CodeModeConfig = {}) {
  const ctx = await createHarness();
  ctx.tools.register({
    name: "add",
    description: "Adds two numbers",
    parameters: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
      additionalProperties: false,
    },
    execute: (args: { a: number; b: number }) => [{ type: "text", text: String(args.a + args.b) }],
  });
  ctx.plugin(codeModePlugin, config);
  await ctx.fiber.ready;
  return ctx;
}

Deno.test("codeModePlugin runs a code-mode turn through the agent loop", async () => {
  await using dir = await tempDir();
  const ctx = await setup();
  const code =
    `const [x, y] = await Promise.all([tools.add({ a: 1, b: 2 }), tools.add({ a: 3, b: 4 })]);
console.log("sums", x, y);
return Number(x) + Number(y);`;
  const adapter = new MockAdapter([
    toolCallResponse("c1", "run_code", { code, description: "Add two pairs" }),
    textResponse("10"),
  ]);
  const agent = await createAgent(ctx, {
    adapter,
    model: "mock",
    cwd: dir.path,
    logDir: dir.path,
    toolMode: "code",
    systemPrompt: "base",
  });
  const result = await agent.prompt("add them");
  equal(result.stopReason, "end_turn");
  const first = adapter.requests[0]!;
  deepEqual(first.tools.map((t) => t.name), ["run_code"]);
  equal(first.system, `base\n\n${codeModePrompt(ctx.tools.list())}`);
  ok(first.system.includes("add(args: {\n    a: number;\n    b: number;\n  }): Promise<string>;"));
  const events = agent.events;
  const dispatch = events.filter((e) => e.type === "tool/code-dispatch");
  deepEqual(
    dispatch.map((e) => [e.parentCallId, e.subCallId, e.name, e.isError]).sort(),
    [["c1", "c1:code:1", "add", false], ["c1", "c1:code:2", "add", false]],
  );
  const toolResult = events.find((e) => e.type === "tool/result")!;
  deepEqual(toolResult.content, [{ type: "text", text: "sums 3 7\n10" }]);
  equal(toolResult.isError, false);
  // The dispatch events land inside the turn, before the outer result.
  ok(dispatch.every((e) => Number(e.seq) < Number(toolResult.seq)));
  await agent.dispose();
  await ctx.fiber.dispose();
});

Deno.test("codeModePlugin leaves native agents' prompts alone", async () => {
  await using dir = await tempDir();
  const ctx = await setup({ mode: "native" });
  const adapter = new MockAdapter([textResponse("hi")]);
  const agent = await createAgent(ctx, {
    adapter,
    model: "mock",
    cwd: dir.path,
    logDir: dir.path,
    systemPrompt: "base",
  });
  await agent.prompt("hello");
  equal(adapter.requests[0]!.system, "base");
  deepEqual(adapter.requests[0]!.tools.map((t) => t.name), ["add"]);
  await agent.dispose();
  await ctx.fiber.dispose();
});

Deno.test("codeModePlugin follows an agent's own toolMode over the config", async () => {
  await using dir = await tempDir();
  const ctx = await setup({ mode: "native" });
  const adapter = new MockAdapter([textResponse("hi")]);
  const agent = await createAgent(ctx, {
    adapter,
    model: "mock",
    cwd: dir.path,
    logDir: dir.path,
    systemPrompt: "base",
    toolMode: "both",
  });
  // Until the agent exposes `toolMode` itself, give it the property the hook reads.
  if (!("toolMode" in agent)) Object.defineProperty(agent, "toolMode", { value: "both" });
  await agent.prompt("hello");
  ok(adapter.requests[0]!.system.startsWith("base\n\n# Code Mode\n"));
  deepEqual(adapter.requests[0]!.tools.map((t) => t.name), ["add", "run_code"]);
  await agent.dispose();
  await ctx.fiber.dispose();
});

Deno.test("Code Mode's listing through an agent turn: code lists only run_code and denies direct calls", async () => {
  await using dir = await tempDir();
  const ctx = await setup();
  // run_code is a reserved registration: no mask hides it.
  ctx.tools.restrict({ deny: ["run_*"] }, { scope: "s-code" });
  const adapter = new MockAdapter([
    toolCallResponse("c1", "add", { a: 1, b: 2 }),
    textResponse("done"),
  ]);
  const agent = await createAgent(ctx, {
    adapter,
    model: "mock",
    cwd: dir.path,
    logDir: dir.path,
    sessionId: "s-code",
    toolMode: "code",
  });
  equal(agent.toolMode, "code");
  await agent.prompt("add directly");
  for (const request of adapter.requests) deepEqual(request.tools.map((t) => t.name), ["run_code"]);
  const result = agent.events.find((e) => e.type === "tool/result")!;
  equal(result.isError, true);
  deepEqual(result.content, [{
    type: "text",
    text:
      'Error: unknown tool "add": only `run_code` is callable directly — call `add` from inside a `run_code` program instead',
  }]);
  await agent.dispose();
  await ctx.fiber.dispose();
});

Deno.test("Code Mode's listing hook and run_code go with the plugin's fiber; unknown modes throw", async () => {
  const ctx = await createHarness({ logSink: () => {} });
  ctx.tools.register({
    name: "add",
    description: "Adds",
    parameters: { type: "object" },
    execute: () => [],
  });
  const changed: string[] = [];
  ctx.on("tools/changed", () => void changed.push("changed"));
  const fiber = ctx.plugin(codeModePlugin, {});
  await fiber.ready;
  deepEqual(ctx.tools.schemas().map((s) => s.name), ["add"]);
  deepEqual(ctx.tools.schemas({ mode: "native" }).map((s) => s.name), ["add"]);
  deepEqual(ctx.tools.schemas({ mode: "code" }).map((s) => s.name), [CODE_RUNNER_NAME]);
  deepEqual(ctx.tools.schemas({ mode: "both" }).map((s) => s.name), ["add", "run_code"]);
  // The SDK lists every visible tool: get/list are not filtered by the listing.
  deepEqual(ctx.tools.list().map((d) => d.name), ["add", "run_code"]);
  throws(() => ctx.tools.schemas({ mode: "fast" }), {
    name: "TypeError",
    message: 'Cannot list tool schemas: mode is "fast", expected "native", "code", "both"',
  });
  // A second Code Mode fails (run_code is registered once) and leaves the first one's listing.
  const second = ctx.plugin(codeModePlugin, {});
  await second.ready.catch(() => {});
  equal(second.state, "failed");
  equal(
    errorMessage(second.error),
    'tool "run_code" is already registered in this scope',
  );
  deepEqual(ctx.tools.schemas({ mode: "code" }).map((s) => s.name), [CODE_RUNNER_NAME]);
  await fiber.dispose();
  deepEqual(ctx.tools.schemas({ mode: "code" }).map((s) => s.name), ["add"]);
  deepEqual(ctx.tools.schemas({ mode: "fast" }).map((s) => s.name), ["add"]);
  equal(ctx.tools.get("run_code"), undefined);
  equal(changed.length, 6);
  await ctx.fiber.dispose();
});

Deno.test("the SDK section follows the tool set of each scope and is stable between changes", async () => {
  const ctx = await setup();
  try {
    const section = (sessionId?: string) =>
      ctx.waterfall("agent/system-prompt", "base", { toolMode: "code", sessionId });
    const before = await section();
    equal(await section(), before);
    ok(!before.includes("sub("));
    const remove = ctx.tools.register({
      name: "sub",
      description: "Subtracts",
      parameters: { type: "object", properties: { a: { type: "number" } } },
      execute: () => [],
    });
    ok((await section()).includes("sub("), "a new tool reaches the section");
    ctx.tools.register({
      name: "mine",
      description: "A session's own tool",
      parameters: { type: "object" },
      execute: () => [],
    }, { scope: "s1" });
    ok((await section("s1")).includes("mine("));
    ok(!(await section()).includes("mine("), "another scope's tool stays out");
    remove();
    equal(await section(), before);
    equal(
      await ctx.waterfall("agent/system-prompt", "base", { toolMode: "native" }),
      "base",
    );
  } finally {
    await ctx.fiber.dispose();
  }
});
