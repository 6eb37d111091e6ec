/**
 * The typed ToolCall (`prepare()`), its once-only validation, and the chain's plugin layers.
 */
import { deepEqual, equal, ok, throws } from "node:assert/strict";
import type { ToolCall } from "../../registry/types.ts";
import type { Next, ToolMiddleware } from "../../registry/types.ts";
import { defineTool } from "../../tools/define_tool.ts";
import type { ExecuteReturn, ToolExecution } from "../../tools/definition.ts";
import { errorOutcome, type ToolOutcome } from "../../tools/outcome.ts";
import { harness, rawTool, text } from "./_harness.ts";

/** A Standard Schema that counts its validations. */
function countingSchema() {
  const counter = { calls: 0 };
  const schema = {
    "~standard": {
      version: 1 as const,
      vendor: "test",
      validate(value: unknown) {
        counter.calls++;
        const path = (value as { path?: unknown }).path;
        return typeof path === "string"
          ? { value: value as { path: string } }
          : { issues: [{ message: "path must be a string", path: ["path"] }] };
      },
    },
  };
  return { schema, counter };
}

Deno.test("prepare() validates once for concurrency, presenters and the body", async () => {
  await using h = await harness();
  const { schema, counter } = countingSchema();
  const tool = defineTool({
    name: "look",
    description: "Looks.",
    parameters: schema,
    jsonSchema: { type: "object", properties: { path: { type: "string" } } },
    isConcurrencySafe: () => true,
    presentCall: (args) => ({ card: "generic", title: (args as { path: string }).path }),
    execute: (args) => [{ type: "text", text: (args as { path: string }).path }],
  });
  h.ctx.tools.register(tool);
  const call = h.ctx.tools.prepare({ callId: "c1", name: "look", arguments: { path: "a" } });
  deepEqual(call.validation, { ok: true, args: { path: "a" } });
  equal(call.concurrencySafe, true);
  ok(Object.isFrozen(call.args));
  equal(h.ctx.tools.get("look")!.validated!.presentCall!(call.args)?.title, "a");
  equal(text(await h.ctx.tools.execute(call)), "a");
  equal(counter.calls, 1, "one validation for the whole call");
  // The public presenter checks what it is handed (no memory keyed by the arguments object).
  equal(h.ctx.tools.get("look")!.presentCall!(call.arguments)?.title, "a");
  equal(counter.calls, 2);
  equal(call.outcome?.isError, false);
});

Deno.test("prepare() carries violations and is not concurrency-safe on invalid arguments", async () => {
  await using h = await harness();
  const { schema } = countingSchema();
  h.ctx.tools.register(defineTool({
    name: "look",
    description: "Looks.",
    parameters: schema,
    jsonSchema: { type: "object" },
    isConcurrencySafe: () => true,
    execute: () => [],
  }));
  const call = h.ctx.tools.prepare({ callId: "c1", name: "look", arguments: { path: 1 } });
  equal(call.validation.ok, false);
  equal(call.concurrencySafe, false);
  equal((await h.ctx.tools.execute(call)).error?.code, "INVALID_ARGS");
});

Deno.test("execute() runs a prepared call once", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("t", () => [{ type: "text", text: "ok" }]));
  const call = h.ctx.tools.prepare({ callId: "c1", name: "t", arguments: {} });
  equal(text(await h.ctx.tools.execute(call)), "ok");
  equal(
    text(await h.ctx.tools.execute(call)),
    'Error: tool call "c1" was already executed',
  );
});

Deno.test("a sub-call's rootCallId is its outermost call's id", async () => {
  await using h = await harness();
  const roots: string[] = [];
  h.ctx.tools.use("route", (call, next) => {
    roots.push(`${call.callId}→${call.rootCallId}`);
    return next();
  });
  h.ctx.tools.register(rawTool("leaf", () => [{ type: "text", text: "leaf" }]));
  h.ctx.tools.register(rawTool("outer", async (_args, exec: ToolExecution) => {
    const inner = await h.ctx.tools.execute({
      callId: `${exec.callId}:code:1`,
      name: "leaf",
      arguments: {},
      parent: exec.token,
    });
    return inner.content as ExecuteReturn;
  }));
  equal(text(await h.ctx.tools.execute({ callId: "c1", name: "outer", arguments: {} })), "leaf");
  deepEqual(roots, ["c1→c1", "c1:code:1→c1"]);
});

Deno.test("use(): route middleware short-circuits before policy and post-execute", async () => {
  await using h = await harness();
  const seen: string[] = [];
  h.ctx.on("tools/pre-execute", () => void seen.push("pre"));
  h.ctx.on("tools/post-execute", () => void seen.push("post"));
  h.ctx.on("tools/result", () => void seen.push("result"));
  h.ctx.tools.register(rawTool("t"));
  const deny: ToolMiddleware = () => errorOutcome("routed away", { code: "UNKNOWN_TOOL" });
  const remove = h.ctx.tools.use("route", deny);
  equal(
    text(await h.ctx.tools.execute({ callId: "1", name: "t", arguments: {} })),
    "Error: routed away",
  );
  deepEqual(seen, ["result"]);
  remove();
  seen.length = 0;
  equal((await h.ctx.tools.execute({ callId: "2", name: "t", arguments: {} })).isError, false);
  deepEqual(seen, ["pre", "post", "result"]);
});

Deno.test("use(): body middleware runs inside the wrappers and see a success before ABORTED", async () => {
  await using h = await harness();
  const order: string[] = [];
  const controller = new AbortController();
  h.ctx.tools.register(rawTool("t", () => {
    order.push("body");
    controller.abort();
    return [{ type: "text", text: "done" }];
  }));
  h.ctx.on("tools/execute", async (_exec: unknown, next: Next) => {
    order.push("around in");
    const outcome = await next();
    order.push(`around out ${outcome.error?.code ?? "ok"}`);
    return outcome;
  });
  h.ctx.tools.use("body", async (call: ToolCall, next: Next): Promise<ToolOutcome> => {
    order.push("layer in");
    const outcome = await next();
    order.push(`layer out ${outcome.isError ? "error" : "success"}`);
    call.defer([{ type: "text", text: "noted" }]);
    return outcome;
  });
  const outcome = await h.ctx.tools.execute({
    callId: "1",
    name: "t",
    arguments: {},
    signal: controller.signal,
  });
  equal(outcome.error?.code, "ABORTED");
  deepEqual(outcome.additionalContexts, [[{ type: "text", text: "noted" }]]);
  deepEqual(order, ["around in", "layer in", "body", "layer out success", "around out ABORTED"]);
});

Deno.test("define(): rewrites definitions registered while it is installed, in order", async () => {
  await using h = await harness();
  h.ctx.tools.register(rawTool("before"));
  const fiber = h.ctx.plugin({
    name: "tagger",
    apply(ctx: typeof h.ctx) {
      ctx.tools.define((definition) => ({
        ...definition,
        description: `${definition.description} (x)`,
      }));
    },
  });
  const removeY = h.ctx.tools.define((definition) => ({
    ...definition,
    description: `${definition.description} (y)`,
  }));
  h.ctx.tools.register(rawTool("after"));
  equal(h.ctx.tools.get("before")!.description, "The before tool");
  equal(h.ctx.tools.get("after")!.description, "The after tool (x) (y)");
  // Disposing the installing fiber (or calling the remover) stops rewriting new registrations only.
  await fiber.dispose();
  h.ctx.tools.register(rawTool("later"));
  equal(h.ctx.tools.get("later")!.description, "The later tool (y)");
  equal(h.ctx.tools.get("after")!.description, "The after tool (x) (y)");
  removeY();
  h.ctx.tools.register(rawTool("last"));
  equal(h.ctx.tools.get("last")!.description, "The last tool");
  // What a hook returns is checked like any registration; a throwing hook registers nothing.
  const removeBad = h.ctx.tools.define((definition) => ({ ...definition, name: "bad name" }));
  throws(() => h.ctx.tools.register(rawTool("t")), {
    name: "TypeError",
    message:
      'Cannot register a tool: name is "bad name", expected a string matching /^[a-zA-Z0-9_-]{1,64}$/',
  });
  removeBad();
  h.ctx.tools.define(() => {
    throw new Error("no rewrite");
  });
  throws(() => h.ctx.tools.register(rawTool("t")), { message: "no rewrite" });
  equal(h.ctx.tools.get("t"), undefined);
  throws(() => h.ctx.tools.define("x" as never), {
    name: "TypeError",
    message: 'Cannot add a definition hook: expected a function, received "x"',
  });
});
