import { deepEqual } from "node:assert/strict";
import { deriveMessages } from "../../agent/derive_messages.ts";
import type { SessionEvent } from "../../agent/session_event.ts";

let seq = 0;
function ev(type: string, data: Record<string, unknown>): SessionEvent {
  return { seq: ++seq, time: "t", type, ...data };
}
const text = (t: string) => [{ type: "text" as const, text: t }];
const call = (id: string) => ({ type: "tool-call", id, name: "echo", arguments: "{}" });

Deno.test("deriveMessages() maps user, assistant, tool and context events and ignores the rest", () => {
  const messages = deriveMessages([
    ev("turn/start", { turn: 1 }),
    ev("user/message", { turn: 1, content: text("hi") }),
    ev("assistant/message", {
      turn: 1,
      step: 1,
      finishReason: "tool-calls",
      content: [{ type: "reasoning", text: "r" }, call("c1")],
    }),
    ev("tool/call", { turn: 1, step: 1, callId: "c1", name: "echo", arguments: "{}" }),
    ev("fs/observed", { path: "/a" }),
    ev("tool/code-dispatch", {
      parentCallId: "c1",
      subCallId: "c1:code:1",
      name: "x",
      arguments: {},
      isError: false,
      content: [],
    }),
    ev("tool/result", { turn: 1, step: 1, callId: "c1", content: text("ok"), isError: false }),
    ev("context/inject", {
      turn: 1,
      content: text("note"),
      source: { kind: "plugin", plugin: "p" },
    }),
    ev("turn/end", { turn: 1, stopReason: "end_turn" }),
  ]);
  deepEqual(messages, [
    { role: "user", content: text("hi") },
    { role: "assistant", content: [{ type: "reasoning", text: "r" }, call("c1")] },
    { role: "tool", callId: "c1", content: text("ok"), isError: false },
    { role: "user", content: text("note"), source: "plugin" },
  ]);
});

Deno.test("deriveMessages() moves contexts logged between results after the batch", () => {
  const messages = deriveMessages([
    ev("assistant/message", {
      turn: 1,
      step: 1,
      finishReason: "tool-calls",
      content: [call("a"), call("b")],
    }),
    ev("tool/result", { turn: 1, step: 1, callId: "a", content: text("A"), isError: false }),
    ev("context/inject", {
      turn: 1,
      content: text("ctx-a"),
      source: { kind: "tool", callId: "a" },
    }),
    ev("tool/result", { turn: 1, step: 1, callId: "b", content: text("B"), isError: false }),
  ]);
  deepEqual(messages.map((m) => m.role === "tool" ? m.callId : m.content), [
    [call("a"), call("b")],
    "a",
    "b",
    text("ctx-a"),
  ]);
});

Deno.test("deriveMessages() answers calls without a result with a synthetic error", () => {
  const messages = deriveMessages([
    ev("assistant/message", {
      turn: 1,
      step: 1,
      finishReason: "tool-calls",
      content: [call("a"), call("b")],
    }),
    ev("tool/result", { turn: 1, step: 1, callId: "a", content: text("A"), isError: false }),
    ev("turn/end", { turn: 1, stopReason: "error" }),
    ev("user/message", { turn: 2, content: text("again") }),
    ev("assistant/message", { turn: 2, step: 1, finishReason: "max-tokens", content: [call("c")] }),
  ]);
  deepEqual(messages.slice(2), [
    {
      role: "tool",
      callId: "b",
      isError: true,
      content: text("Error: tool call has no recorded result because the turn was interrupted"),
    },
    { role: "user", content: text("again") },
    { role: "assistant", content: [call("c")] },
    {
      role: "tool",
      callId: "c",
      isError: true,
      content: text(
        "Error: tool call was not executed because the answer was cut off at the output token limit",
      ),
    },
  ]);
});

Deno.test("deriveMessages() drops a result for a call the last answer did not make", () => {
  const messages = deriveMessages([
    ev("user/message", { turn: 1, content: text("hi") }),
    ev("tool/result", { turn: 1, step: 1, callId: "ghost", content: text("?"), isError: false }),
  ]);
  deepEqual(messages, [{ role: "user", content: text("hi") }]);
});
