import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { type Agent, createAgent } from "../../agent/agent.ts";
import { DeepSeekAdapter, type DeepSeekAdapterOptions } from "../../agent/deepseek.ts";
import { readSessionLog } from "../../agent/read_session_log.ts";
import type { SessionEvent } from "../../agent/session_event.ts";
import { createHarness, type ToolsContext } from "../../mod.ts";
import type { AnyToolDefinition } from "../../tools/definition.ts";
import { tempDir } from "../_helpers.ts";
import {
  type ChatBody,
  fakeDeepSeek,
  type FakeReply,
  REASONING_REQUIRED,
} from "./_deepseek_server.ts";

interface Setup extends AsyncDisposable {
  readonly ctx: ToolsContext;
  readonly dir: string;
  /** Arguments each `echo` call received, in order. */
  readonly received: unknown[];
  readonly deltas: { kind: string; text: string }[];
  agent(options?: DeepSeekAdapterOptions & { resume?: boolean }): Promise<Agent>;
}

async function setup(baseUrl: string): Promise<Setup> {
  const dir = await tempDir();
  const ctx = await createHarness();
  const received: unknown[] = [];
  const echo: AnyToolDefinition = {
    name: "echo",
    description: "Echo the arguments.",
    parameters: { type: "object" },
    execute: ((args: unknown) => {
      received.push(args);
      return [{ type: "text", text: `echo: ${JSON.stringify(args)}` }];
    }) as AnyToolDefinition["execute"],
  };
  ctx.tools.register(echo);
  const deltas: { kind: string; text: string }[] = [];
  ctx.on("agent/delta", (d: { kind: string; text: string }) => deltas.push(d));
  const agents: Agent[] = [];
  const logPath = join(dir.path, "s.jsonl");
  return {
    ctx,
    dir: dir.path,
    received,
    deltas,
    async agent(options = {}) {
      const { resume = false, ...adapterOptions } = options;
      const agent = await createAgent(ctx, {
        adapter: new DeepSeekAdapter({ apiKey: "sk-test", baseUrl, ...adapterOptions }),
        model: adapterOptions.model ?? "deepseek-flash",
        cwd: dir.path,
        logPath,
        resume,
      });
      agents.push(agent);
      return agent;
    },
    async [Symbol.asyncDispose]() {
      for (const agent of agents) await agent.dispose();
      await ctx.fiber.dispose();
      await dir[Symbol.asyncDispose]();
    },
  };
}

const call = (args: string, text?: string): FakeReply => ({
  reasoning: `I should call echo with ${args}.`,
  ...(text === undefined ? {} : { text }),
  toolCalls: [{ name: "echo", arguments: args }],
});

function assistants(body: ChatBody): Record<string, unknown>[] {
  return (body.messages ?? []).filter((m) => m.role === "assistant");
}

Deno.test("thinking mode: two user turns with tool calls pass reasoning back in every later request", async () => {
  await using server = fakeDeepSeek([
    call('{"text":"a"}', "Let me echo."),
    { reasoning: "Echo answered.", text: "First done." },
    call('{"text":"b"}'),
    call('{"text":"c"}'),
    { reasoning: "All echoed.", text: "Second done." },
  ]);
  await using s = await setup(server.baseUrl);
  // temperature is set but must not be sent: thinking mode ignores it.
  const agent = await s.agent({ temperature: 0.3, reasoningEffort: "high" });
  deepEqual(await agent.prompt("echo a"), { stopReason: "end_turn" });
  deepEqual(await agent.prompt("echo b then c"), { stopReason: "end_turn" });
  deepEqual(server.requests.map((r) => r.status), [200, 200, 200, 200, 200]);
  deepEqual(s.received, [{ text: "a" }, { text: "b" }, { text: "c" }]);
  for (const { body } of server.requests) {
    equal(body.model, "deepseek-flash");
    deepEqual(body.thinking, { type: "enabled" });
    equal(body.reasoning_effort, "high");
    equal("temperature" in body, false);
    equal("top_p" in body, false);
  }
  // The last request: every assistant message with tool calls carries its own reasoning, the
  // first turn's included; the one without tool calls carries none.
  const last = assistants(server.requests[4]!.body);
  deepEqual(last.map((m) => m.reasoning_content), [
    'I should call echo with {"text":"a"}.',
    undefined,
    'I should call echo with {"text":"b"}.',
    'I should call echo with {"text":"c"}.',
  ]);
  equal(last[0]!.content, "Let me echo.");
  equal(last[1]!.content, "First done.");
  // Reasoning streamed as reasoning deltas (ACP shows them as agent_thought_chunk).
  ok(s.deltas.some((d) => d.kind === "reasoning" && d.text.startsWith("I should call")));
  ok(s.deltas.some((d) => d.kind === "text" && d.text === "Second done."));
});

Deno.test("thinking mode: a session resumed from its log passes the logged reasoning back", async () => {
  await using server = fakeDeepSeek([
    call('{"text":"before"}'),
    { text: "Done before." },
    call('{"text":"after"}'),
    { text: "Done after." },
  ]);
  await using s = await setup(server.baseUrl);
  const first = await s.agent();
  deepEqual(await first.prompt("one"), { stopReason: "end_turn" });
  await first.dispose();
  const { events } = await readSessionLog(join(s.dir, "s.jsonl"));
  const logged = events.find((e) => e.type === "assistant/message") as SessionEvent;
  deepEqual((logged.content as { type: string }[]).map((b) => b.type), ["reasoning", "tool-call"]);

  const resumed = await s.agent({ resume: true });
  deepEqual(await resumed.prompt("two"), { stopReason: "end_turn" });
  deepEqual(server.requests.map((r) => r.status), [200, 200, 200, 200]);
  const last = assistants(server.requests[3]!.body);
  deepEqual(last.map((m) => m.reasoning_content), [
    'I should call echo with {"text":"before"}.',
    undefined,
    'I should call echo with {"text":"after"}.',
  ]);
});

Deno.test("the test server refuses what today's DeepSeek refuses", async () => {
  await using server = fakeDeepSeek([]);
  const post = (body: unknown) =>
    fetch(`${server.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer k", "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const toolTurn = [
    { role: "user", content: "hi" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "echo", arguments: "{}" } }],
    },
    { role: "tool", tool_call_id: "c", content: "ok" },
  ];
  const missing = await post({ model: "deepseek-v4-pro", messages: toolTurn, stream: true });
  equal(missing.status, 400);
  equal(missing.body.error.message, REASONING_REQUIRED);
  for (const model of ["deepseek-chat", "deepseek-reasoner"]) {
    const retired = await post({ model, messages: [{ role: "user", content: "hi" }] });
    equal(retired.status, 400);
    equal(retired.body.error.message, "Model Not Exist");
  }
});

Deno.test("thinking disabled: no reasoning is sent or streamed, temperature is", async () => {
  await using server = fakeDeepSeek([call('{"text":"x"}'), { text: "Done." }]);
  await using s = await setup(server.baseUrl);
  const agent = await s.agent({ thinking: "disabled", temperature: 0.2, model: "deepseek-v4-pro" });
  deepEqual(await agent.prompt("go"), { stopReason: "end_turn" });
  deepEqual(server.requests.map((r) => r.status), [200, 200]);
  for (const { body } of server.requests) {
    equal(body.model, "deepseek-v4-pro");
    deepEqual(body.thinking, { type: "disabled" });
    equal(body.temperature, 0.2);
    equal("reasoning_effort" in body, false);
  }
  const sent = assistants(server.requests[1]!.body);
  equal(sent.length, 1);
  equal("reasoning_content" in sent[0]!, false);
  equal(s.deltas.some((d) => d.kind === "reasoning"), false);
});

Deno.test("an unknown model id ends the turn with DeepSeek's error and the current ids", async () => {
  await using server = fakeDeepSeek([]);
  await using s = await setup(server.baseUrl);
  const agent = await s.agent({ model: "deepseek-v9" });
  const result = await agent.prompt("hi");
  equal(result.stopReason, "error");
  const message = result.error?.message ?? "";
  match(message, /^DeepSeek request failed with HTTP 400 \(invalid request\): Model Not Exist; /);
  for (const id of ["deepseek-flash", "deepseek-v4-pro", "deepseek-v4-flash", "deepseek-v9"]) {
    ok(message.includes(`"${id}"`), message);
  }
  match(message, /model\.model in dsh\.jsonc or DEEPSEEK_MODEL/);
  equal(server.requests.length, 1);
});

Deno.test("a retired model id ends the turn before any request, with the current ids", async () => {
  await using server = fakeDeepSeek([]);
  await using s = await setup(server.baseUrl);
  // The adapter refuses it as its default (new DeepSeekAdapter throws); here the agent names it.
  const agent = await createAgent(s.ctx, {
    adapter: new DeepSeekAdapter({ apiKey: "sk-test", baseUrl: server.baseUrl }),
    model: "deepseek-chat",
    cwd: s.dir,
    logPath: join(s.dir, "retired.jsonl"),
  });
  const result = await agent.prompt("hi");
  await agent.dispose();
  equal(result.stopReason, "error");
  match(
    result.error?.message ?? "",
    /^Cannot call DeepSeek: the model "deepseek-chat" was retired on 2026-07-24: use "deepseek-flash" \(recommended\), "deepseek-v4-pro" or "deepseek-v4-flash".*; set model\.model in dsh\.jsonc or DEEPSEEK_MODEL/,
  );
  equal(server.requests.length, 0);
});

Deno.test("a big-integer argument is refused with its path instead of being rounded", async () => {
  await using server = fakeDeepSeek([
    {
      reasoning: "Three calls.",
      toolCalls: [
        { name: "echo", arguments: '{"page":{"id":9007199254740993}}' },
        { name: "echo", arguments: '{"limit":1e400}' },
        { name: "echo", arguments: '{"id":"9007199254740993","max":9007199254740992}' },
      ],
    },
    { text: "Done." },
  ]);
  await using s = await setup(server.baseUrl);
  const agent = await s.agent();
  deepEqual(await agent.prompt("ids"), { stopReason: "end_turn" });
  // Only the call that can arrive exactly ran (2 ** 53 is exact; the string keeps every digit).
  deepEqual(s.received, [{ id: "9007199254740993", max: 9007199254740992 }]);
  const results = agent.events.filter((e) => e.type === "tool/result");
  const errors = results.map((e) => e.error as { message: string; code: string } | undefined);
  deepEqual(errors.map((e) => e?.code), ["INVALID_ARGS", "INVALID_ARGS", undefined]);
  equal(
    errors[0]!.message,
    'invalid arguments: "page.id": expected a number a double holds exactly, received number 9007199254740993 (too large for a JSON number to hold exactly: it would arrive as 9007199254740992); fix: send it as a string ("9007199254740993") if the tool accepts one, or a smaller number',
  );
  equal(
    errors[1]!.message,
    'invalid arguments: "limit" is not a finite JSON number (Infinity)',
  );
  // The log keeps the model's exact text.
  const calls = agent.events.filter((e) => e.type === "tool/call");
  equal(calls[0]!.arguments, '{"page":{"id":9007199254740993}}');
});

Deno.test("a retry wait is logged as model/retry and shown before the answer", async () => {
  await using server = fakeDeepSeek([
    Response.json({ error: { message: "Server busy" } }, { status: 503 }),
    { text: "Made it." },
  ]);
  await using s = await setup(server.baseUrl);
  const agent = await s.agent({ initialRetryDelayMs: 1 });
  deepEqual(await agent.prompt("hi"), { stopReason: "end_turn" });
  const retries = agent.events.filter((e) => e.type === "model/retry");
  equal(retries.length, 1);
  const { seq: _, time: _t, ...retry } = retries[0]!;
  deepEqual(retry, {
    type: "model/retry",
    turn: 1,
    step: 1,
    attempt: 2,
    maxAttempts: 4,
    delayMs: 1,
    status: 503,
    message: "DeepSeek busy (HTTP 503), retrying in 1 ms (attempt 2 of 4)",
  });
});

Deno.test("cancel during a retry wait ends the turn without waiting it out", async () => {
  await using server = fakeDeepSeek([
    Response.json({ error: { message: "Server busy" } }, { status: 503 }),
  ]);
  await using s = await setup(server.baseUrl);
  // A 60 s wait: the test only finishes promptly when the abort ends the sleep.
  const agent = await s.agent({ initialRetryDelayMs: 60_000 });
  const controller = new AbortController();
  s.ctx.on("session/event", (event: SessionEvent) => {
    if (event.type === "model/retry") controller.abort();
  });
  deepEqual(await agent.prompt("hi", { signal: controller.signal }), { stopReason: "cancelled" });
  equal(server.requests.length, 1);
  equal(agent.events.filter((e) => e.type === "model/retry").length, 1);
});
