import { deepEqual, equal, ok, rejects, throws } from "node:assert/strict";
import { type Agent, createAgent } from "../../agent/agent.ts";
import type { CreateAgentOptions } from "../../agent/agent_options.ts";
import {
  maxTokensResponse,
  MockAdapter,
  type MockEntry,
  multiCall,
  textResponse,
  toolCallResponse,
} from "../../agent/mock_adapter.ts";
import { readSessionLog } from "../../agent/read_session_log.ts";
import type { SessionEvent } from "../../agent/session_event.ts";
import { createHarness, type ToolsContext } from "../../mod.ts";
import type { AnyToolDefinition, ToolExecution } from "../../tools/definition.ts";
import { HANG_GUARD_MS, tempDir } from "../_helpers.ts";

const text = (t: string) => [{ type: "text" as const, text: t }];

interface Setup extends AsyncDisposable {
  ctx: ToolsContext;
  agent: Agent;
  adapter: MockAdapter;
  dir: string;
  emitted: SessionEvent[];
}

async function setup(
  script: MockEntry[],
  tools: AnyToolDefinition[],
  options: Partial<CreateAgentOptions> = {},
): Promise<Setup> {
  const dir = await tempDir();
  const ctx = await createHarness();
  for (const tool of tools) ctx.tools.register(tool);
  const emitted: SessionEvent[] = [];
  ctx.on("session/event", (event: SessionEvent) => emitted.push(event));
  const adapter = new MockAdapter(script);
  const agent = await createAgent(ctx, {
    adapter,
    model: "mock",
    cwd: dir.path,
    logDir: dir.path,
    systemPrompt: "base",
    ...options,
  });
  return {
    ctx,
    agent,
    adapter,
    dir: dir.path,
    emitted,
    async [Symbol.asyncDispose]() {
      await agent.dispose();
      await ctx.fiber.dispose();
      await dir[Symbol.asyncDispose]();
    },
  };
}

function tool(
  name: string,
  execute: (args: Record<string, unknown>, exec: ToolExecution) => unknown,
  safe = false,
): AnyToolDefinition {
  return {
    name,
    description: `The ${name} tool`,
    parameters: { type: "object" },
    execute: execute as AnyToolDefinition["execute"],
    isConcurrencySafe: () => safe,
  };
}

const echo = tool("echo", (args) => text(`echo: ${args.text}`));

function types(events: readonly SessionEvent[]): string[] {
  return events.map((event) => event.type);
}

function results(events: readonly SessionEvent[]): SessionEvent[] {
  return events.filter((event) => event.type === "tool/result");
}

/** A deferred with a hang guard: resolves by itself after 60 s so a broken loop fails, not hangs. */
function gate() {
  const deferred = Promise.withResolvers<void>();
  const timer = setTimeout(deferred.resolve, HANG_GUARD_MS);
  return {
    promise: deferred.promise,
    open() {
      clearTimeout(timer);
      deferred.resolve();
    },
  };
}

Deno.test("Agent.prompt() runs a tool round trip and logs tool/call before tool/result", async () => {
  let seenAgent: string | undefined;
  await using s = await setup(
    [toolCallResponse("c1", "echo", { text: "ping" }, "let me"), textResponse("done")],
    [tool("echo", (args, exec) => {
      seenAgent = exec.agent?.sessionId;
      return text(`echo: ${args.text}`);
    })],
  );
  const result = await s.agent.prompt("say ping");
  deepEqual(result, { stopReason: "end_turn" });
  equal(seenAgent, s.agent.sessionId);
  deepEqual(types(s.agent.events), [
    "turn/start",
    "user/message",
    "assistant/message",
    "tool/call",
    "tool/result",
    "assistant/message",
    "turn/end",
  ]);
  const [, , , call, res] = s.agent.events;
  deepEqual({ ...call, time: "" }, {
    seq: 4,
    time: "",
    type: "tool/call",
    turn: 1,
    step: 1,
    callId: "c1",
    name: "echo",
    arguments: '{"text":"ping"}',
    // Parsed once by the loop, carried to listeners; the log line keeps only `arguments`.
    args: { text: "ping" },
  });
  deepEqual({ ...res, time: "" }, {
    seq: 5,
    time: "",
    type: "tool/result",
    turn: 1,
    step: 1,
    callId: "c1",
    content: text("echo: ping"),
    isError: false,
  });
  equal(s.adapter.requests.length, 2);
  const second = s.adapter.requests[1]!;
  deepEqual(second.messages.at(-1), {
    role: "tool",
    callId: "c1",
    isError: false,
    content: text("echo: ping"),
  });
  equal(second.system, "base");
  deepEqual(second.tools.map((t) => t.name), ["echo"]);
  // Every append was emitted live, and the file holds the same events.
  deepEqual(s.emitted, s.agent.events);
  const loaded = await readSessionLog(s.agent.logPath);
  deepEqual(loaded.events, s.agent.events);
  equal(loaded.header.id, s.agent.sessionId);
});

Deno.test("Agent.prompt() emits deltas and tool output, and applies the system-prompt hook", async () => {
  await using s = await setup(
    [
      [
        { type: "reasoning", text: "hm" },
        { type: "text", text: "a" },
        { type: "text", text: "b" },
        ...toolCallResponse("c1", "out", {}),
      ],
      textResponse("ok"),
    ],
    [tool("out", (_args, exec) => {
      exec.output.write("line 1\n");
      return text("done");
    })],
  );
  const deltas: unknown[] = [];
  const outputs: unknown[] = [];
  s.ctx.on("agent/delta", (delta: unknown) => deltas.push(delta));
  s.ctx.on("tool/output", (output: unknown) => outputs.push(output));
  s.ctx.on("agent/system-prompt", (prompt: string) => `${prompt}\n## SDK`);
  await s.agent.prompt("go");
  const id = s.agent.sessionId;
  deepEqual(deltas.slice(0, 3), [
    { sessionId: id, kind: "reasoning", text: "hm" },
    { sessionId: id, kind: "text", text: "a" },
    { sessionId: id, kind: "text", text: "b" },
  ]);
  deepEqual(outputs, [{ sessionId: id, callId: "c1", chunk: "line 1\n" }]);
  equal(s.adapter.requests[0]!.system, "base\n## SDK");
  const assistant = s.agent.events[2]!;
  deepEqual(assistant.content, [
    { type: "reasoning", text: "hm" },
    { type: "text", text: "ab" },
    { type: "tool-call", id: "c1", name: "out", arguments: "{}" },
  ]);
  deepEqual(assistant.usage, { inputTokens: 10, outputTokens: 5 });
});

Deno.test("Agent.inject() during a tool lands after the batch's results and in the next request", async () => {
  const injected = [{ type: "text" as const, text: "job finished" }];
  await using s = await setup(
    [
      multiCall([{ id: "a", name: "notify", args: {} }, {
        id: "b",
        name: "echo",
        args: { text: "x" },
      }]),
      textResponse("ok"),
    ],
    [
      tool("notify", (_args, exec) => {
        exec.agent!.inject(injected, { source: { kind: "plugin", plugin: "jobs" } });
        // Snapshotted at inject time: a later mutation is not seen.
        injected[0] = { type: "text", text: "mutated" };
        return text("notified");
      }),
      echo,
    ],
  );
  await s.agent.prompt("go");
  const events = s.agent.events;
  const inject = events.find((event) => event.type === "context/inject")!;
  const lastResult = results(events).at(-1)!;
  ok(inject.seq > lastResult.seq);
  deepEqual(inject.content, text("job finished"));
  deepEqual(inject.source, { kind: "plugin", plugin: "jobs" });
  const messages = s.adapter.requests[1]!.messages;
  deepEqual(messages.slice(-3).map((m) => m.role === "tool" ? m.callId : m.role), [
    "a",
    "b",
    "user",
  ]);
  deepEqual(messages.at(-1), { role: "user", content: text("job finished"), source: "plugin" });
  // The first request never saw it.
  equal(s.adapter.requests[0]!.messages.length, 1);
});

Deno.test("Agent.inject() on an idle agent appends at once and is not a wake-up", async () => {
  await using s = await setup([textResponse("seen")], []);
  s.agent.inject("background done");
  deepEqual(types(s.agent.events), ["context/inject"]);
  equal(s.adapter.requests.length, 0);
  await s.agent.prompt("next");
  deepEqual(s.adapter.requests[0]!.messages.map((m) => m.content), [
    text("background done"),
    text("next"),
  ]);
});

Deno.test("Agent.inject() throws on a disposed agent", async () => {
  await using s = await setup([], []);
  await s.agent.dispose();
  equal(s.agent.disposed, true);
  throws(
    () => s.agent.inject("late"),
    new Error(`Cannot inject into agent "${s.agent.id}": the agent was disposed`),
  );
  await rejects(
    s.agent.prompt("x"),
    new Error(`Cannot prompt agent "${s.agent.id}": the agent was disposed`),
  );
});

Deno.test("Agent.prompt() overlaps safe siblings, splits the batch at an exclusive call and commits in model order", async () => {
  const order: string[] = [];
  const firstPair = gate();
  const secondPair = gate();
  const aMayFinish = gate();
  let started = 0;
  const safe = tool("safe", async (args) => {
    const id = String(args.id);
    order.push(`start ${id}`);
    if (++started === 2) firstPair.open();
    if (started === 4) secondPair.open();
    await (started <= 2 ? firstPair : secondPair).promise;
    // "a" finishes after "b", yet its result commits first.
    if (id === "a") await aMayFinish.promise;
    order.push(`end ${id}`);
    if (id === "b") aMayFinish.open();
    return text(id);
  }, true);
  const exclusive = tool("exclusive", (args) => {
    order.push(`run ${args.id}`);
    return text(String(args.id));
  });
  await using s = await setup(
    [
      multiCall([
        { id: "a", name: "safe", args: { id: "a" } },
        { id: "b", name: "safe", args: { id: "b" } },
        { id: "c", name: "exclusive", args: { id: "c" } },
        { id: "d", name: "safe", args: { id: "d" } },
        { id: "e", name: "safe", args: { id: "e" } },
      ]),
      textResponse("ok"),
    ],
    [safe, exclusive],
  );
  await s.agent.prompt("go");
  deepEqual(order, [
    "start a",
    "start b",
    "end b",
    "end a",
    "run c",
    "start d",
    "start e",
    "end d",
    "end e",
  ]);
  deepEqual(results(s.agent.events).map((event) => event.callId), ["a", "b", "c", "d", "e"]);
  const calls = s.agent.events.filter((e) => e.type === "tool/call" || e.type === "tool/result")
    .map((e) => `${e.type === "tool/call" ? "call" : "result"} ${e.callId}`);
  deepEqual(calls, [
    "call a",
    "call b",
    "result a",
    "result b",
    "call c",
    "result c",
    "call d",
    "call e",
    "result d",
    "result e",
  ]);
  deepEqual(
    s.adapter.requests[1]!.messages.filter((m) => m.role === "tool").map((m) => m.content),
    ["a", "b", "c", "d", "e"].map(text),
  );
});

Deno.test("Agent.prompt() honours maxParallelToolCalls", async () => {
  let active = 0;
  let peak = 0;
  const slow = tool("slow", async () => {
    active++;
    peak = Math.max(peak, active);
    await Promise.resolve();
    await Promise.resolve();
    active--;
    return text("ok");
  }, true);
  await using s = await setup(
    [
      multiCall(["1", "2", "3", "4", "5"].map((id) => ({ id, name: "slow", args: {} }))),
      textResponse("ok"),
    ],
    [slow],
    { maxParallelToolCalls: 2 },
  );
  await s.agent.prompt("go");
  equal(peak, 2);
  equal(results(s.agent.events).length, 5);
});

Deno.test("Agent.prompt() with a pre-aborted signal starts nothing", async () => {
  let ran = false;
  await using s = await setup([toolCallResponse("c1", "echo", {})], [tool("echo", () => {
    ran = true;
    return text("x");
  })]);
  const controller = new AbortController();
  controller.abort();
  const result = await s.agent.prompt("go", { signal: controller.signal });
  deepEqual(result, { stopReason: "cancelled" });
  equal(s.adapter.requests.length, 0);
  equal(ran, false);
  deepEqual(types(s.agent.events), ["turn/start", "user/message", "turn/end"]);
  equal(s.agent.events.at(-1)!.stopReason, "cancelled");
});

Deno.test("Agent.prompt() aborted during a call drains it and dispatches nothing after", async () => {
  const controller = new AbortController();
  const bodies: string[] = [];
  const hang = tool("hang", (_args, exec) => {
    bodies.push("hang");
    const settled = new Promise((_, reject) => {
      exec.signal.addEventListener("abort", () => reject(exec.signal.reason), { once: true });
    });
    controller.abort(new DOMException("user cancelled", "AbortError"));
    return settled;
  });
  await using s = await setup(
    [multiCall([{ id: "a", name: "hang", args: {} }, { id: "b", name: "echo", args: {} }])],
    [
      hang,
      tool("echo", () => {
        bodies.push("echo");
        return text("x");
      }),
    ],
  );
  const result = await s.agent.prompt("go", { signal: controller.signal });
  deepEqual(result, { stopReason: "cancelled" });
  deepEqual(bodies, ["hang"]);
  const [a, b] = results(s.agent.events);
  equal(a!.isError, true);
  equal(b!.isError, true);
  deepEqual(b!.content, text("Error: tool call aborted before dispatch"));
  equal((b!.error as { code: string }).code, "ABORTED_BEFORE_DISPATCH");
  equal(s.adapter.requests.length, 1);
  equal(s.agent.events.at(-1)!.stopReason, "cancelled");
});

Deno.test("Agent.prompt() aborted between calls starts no later call", async () => {
  const controller = new AbortController();
  const bodies: string[] = [];
  await using s = await setup(
    [multiCall([{ id: "a", name: "first", args: {} }, { id: "b", name: "second", args: {} }])],
    [
      tool("first", () => {
        bodies.push("first");
        controller.abort();
        return text("first done");
      }),
      tool("second", () => {
        bodies.push("second");
        return text("second done");
      }),
    ],
  );
  const result = await s.agent.prompt("go", { signal: controller.signal });
  deepEqual(result, { stopReason: "cancelled" });
  deepEqual(bodies, ["first"]);
  deepEqual(results(s.agent.events).map((e) => (e.error as { code?: string } | undefined)?.code), [
    "ABORTED",
    "ABORTED_BEFORE_DISPATCH",
  ]);
});

Deno.test("Agent.prompt() aborted while streaming keeps the partial text", async (t) => {
  const entries: MockEntry[] = ["hang", "hang-slow", {
    hangAfter: [{ type: "text", text: "partial" }],
  }];
  for (const entry of entries) {
    await t.step(JSON.stringify(entry), async () => {
      const controller = new AbortController();
      await using s = await setup([entry], []);
      s.ctx.on("agent/delta", () => controller.abort());
      const result = await s.agent.prompt("go", { signal: controller.signal });
      deepEqual(result, { stopReason: "cancelled" });
      const assistant = s.agent.events.find((e) => e.type === "assistant/message")!;
      deepEqual(assistant.content, text("partial"));
      equal(assistant.finishReason, "cancelled");
      deepEqual(s.agent.events.at(-1)?.stopReason, "cancelled");
    });
  }
});

Deno.test("Agent.dispose() cancels a running turn", async () => {
  await using s = await setup(["hang"], []);
  const running = s.agent.prompt("go");
  await rejects(
    s.agent.prompt("again"),
    new Error(`Cannot prompt agent "${s.agent.id}": a turn is already running`),
  );
  await s.agent.dispose();
  deepEqual(await running, { stopReason: "cancelled" });
});

Deno.test("Agent.prompt() stops at the step limit", async () => {
  await using s = await setup(
    [toolCallResponse("1", "echo", {}), toolCallResponse("2", "echo", {}), textResponse("never")],
    [echo],
    { maxSteps: 2 },
  );
  deepEqual(await s.agent.prompt("loop"), { stopReason: "max_steps" });
  equal(s.adapter.requests.length, 2);
  equal(results(s.agent.events).length, 2);
  equal(s.adapter.remaining, 1);
});

Deno.test("Agent.prompt() does not dispatch tool calls of a max-tokens answer", async () => {
  let ran = false;
  await using s = await setup(
    [
      [...maxTokensResponse("cut").slice(0, 1), {
        type: "tool-call",
        id: "c1",
        name: "echo",
        arguments: "{}",
      }, {
        type: "finish",
        reason: "max-tokens",
      }],
      textResponse("ok"),
    ],
    [tool("echo", () => {
      ran = true;
      return text("x");
    })],
  );
  deepEqual(await s.agent.prompt("go"), { stopReason: "max_tokens" });
  equal(ran, false);
  equal(results(s.agent.events).length, 0);
  await s.agent.prompt("continue");
  const messages = s.adapter.requests[1]!.messages;
  equal(messages[2]!.role, "tool");
  equal(messages[2]!.role === "tool" && messages[2]!.isError, true);
});

Deno.test("Agent.prompt() answers invalid JSON arguments with a clear INVALID_ARGS error", async () => {
  let ran = false;
  await using s = await setup(
    [
      multiCall([{ id: "c1", name: "echo", args: { raw: '{"text": "unterminated' } }]),
      textResponse("ok"),
    ],
    [tool("echo", () => {
      ran = true;
      return text("x");
    })],
  );
  await s.agent.prompt("go");
  equal(ran, false);
  const [result] = results(s.agent.events);
  equal(result!.isError, true);
  equal((result!.error as { code: string }).code, "INVALID_ARGS");
  const message = (result!.content as { text: string }[])[0]!.text;
  // The position, the token and a fix the model can apply; the text itself is not echoed whole.
  equal(
    message,
    'Error: invalid arguments: arguments: expected valid JSON, received invalid JSON: the text is cut short at position 22 (line 1, column 23, token end of input, near "{\\"text\\": \\"unterminated"); fix: append "\\"}"',
  );
  equal(
    s.agent.events.filter((e) => e.type === "tool/call")[0]!.arguments,
    '{"text": "unterminated',
  );
});

Deno.test("Agent.prompt() appends a result's deferred contexts after it", async () => {
  await using s = await setup(
    [toolCallResponse("c1", "ctx", {}), textResponse("ok")],
    [tool("ctx", (_args, exec) => {
      exec.deferContext(text("remember this"));
      return text("done");
    })],
  );
  await s.agent.prompt("go");
  const index = s.agent.events.findIndex((e) => e.type === "tool/result");
  const next = s.agent.events[index + 1]!;
  equal(next.type, "context/inject");
  deepEqual(next.source, { kind: "tool", callId: "c1" });
  deepEqual(s.adapter.requests[1]!.messages.at(-1), {
    role: "user",
    content: text("remember this"),
    source: "tool",
  });
});

Deno.test("Agent.prompt() ends with stopReason error when the adapter fails", async () => {
  await using s = await setup([], []);
  const result = await s.agent.prompt("go");
  deepEqual(result, {
    stopReason: "error",
    error: { message: "MockAdapter: script exhausted" },
  });
  deepEqual(s.agent.events.at(-1)!.error, {
    message: "MockAdapter: script exhausted",
  });
});

Deno.test("Agent.appendEvent() logs tool-owned events between the call and its result", async () => {
  await using s = await setup(
    [toolCallResponse("c1", "read", { path: "/a" }), textResponse("ok")],
    [tool("read", (args, exec) => {
      exec.agent!.appendEvent("fs/observed", { path: String(args.path) });
      return text("contents");
    })],
  );
  await s.agent.prompt("go");
  deepEqual(types(s.agent.events).slice(3, 6), ["tool/call", "fs/observed", "tool/result"]);
});

Deno.test("createAgent({ resume }) recovers a torn log and continues the session", async () => {
  await using dir = await tempDir();
  const ctx = await createHarness();
  ctx.tools.register(echo);
  try {
    const first = await createAgent(ctx, {
      adapter: new MockAdapter([
        toolCallResponse("c1", "echo", { text: "hi" }),
        textResponse("one"),
      ]),
      model: "mock",
      cwd: dir.path,
      logDir: dir.path,
      sessionId: "s1",
    });
    await first.prompt("first");
    const before = first.messages();
    await first.dispose();
    await Deno.writeTextFile(`${dir.path}/s1.jsonl`, '{"seq":99,"time":"x","type":"tool/', {
      append: true,
    });
    const adapter = new MockAdapter([textResponse("two")]);
    const resumed = await createAgent(ctx, {
      adapter,
      model: "mock",
      logDir: dir.path,
      sessionId: "s1",
      resume: true,
    });
    equal(resumed.sessionId, "s1");
    equal(resumed.cwd, dir.path);
    equal(resumed.warnings.length, 1);
    equal(resumed.warnings[0]!.message, "torn last line skipped (34 characters, no newline)");
    deepEqual(resumed.messages(), before);
    await resumed.prompt("second");
    deepEqual(adapter.requests[0]!.messages.slice(0, before.length), before);
    const last = resumed.events.at(-1)!;
    equal(last.turn, 2);
    equal(last.seq, 11);
    await resumed.dispose();
    const loaded = await readSessionLog(`${dir.path}/s1.jsonl`);
    equal(loaded.events.length, 11);
    deepEqual(loaded.warnings.map((w) => w.line), [9]);
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("createAgent({ resume }) closes a turn that a crash left open", async () => {
  await using dir = await tempDir();
  const ctx = await createHarness();
  try {
    const path = `${dir.path}/crash.jsonl`;
    await Deno.writeTextFile(
      path,
      [
        JSON.stringify({ type: "session", version: 1, id: "crash", createdAt: "t", cwd: "/w" }),
        JSON.stringify({ seq: 1, time: "t", type: "turn/start", turn: 1 }),
        JSON.stringify({ seq: 2, time: "t", type: "user/message", turn: 1, content: text("hi") }),
        "",
      ].join("\n"),
    );
    const agent = await createAgent(ctx, {
      adapter: new MockAdapter(),
      model: "m",
      logPath: path,
      resume: true,
    });
    const last = agent.events.at(-1)!;
    equal(last.type, "turn/end");
    equal(last.seq, 3);
    equal(last.stopReason, "error");
    await agent.dispose();
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("createAgent() validates its options before touching the disk", async () => {
  const ctx = await createHarness();
  try {
    const base = { adapter: new MockAdapter(), model: "m", logDir: "/nonexistent" };
    await rejects(
      createAgent(ctx, { ...base, cwd: "/w", maxSteps: 0 }),
      new RangeError(
        "Cannot create agent as 'maxSteps' must be a positive integer: current value is 0",
      ),
    );
    await rejects(
      createAgent(ctx, { ...base, cwd: "rel" }),
      new TypeError(
        `Cannot create agent as 'cwd' must be an absolute path: current value is "rel"`,
      ),
    );
    await rejects(
      createAgent(ctx, { ...base, cwd: "/w", sessionId: "../escape" }),
      new TypeError(
        `Cannot create agent as 'sessionId' must match /^[A-Za-z0-9][A-Za-z0-9._-]*$/ to name a file in 'logDir': current value is "../escape"`,
      ),
    );
    await rejects(
      createAgent(ctx, { adapter: new MockAdapter(), model: "m", cwd: "/w" }),
      new TypeError("Cannot create agent: 'logPath', 'logDir' or 'inMemoryLog' is required"),
    );
  } finally {
    await ctx.fiber.dispose();
  }
});
