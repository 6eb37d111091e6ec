/**
 * `toolMode` is an opaque listing mode: the agent validates it, passes it to `schemas({ mode })`
 * and to every call (`call.mode`), and knows no mode itself.
 */
import { deepEqual, equal, rejects } from "node:assert/strict";
import { createAgent, createHarness } from "../../mod.ts";
import { MockAdapter, textResponse, toolCallResponse } from "../../agent/mod.ts";
import { tempDir } from "../_helpers.ts";

Deno.test("createAgent() rejects a toolMode that is not a non-empty string", async () => {
  await using dir = await tempDir();
  const ctx = await createHarness({ logSink: () => {} });
  try {
    for (const [toolMode, shown] of [["", '""'], [5, "5"], [null, "null"]] as const) {
      await rejects(
        () =>
          createAgent(ctx, {
            adapter: new MockAdapter([]),
            model: "mock",
            cwd: dir.path,
            inMemoryLog: true,
            toolMode: toolMode as never,
          }),
        {
          name: "TypeError",
          message:
            `Cannot create agent as 'toolMode' must be a non-empty string (the listing mode: "native", or Code Mode's "code" or "both"): current value is ${shown}`,
        },
      );
    }
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("an agent's toolMode reaches the listing hooks and every call's mode", async () => {
  await using dir = await tempDir();
  const ctx = await createHarness({ logSink: () => {} });
  for (const name of ["read", "write"]) {
    ctx.tools.register({
      name,
      description: name,
      parameters: { type: "object" },
      execute: () => [{ type: "text", text: `${name} ran` }],
    });
  }
  // A plugin's own mode, unknown to Code Mode: "readonly" lists only read.
  ctx.tools.listing((definition, mode) => mode !== "readonly" || definition.name === "read");
  const modes: string[] = [];
  ctx.tools.use("route", (call, next) => {
    modes.push(`${call.name}:${call.mode}`);
    return next();
  });
  const adapter = new MockAdapter([toolCallResponse("c1", "read", {}), textResponse("ok")]);
  const agent = await createAgent(ctx, {
    adapter,
    model: "mock",
    cwd: dir.path,
    inMemoryLog: true,
    toolMode: "readonly",
  });
  equal(agent.toolMode, "readonly");
  await agent.prompt("read it");
  deepEqual(adapter.requests.map((r) => r.tools.map((t) => t.name)), [["read"], ["read"]]);
  deepEqual(modes, ["read:readonly"]);
  const native = new MockAdapter([textResponse("hi")]);
  const other = await createAgent(ctx, {
    adapter: native,
    model: "mock",
    cwd: dir.path,
    inMemoryLog: true,
  });
  equal(other.toolMode, "native");
  await other.prompt("hi");
  deepEqual(native.requests[0]!.tools.map((t) => t.name), ["read", "write"]);
  await other.dispose();
  await agent.dispose();
  await ctx.fiber.dispose();
});
