import { deepEqual, equal, throws } from "node:assert/strict";
import { createAgent } from "../../mod.ts";
import { createHarness } from "../../mod.ts";
import { defineTool } from "../../mod.ts";
import { eventOfType, eventsOfType, messagesOfRole } from "../../testing/mod.ts";
import { MockAdapter, multiCall, textResponse } from "../../agent/mod.ts";

Deno.test("eventsOfType() and eventOfType() pick typed events from an in-memory agent", async () => {
  const ctx = await createHarness({ logLevel: "error" });
  ctx.tools.register(defineTool({
    name: "echo",
    description: "Echo.",
    parameters: { text: { type: "string", required: true } },
    execute: (args) => ({ content: [{ type: "text", text: args.text }], meta: { n: 1 } }),
  }));
  const adapter = new MockAdapter([
    multiCall([{ id: "a", name: "echo", args: { text: "1" } }, {
      id: "b",
      name: "echo",
      args: {},
    }]),
    textResponse("done"),
  ]);
  const agent = await createAgent(ctx, { adapter, model: "m", cwd: "/", inMemoryLog: true });
  try {
    equal(agent.logPath, ":memory:");
    equal((await agent.prompt("go")).stopReason, "end_turn");
    const results = eventsOfType(agent.events, "tool/result");
    deepEqual(results.map((r) => [r.callId, r.isError]), [["a", false], ["b", true]]);
    deepEqual(eventOfType(agent.events, "tool/result", (r) => r.callId === "a").meta, { n: 1 });
    throws(() => eventOfType(agent.events, "tool/result"), {
      message:
        'Cannot pick the event: 2 "tool/result" events match (seq 5, 7); narrow them with "where"',
    });
    throws(() => eventOfType(agent.events, "context/inject"), {
      message:
        'Cannot pick the event: there is no "context/inject" event that matches; the events are: turn/start, user/message, assistant/message, tool/call, tool/result, tool/call, tool/result, assistant/message, turn/end',
    });
    const tool = messagesOfRole(adapter.requests[1]!, "tool");
    deepEqual(tool.map((m) => m.callId), ["a", "b"]);
    equal(messagesOfRole(adapter.requests[1]!.messages, "user").length, 1);
  } finally {
    await agent.dispose();
    await ctx.fiber.dispose();
  }
});

Deno.test("createAgent() rejects inMemoryLog beside a log file or resume", async () => {
  const ctx = await createHarness({ logLevel: "error" });
  try {
    const base = { adapter: new MockAdapter(), model: "m", cwd: "/", inMemoryLog: true };
    for (const extra of [{ logDir: "/tmp" }, { logPath: "/tmp/x.jsonl" }, { resume: true }]) {
      await createAgent(ctx, { ...base, ...extra }).then(
        () => {
          throw new Error("expected a rejection");
        },
        (error: Error) => {
          equal(
            error.message,
            "Cannot create agent: 'inMemoryLog' excludes 'logPath', 'logDir' and 'resume' (an in-memory log has no file)",
          );
        },
      );
    }
  } finally {
    await ctx.fiber.dispose();
  }
});
