import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { HarnessError } from "../../core/errors.ts";
import type { ToolRegistry } from "../../registry/types.ts";
import type { ToolOutcome } from "../../tools/outcome.ts";
import { fakeAgent, harness, rawTool, text } from "./_harness.ts";

/** Calls `name` with empty arguments on behalf of an agent of session `sessionId`. */
function callIn(
  tools: ToolRegistry,
  callId: string,
  name: string,
  sessionId: string,
): Promise<ToolOutcome> {
  return tools.execute({ callId, name, arguments: {}, agent: fakeAgent(sessionId) });
}

Deno.test("register() with a scope makes the tool visible only in that scope", async () => {
  await using h = await harness();
  const tools = h.ctx.tools;
  tools.register(rawTool("global"));
  tools.register(rawTool("mine", undefined, { isConcurrencySafe: () => true }), { scope: "s1" });
  equal(tools.get("mine"), undefined);
  equal(tools.get("mine", { scope: "s2" }), undefined);
  equal(tools.get("mine", { scope: "s1" })?.name, "mine");
  deepEqual(tools.list().map((d) => d.name), ["global"]);
  deepEqual(tools.list({ scope: "s2" }).map((d) => d.name), ["global"]);
  deepEqual(tools.list({ scope: "s1" }).map((d) => d.name), ["global", "mine"]);
  deepEqual(tools.schemas().map((s) => s.name), ["global"]);
  deepEqual(tools.schemas({ mode: "native", scope: "s1" }).map((s) => s.name), ["global", "mine"]);
  equal(tools.isConcurrencySafe("mine", {}), false);
  equal(tools.isConcurrencySafe("mine", {}, { scope: "s1" }), true);

  const inScope = await callIn(tools, "c1", "mine", "s1");
  equal(text(inScope), "mine ok");
  const elsewhere = await callIn(tools, "c2", "mine", "s2");
  equal(elsewhere.error?.code, "UNKNOWN_TOOL");
  const noAgent = await tools.execute({ callId: "c3", name: "mine", arguments: {} });
  equal(noAgent.error?.code, "UNKNOWN_TOOL");
});

Deno.test("register() with a scope shadows a global tool of the same name there", async () => {
  await using h = await harness();
  const tools = h.ctx.tools;
  tools.register(rawTool("echo", () => [{ type: "text", text: "global" }]));
  tools.register(rawTool("echo", () => [{ type: "text", text: "scoped" }]), { scope: "s1" });
  equal(tools.list({ scope: "s1" }).length, 1);
  const scoped = await callIn(tools, "c1", "echo", "s1");
  equal(text(scoped), "scoped");
  const global = await callIn(tools, "c2", "echo", "s2");
  equal(text(global), "global");
});

Deno.test("register() accepts the same name in two scopes and throws on duplicates in one", async () => {
  await using h = await harness();
  const tools = h.ctx.tools;
  tools.register(rawTool("echo"), { scope: "a" });
  tools.register(rawTool("echo"), { scope: "b" });
  ok(tools.get("echo", { scope: "a" }) !== tools.get("echo", { scope: "b" }));
  throws(() => tools.register(rawTool("echo"), { scope: "a" }), (error: unknown) => {
    ok(error instanceof HarnessError);
    equal(error.code, "DUPLICATE_TOOL");
    equal(error.message, 'tool "echo" is already registered in this scope');
    return true;
  });
  throws(() => tools.register(rawTool("run_code"), { scope: "a" }), { name: "HarnessError" });
  throws(() => tools.register(rawTool("x"), { scope: "" }), {
    name: "TypeError",
    message: 'Cannot register a tool: scope is "", expected a non-empty session id string',
  });
});

Deno.test("register() with a scope is undone by its disposer and its fiber", async () => {
  await using h = await harness();
  const tools = h.ctx.tools;
  tools.register(rawTool("echo", () => [{ type: "text", text: "global" }]));
  const offA = tools.register(rawTool("echo", () => [{ type: "text", text: "a" }]), {
    scope: "a",
  });
  const fiber = h.ctx.plugin({
    name: "session-b",
    inject: ["tools"],
    apply(ctx) {
      ctx.get<typeof tools>("tools")!.register(rawTool("only_b"), { scope: "b" });
    },
  });
  await fiber.ready;
  deepEqual(tools.list({ scope: "b" }).map((d) => d.name), ["echo", "only_b"]);

  offA();
  const afterA = await callIn(tools, "c1", "echo", "a");
  equal(text(afterA), "global");
  equal(tools.get("only_b", { scope: "b" })?.name, "only_b");

  await fiber.dispose();
  equal(tools.get("only_b", { scope: "b" }), undefined);
  deepEqual(tools.list({ scope: "b" }).map((d) => d.name), ["echo"]);
  // The name is free again in that scope.
  tools.register(rawTool("only_b"), { scope: "b" });
});
