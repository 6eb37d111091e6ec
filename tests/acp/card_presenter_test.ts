import { deepEqual, equal } from "node:assert/strict";
import { CardPresenter } from "../../acp/card_presenter.ts";
import type { AnyToolDefinition } from "../../tools/definition.ts";
import type { ToolCallView, ToolResultView } from "../../tools/views.ts";
import { defineTool } from "../../tools/define_tool.ts";

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
// Raw definitions (no defineTool wrapper) can return anything at runtime.
const bogus = tool("bogus", {
  presentCall: () => ({ card: "fancy", title: "F" }) as unknown as ToolCallView,
  presentResult: () => "done" as unknown as ToolResultView,
});
const broken = tool("broken", {
  presentCall: () => ({ card: "diff", title: "D", diffs: 3 }) as unknown as ToolCallView,
  presentResult: () => ({ card: "diff", diffs: null }) as unknown as ToolResultView,
});
const titled = tool("titled", {
  presentCall: () => ({ card: "generic", title: "Look", kind: "search" }),
  presentResult: () => ({ card: "generic", title: "Looked" }),
});
const tools = new Map(
  [bash, liar, thrower, quiet, bogus, broken, titled].map((t) => [t.name, t]),
);
const ok = { content: [{ type: "text" as const, text: "out" }], isError: false };

function presenter(logs: string[] = []) {
  return new CardPresenter({
    cwd: "/w",
    terminalOutput: false,
    lookup: (n) => tools.get(n),
    logger: { warn: (m) => logs.push(m) },
  });
}

/** The generic fallback card of a call with arguments `{"a":1}`. */
function genericCall(toolCallId: string, name: string) {
  return {
    sessionUpdate: "tool_call",
    toolCallId,
    title: name,
    kind: "other",
    status: "in_progress",
    rawInput: { a: 1 },
  };
}

Deno.test("CardPresenter.call() uses the tool presenter", () => {
  const p = presenter();
  equal(p.call("c1", "bash", { command: "ls" }).title, "ls");
  equal(p.isTerminal("c1"), true);
  equal(p.pendingCard("c1")?.kind, "execute");
});

Deno.test("CardPresenter.call() falls back to the generic card on a throw, undefined or unknown tool", () => {
  const logs: string[] = [];
  const p = presenter(logs);
  for (const name of ["thrower", "quiet", "nope"]) {
    deepEqual(p.call(`c-${name}`, name, { a: 1 }), genericCall(`c-${name}`, name));
  }
  deepEqual(logs, ['Presenter presentCall of tool "thrower" failed; using the generic card']);
});

Deno.test("CardPresenter.call() shows unparsed raw text as it is and never parses it", () => {
  const p = presenter();
  equal(p.call("a", "nope", "{bad").rawInput, "{bad");
  equal(p.call("b", "nope", '{"a":1}').rawInput, '{"a":1}');
  deepEqual(p.call("c", "nope", {}).rawInput, {});
});

Deno.test("CardPresenter.result() maps a presented result and forgets the call", () => {
  const p = presenter();
  p.call("c1", "bash", { command: "ls" });
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
  p.call("c1", "liar", {});
  deepEqual(p.result("c1", ok)?.content, [{
    type: "content",
    content: { type: "text", text: "out" },
  }]);
});

Deno.test("CardPresenter.result() falls back to generic on a throw or undefined and fills raw content", () => {
  const p = presenter();
  p.call("t", "thrower", {});
  p.call("q", "quiet", {});
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
  p.call("c1", "bash", { command: "ls" });
  equal(p.result("c1", ok, { surfaceOp: "replace" }), undefined);
  equal(p.result("c1", ok, { surfaceOp: "append" })?.status, "completed");
});

Deno.test("CardPresenter falls back to generic cards when a presenter returns a malformed view", () => {
  const logs: string[] = [];
  const p = presenter(logs);
  for (const name of ["bogus", "broken"]) {
    deepEqual(p.call(`c-${name}`, name, { a: 1 }), genericCall(`c-${name}`, name));
    equal(p.isTerminal(`c-${name}`), false);
    deepEqual(p.result(`c-${name}`, ok), {
      sessionUpdate: "tool_call_update",
      toolCallId: `c-${name}`,
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "out" } }],
    });
  }
  equal(logs.length, 4);
  equal(logs[0], 'Presenter presentCall of tool "bogus" failed; using the generic card');
});

Deno.test("CardPresenter.result() fills a generic result without content and keeps its title", () => {
  const p = presenter();
  equal(p.call("c1", "titled", {}).kind, "search");
  equal(
    JSON.stringify(p.result("c1", ok)),
    JSON.stringify({
      sessionUpdate: "tool_call_update",
      toolCallId: "c1",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "out" } }],
      title: "Looked",
    }),
  );
});

Deno.test("CardPresenter.result() gives an unknown call id a generic card with the raw content", () => {
  const p = presenter();
  deepEqual(p.result("ghost", { content: [{ type: "text", text: "late" }], isError: false }), {
    sessionUpdate: "tool_call_update",
    toolCallId: "ghost",
    status: "completed",
    content: [{ type: "content", content: { type: "text", text: "late" } }],
  });
});

Deno.test("CardPresenter escapes a hostile tool name and raw input in the generic fallback and the bash card", () => {
  const presenter = new CardPresenter({
    cwd: "/w",
    terminalOutput: false,
    lookup: (name) => (name === "bash" ? bash : undefined),
  });
  const fallback = presenter.call("c1", "evil\u001b[2J\u202e", { cmd: "rm\u0000 -rf ~" });
  equal(fallback.title, "evil\\e[2J\\u202e");
  deepEqual(fallback.rawInput, { cmd: "rm\\x00 -rf ~" });
  const padded = `echo hi\r${" ".repeat(5000)}&& curl x | sh`;
  const card = presenter.call("c2", "bash", { command: padded });
  equal(card.title, "echo hi\\r [5000 blank characters] && curl x | sh");
  equal(presenter.preview("c3", "bash", { command: padded }).title, card.title);
});

Deno.test("CardPresenter validates a defineTool tool's arguments once for both of its presenters", () => {
  let checks = 0;
  const schema = {
    "~standard": {
      version: 1 as const,
      vendor: "test",
      validate(value: unknown) {
        checks++;
        const path = (value as { path?: unknown }).path;
        return typeof path === "string"
          ? { value: { path: path.toUpperCase() } }
          : { issues: [{ message: "path must be a string", path: ["path"] }] };
      },
    },
  };
  const tool = defineTool({
    name: "look",
    description: "Looks.",
    parameters: schema,
    jsonSchema: { type: "object", properties: { path: { type: "string" } } },
    presentCall: (args) => ({ card: "generic", title: `look ${(args as { path: string }).path}` }),
    presentResult: (args) => ({
      card: "generic",
      title: `looked ${(args as { path: string }).path}`,
    }),
    execute: () => [],
  });
  const presenter = new CardPresenter({ cwd: "/w", terminalOutput: false, lookup: () => tool });
  equal(presenter.call("c1", "look", { path: "a" }).title, "look A");
  const done = presenter.result("c1", { content: [], isError: false });
  equal(done?.title, "looked A");
  equal(checks, 1);
  // Invalid arguments select the generic card, without asking the presenters.
  equal(presenter.call("c2", "look", { path: 1 }).title, "look");
  equal(checks, 2);
});
