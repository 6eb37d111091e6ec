import { deepEqual, equal, ok } from "node:assert/strict";
import { createHarness } from "../../mod.ts";
import type { ToolOutcome } from "../../tools/mod.ts";
import type { PreExecuteDecision } from "../../registry/mod.ts";
import type { AgentHandle, ToolExecution } from "../../tools/definition.ts";
import type { JsonObject } from "../../core/json.ts";
import { codeModePlugin, createRunCodeTool, EMPTY_RUN_TEXT } from "../../codemode/mod.ts";
import { HANG_GUARD_MS } from "../_helpers.ts";

function fakeAgent(): AgentHandle & { events: { type: string; data: JsonObject }[] } {
  const events: { type: string; data: JsonObject }[] = [];
  return {
    id: "agent-test",
    sessionId: "s1",
    cwd: "/",
    disposed: false,
    events,
    inject() {},
    appendEvent(type, data) {
      events.push({ type, data });
    },
  };
}

async function harness() {
  const ctx = await createHarness();
  const seen = new Map<string, ToolExecution>();
  ctx.on("tools/pre-execute", (decision: PreExecuteDecision, exec: ToolExecution) => {
    seen.set(exec.callId, exec);
    if (exec.name === "secret") {
      return { kind: "deny", reason: 'tool "secret" is not allowed here' };
    }
    return decision;
  });
  ctx.tools.register({
    name: "echo",
    description: "Echoes its text",
    parameters: { type: "object", properties: { text: { type: "string" } } },
    execute: (args: { text?: string }) => [{ type: "text", text: `echo: ${args.text ?? ""}` }],
  });
  ctx.tools.register({
    name: "secret",
    description: "Never allowed",
    parameters: { type: "object" },
    execute: () => [{ type: "text", text: "leaked" }],
  });
  ctx.tools.register({
    name: "picture",
    description: "Returns an image",
    parameters: { type: "object" },
    execute: (_args: unknown, exec: ToolExecution) => {
      exec.deferContext([{ type: "text", text: "remember the picture" }]);
      return [{ type: "text", text: "here:" }, {
        type: "image",
        mimeType: "image/png",
        data: "AA==",
      }];
    },
  });
  ctx.plugin(codeModePlugin, { limits: { timeoutMs: HANG_GUARD_MS } });
  await ctx.fiber.ready;
  return { ctx, seen };
}

function text(outcome: ToolOutcome): string {
  return outcome.content.map((block) => block.type === "text" ? block.text : `[${block.type}]`)
    .join("\n");
}

Deno.test("run_code dispatches calls through the pipeline with the parent token", async () => {
  const { ctx, seen } = await harness();
  const agent = fakeAgent();
  const outcome = await ctx.tools.execute({
    callId: "c1",
    name: "run_code",
    arguments: {
      code: `console.log(await tools.echo({ text: "a" }));
const pic = await tools.picture();
return { pic };`,
      description: "Echo and picture",
    },
    agent,
    mode: "code",
  });
  equal(outcome.isError, false, text(outcome));
  equal(text(outcome), 'echo: a\n{\n  "pic": "here:\\n[image: image/png]"\n}');
  const outer = seen.get("c1")!;
  const first = seen.get("c1:code:1")!;
  const second = seen.get("c1:code:2")!;
  equal(first.parent, outer.token);
  equal(second.parent, outer.token);
  equal(first.agent, agent);
  deepEqual(agent.events.map((e) => [e.type, e.data.subCallId, e.data.name, e.data.isError]), [
    ["tool/code-dispatch", "c1:code:1", "echo", false],
    ["tool/code-dispatch", "c1:code:2", "picture", false],
  ]);
  deepEqual(agent.events[0]!.data, {
    parentCallId: "c1",
    subCallId: "c1:code:1",
    name: "echo",
    arguments: { text: "a" },
    isError: false,
    content: [{ type: "text", text: "echo: a" }],
  });
  deepEqual(outcome.additionalContexts, [
    [{ type: "text", text: "remember the picture" }],
    [{ type: "text", text: "here:" }, { type: "image", mimeType: "image/png", data: "AA==" }],
  ]);
  await ctx.fiber.dispose();
});

Deno.test("run_code turns a policy denial into a catchable ToolCallError", async () => {
  const { ctx } = await harness();
  const agent = fakeAgent();
  const outcome = await ctx.tools.execute({
    callId: "c2",
    name: "run_code",
    arguments: {
      code: `try { await tools.secret({}); return "no"; }
catch (e) { return \`\${e.name} \${e.toolName}: \${e.message}\`; }`,
    },
    agent,
    mode: "code",
  });
  equal(text(outcome), 'ToolCallError secret: tool "secret" is not allowed here');
  equal(agent.events[0]!.data.isError, true);
  await ctx.fiber.dispose();
});

Deno.test("run_code reports failures with kind and captured output", async () => {
  const { ctx } = await harness();
  const failed = await ctx.tools.execute({
    callId: "c3",
    name: "run_code",
    arguments: { code: 'console.log("step 1");\nthrow new Error("boom");' },
  });
  equal(failed.isError, true);
  equal(
    text(failed),
    "Error: code run failed (exception): Error: boom (line 2)\nCaptured output:\nstep 1",
  );
  const uncaught = await ctx.tools.execute({
    callId: "c4",
    name: "run_code",
    arguments: { code: "await tools.secret({});" },
  });
  equal(
    text(uncaught),
    'Error: code run failed (exception): ToolCallError: tool "secret" is not allowed here (line 1)',
  );
  const empty = await ctx.tools.execute({
    callId: "c5",
    name: "run_code",
    arguments: { code: "" },
  });
  equal(text(empty), EMPTY_RUN_TEXT);
  const nested = await ctx.tools.execute({
    callId: "c6",
    name: "run_code",
    arguments: { code: "return await tools.run_code({ code: '' });" },
  });
  ok(text(nested).includes('"run_code" cannot be called from inside a program'));
  const invalid = await ctx.tools.execute({
    callId: "c7",
    name: "run_code",
    arguments: { code: 1 },
  });
  equal(invalid.isError, true);
  await ctx.fiber.dispose();
});

Deno.test("code mode denies direct calls and lists only run_code", async () => {
  const { ctx } = await harness();
  const direct = await ctx.tools.execute({
    callId: "c8",
    name: "echo",
    arguments: {},
    mode: "code",
  });
  equal(direct.error?.code, "UNKNOWN_TOOL");
  ok(text(direct).includes("from inside a `run_code` program instead"), text(direct));
  deepEqual(ctx.tools.schemas({ mode: "code" }).map((s) => s.name), ["run_code"]);
  await ctx.fiber.dispose();
});

Deno.test("createRunCodeTool() presents a generic execute card", () => {
  const tool = createRunCodeTool({} as never);
  deepEqual(tool.presentCall?.({ code: "return 1" }), {
    card: "generic",
    title: "Run code",
    kind: "execute",
    rawInput: "return 1",
  });
  deepEqual(tool.presentCall?.(null as never), {
    card: "generic",
    title: "Run code",
    kind: "execute",
  });
});
