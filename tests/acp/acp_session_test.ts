import { deepEqual, equal } from "node:assert/strict";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { AcpSession } from "../../acp/acp_session.ts";
import type { AnyToolDefinition } from "../../tools/definition.ts";
import type { SessionEvent } from "../../agent/mod.ts";
import type { JsonValue } from "../../core/json.ts";

/** A logged event: the envelope added, and a `tool/call`'s `args` parsed as the loop does. */
function ev(data: { readonly type: string; readonly [key: string]: unknown }): SessionEvent {
  const args = data.type === "tool/call" && typeof data.arguments === "string"
    ? { args: JSON.parse(data.arguments) as JsonValue }
    : {};
  return { seq: 1, time: "t", ...data, ...args };
}

const term: AnyToolDefinition = {
  name: "sh",
  description: "",
  parameters: { type: "object" },
  execute: () => [],
  presentCall: (args: { cmd: string }) => ({ card: "terminal", title: args.cmd }),
};

function session(options: { flushMs?: number; terminalOutput?: boolean } = {}) {
  const sent: SessionUpdate[] = [];
  const s = new AcpSession({
    cwd: "/w",
    terminalOutput: options.terminalOutput ?? true,
    lookup: (name) => (name === "sh" ? term : undefined),
    send: (u) => sent.push(u),
    flushMs: options.flushMs ?? 60_000,
  });
  return { s, sent };
}

Deno.test("AcpSession.delta() coalesces deltas and splits on a kind change", () => {
  const { s, sent } = session();
  s.delta("reasoning", "a");
  s.delta("reasoning", "b");
  s.delta("text", "c");
  s.delta("text", "d");
  s.flush();
  deepEqual(sent, [
    { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "ab" } },
    { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "cd" } },
  ]);
});

Deno.test("AcpSession.event() replays user and assistant messages only on replay", () => {
  const user = { type: "user/message", content: [{ type: "text", text: "hi" }] };
  const assistant = {
    type: "assistant/message",
    content: [{ type: "reasoning", text: "r" }, { type: "text", text: "t" }, {
      type: "tool-call",
      id: "x",
      name: "n",
      arguments: "{}",
    }],
  };
  const live = session();
  live.s.event(ev(user), false);
  live.s.event(ev(assistant), false);
  deepEqual(live.sent, []);
  const replay = session();
  replay.s.event(ev(user), true);
  replay.s.event(ev(assistant), true);
  deepEqual(replay.sent.map((u) => u.sessionUpdate), [
    "user_message_chunk",
    "agent_thought_chunk",
    "agent_message_chunk",
  ]);
});

Deno.test("AcpSession.output() streams only terminal cards and hands the unsent tail to the result", () => {
  const { s, sent } = session();
  s.event(ev({ type: "tool/call", callId: "g", name: "other", arguments: "{}" }), false);
  s.output("g", "ignored");
  s.event(ev({ type: "tool/call", callId: "t", name: "sh", arguments: '{"cmd":"ls"}' }), false);
  s.output("t", "one\n");
  s.flush();
  s.output("t", "two\n");
  s.event(
    ev({
      type: "tool/result",
      callId: "t",
      content: [{ type: "text", text: "x" }],
      isError: false,
    }),
    false,
  );
  s.dispose();
  const data = sent
    .filter((u) => u.sessionUpdate === "tool_call_update")
    .map((
      u,
    ) => ((u as { _meta?: { terminal_output?: { data: string } } })._meta?.terminal_output?.data));
  // The result has no terminal view (no presentResult): the card keeps its terminal, receives
  // the unsent tail and ends with terminal_exit.
  deepEqual(data, ["one\n", "two\n"]);
  const last = sent.at(-1) as { _meta?: { terminal_exit?: unknown } };
  deepEqual(last._meta?.terminal_exit, { terminal_id: "t", exit_code: null, signal: null });
});

Deno.test("AcpSession with flushMs 0 sends each piece at once", () => {
  const { s, sent } = session({ flushMs: 0 });
  s.delta("text", "a");
  s.delta("text", "b");
  equal(sent.length, 2);
});

Deno.test("AcpSession.permissionCard() strips sessionUpdate and status and previews unknown calls", () => {
  const { s } = session();
  s.event(ev({ type: "tool/call", callId: "t", name: "sh", arguments: '{"cmd":"ls"}' }), false);
  const card = s.permissionCard("t", "sh", { cmd: "ls" });
  equal("sessionUpdate" in card, false);
  equal("status" in card, false);
  equal(card.title, "ls");
  equal(s.permissionCard("sub:code:1", "sh", { cmd: "pwd" }).title, "pwd");
});

Deno.test("AcpSession.event() shows a model/retry wait as a thought of its own, live and on replay", () => {
  for (const replay of [false, true]) {
    const { s, sent } = session();
    s.delta("text", "partial");
    s.event(
      ev({
        type: "model/retry",
        attempt: 2,
        maxAttempts: 4,
        delayMs: 2000,
        status: 503,
        message: "DeepSeek busy (HTTP 503), retrying in 2 s (attempt 2 of 4)",
      }),
      replay,
    );
    deepEqual(sent, [
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "partial" } },
      {
        sessionUpdate: "agent_thought_chunk",
        content: {
          type: "text",
          text: "DeepSeek busy (HTTP 503), retrying in 2 s (attempt 2 of 4)\n",
        },
      },
    ]);
  }
});
