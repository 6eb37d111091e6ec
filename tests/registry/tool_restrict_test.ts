import { deepEqual, equal, throws } from "node:assert/strict";
import { createHarness, type ToolsContext } from "../../mod.ts";
import type { AnyToolDefinition } from "../../tools/mod.ts";
import { fakeAgent } from "./_harness.ts";

function tool(name: string): AnyToolDefinition {
  return {
    name,
    description: name,
    parameters: { type: "object" },
    execute: () => [{ type: "text", text: `${name} ran` }],
  };
}

async function harness(): Promise<ToolsContext> {
  const ctx = await createHarness({ logSink: () => {} });
  for (const name of ["bash", "read", "write", "mcp__gh__search", "mcp__gh__delete"]) {
    ctx.tools.register(tool(name));
  }
  return ctx;
}

const names = (list: readonly { name: string }[]) => list.map((t) => t.name);

Deno.test("ctx.tools.restrict() masks one agent's view of the global tools", async () => {
  const ctx = await harness();
  try {
    const lift = ctx.tools.restrict({ allow: ["read", "mcp__*"], deny: ["mcp__*__delete"] }, {
      scope: "s1",
    });
    ctx.tools.register(tool("bash"), { scope: "s1" }); // the agent's own tools are never masked
    deepEqual(names(ctx.tools.list({ scope: "s1" })), ["bash", "mcp__gh__search", "read"]);
    deepEqual(names(ctx.tools.schemas({ scope: "s1" })), ["bash", "mcp__gh__search", "read"]);
    equal(ctx.tools.get("write", { scope: "s1" }), undefined);
    deepEqual(names(ctx.tools.list({ scope: "s2" })).length, 5);
    deepEqual(names(ctx.tools.list()).length, 5);
    const hidden = await ctx.tools.execute({
      callId: "c1",
      name: "write",
      arguments: {},
      agent: fakeAgent("s1"),
    });
    deepEqual(hidden.error, {
      message: 'unknown tool "write"',
      code: "UNKNOWN_TOOL",
      name: "ToolNotFoundError",
    });
    const other = await ctx.tools.execute({
      callId: "c2",
      name: "write",
      arguments: {},
      agent: fakeAgent("s2"),
    });
    equal(other.isError, false);
    lift();
    equal(names(ctx.tools.list({ scope: "s1" })).length, 5);
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("ctx.tools.restrict() without scope masks every view; masks stack and end with the fiber", async () => {
  const ctx = await harness();
  try {
    let changes = 0;
    ctx.on("tools/changed", () => changes++);
    const fiber = ctx.plugin({
      name: "hide-bash",
      apply: (c: ToolsContext) => void c.tools.restrict({ deny: ["bash"] }),
    });
    ctx.tools.restrict({ deny: ["mcp__*"] });
    deepEqual(names(ctx.tools.list()), ["read", "write"]);
    deepEqual(names(ctx.tools.list({ scope: "any" })), ["read", "write"]);
    equal(changes, 2);
    await fiber.dispose();
    deepEqual(names(ctx.tools.list()), ["bash", "read", "write"]);
    equal(changes, 3);
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("ctx.tools.restrict() never hides a reserved registration and rejects malformed filters", async () => {
  const ctx = await harness();
  try {
    ctx.tools.register(tool("run_code"), { reserved: true });
    ctx.tools.restrict({ allow: [] });
    ctx.tools.restrict({ deny: ["run_code"] }, { scope: "s1" });
    deepEqual(names(ctx.tools.schemas()), ["run_code"]);
    deepEqual(names(ctx.tools.list({ scope: "s1" })), ["run_code"]);
    equal(ctx.tools.get("run_code", { scope: "s1" })?.name, "run_code");
    throws(() => ctx.tools.restrict({ allow: "read" } as never), {
      name: "TypeError",
      message: '"filter.allow" must be an array of tool-name globs: received "read"',
    });
    throws(() => ctx.tools.restrict({ hide: [] } as never), {
      message: '"filter" has an unknown key "hide": expected "allow" and "deny"',
    });
    throws(() => ctx.tools.restrict({}, { scope: "" }), {
      message: 'Cannot restrict tools: scope is "", expected a non-empty session id string',
    });
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("ctx.tools.restrict() hides tools from the model requests of that agent only", async () => {
  const { createAgent } = await import("../../mod.ts");
  const { MockAdapter, textResponse } = await import("../../agent/mod.ts");
  const ctx = await harness();
  try {
    ctx.tools.restrict({ deny: ["bash", "mcp__*"] }, { scope: "restricted" });
    const seen: string[][] = [];
    for (const sessionId of ["restricted", "open"]) {
      const adapter = new MockAdapter([textResponse("ok")]);
      const agent = await createAgent(ctx, {
        adapter,
        model: "m",
        cwd: "/",
        sessionId,
        inMemoryLog: true,
      });
      await agent.prompt("hi");
      seen.push(names(adapter.requests[0]!.tools));
      await agent.dispose();
    }
    deepEqual(seen, [
      ["read", "write"],
      ["bash", "mcp__gh__delete", "mcp__gh__search", "read", "write"],
    ]);
  } finally {
    await ctx.fiber.dispose();
  }
});
