import { deepEqual, equal } from "node:assert/strict";
import { CardPresenter } from "../../acp/card_presenter.ts";
import type { AnyToolDefinition } from "../../tools/definition.ts";

function tool(name: string, extra: Partial<AnyToolDefinition>): AnyToolDefinition {
  return { name, description: "", parameters: { type: "object" }, execute: () => [], ...extra };
}

const bash = tool("bash", {
  presentCall: (args: { command: string }) => ({ card: "terminal", title: args.command }),
  presentResult: (_args, result) => ({
    card: "terminal",
    output: result.content.map((b) => b.type === "text" ? b.text : "").join(""),
    exitCode: 0,
  }),
});
const liar = tool("liar", {
  presentCall: () => ({ card: "generic", title: "Liar" }),
  presentResult: () => ({ card: "terminal", output: "x" }),
});
const thrower = tool("thrower", {
  presentCall: () => {
    throw new Error("boom");
  },
  presentResult: () => {
    throw new Error("boom");
  },
});
const quiet = tool("quiet", { presentCall: () => undefined, presentResult: () => undefined });
const tools = new Map([bash, liar, thrower, quiet].map((t) => [t.name, t]));
const ok = { content: [{ type: "text" as const, text: "out" }], isError: false };

function presenter(logs: string[] = []) {
  return new CardPresenter({
    cwd: "/w",
    terminalOutput: false,
    lookup: (n) => tools.get(n),
    logger: { warn: (m) => logs.push(m) },
  });
}

Deno.test("CardPresenter.call() uses the tool presenter", () => {
  const p = presenter();
  equal(p.call("c1", "bash", '{"command":"ls"}').title, "ls");
  equal(p.isTerminal("c1"), true);
  equal(p.pendingCard("c1")?.kind, "execute");
});

Deno.test("CardPresenter.call() falls back to the generic card on a throw, undefined or unknown tool", () => {
  const logs: string[] = [];
  const p = presenter(logs);
  for (const name of ["thrower", "quiet", "nope"]) {
    deepEqual(p.call(`c-${name}`, name, '{"a":1}'), {
      sessionUpdate: "tool_call",
      toolCallId: `c-${name}`,
      title: name,
      kind: "other",
      status: "in_progress",
      rawInput: { a: 1 },
    });
  }
  deepEqual(logs, ['Presenter presentCall of tool "thrower" threw; using the generic card']);
});

Deno.test("CardPresenter.call() keeps invalid JSON raw and reads an empty string as {}", () => {
  const p = presenter();
  equal(p.call("a", "nope", "{bad").rawInput, "{bad");
  deepEqual(p.call("b", "nope", "").rawInput, {});
});

Deno.test("CardPresenter.result() maps a presented result and forgets the call", () => {
  const p = presenter();
  p.call("c1", "bash", '{"command":"ls"}');
  const wire = p.result("c1", ok);
  deepEqual(wire?.content, [{
    type: "content",
    content: { type: "text", text: "```console\nout\n```" },
  }]);
  equal(p.pendingCard("c1"), undefined);
  // A late second result for the same id is generic with the raw content.
  deepEqual(p.result("c1", ok), {
    sessionUpdate: "tool_call_update",
    toolCallId: "c1",
    status: "completed",
    content: [{ type: "content", content: { type: "text", text: "out" } }],
  });
});

Deno.test("CardPresenter.result() applies the orphan guard", () => {
  const p = presenter();
  p.call("c1", "liar", "{}");
  deepEqual(p.result("c1", ok)?.content, [{
    type: "content",
    content: { type: "text", text: "out" },
  }]);
});

Deno.test("CardPresenter.result() falls back to generic on a throw or undefined and fills raw content", () => {
  const p = presenter();
  p.call("t", "thrower", "{}");
  p.call("q", "quiet", "{}");
  for (const id of ["t", "q", "unknown"]) {
    deepEqual(p.result(id, { content: [{ type: "text", text: "e" }], isError: true }), {
      sessionUpdate: "tool_call_update",
      toolCallId: id,
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "e" } }],
    });
  }
});

Deno.test("CardPresenter.result() skips a non-append surfaceOp", () => {
  const p = presenter();
  p.call("c1", "bash", '{"command":"ls"}');
  equal(p.result("c1", ok, { surfaceOp: "replace" }), undefined);
  equal(p.result("c1", ok, { surfaceOp: "append" })?.status, "completed");
});
