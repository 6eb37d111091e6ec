import { deepEqual, equal, rejects, throws } from "node:assert/strict";
import { BIND_SERVICE, Context, Fiber } from "../../core/context.ts";
import type { LogRecord } from "../../core/logger.ts";

function quietRoot(logs: LogRecord[] = []): Context {
  return new Context({ logSink: (record) => logs.push(record) });
}

Deno.test("plugin() applies at once and effects are undone in reverse order on dispose", async () => {
  const root = quietRoot();
  const order: string[] = [];
  const fiber = root.plugin({
    name: "p",
    apply(ctx) {
      ctx.effect(() => () => void order.push("first"));
      ctx.effect(() => () => void order.push("second"));
      ctx.effect(() => async () => {
        await Promise.resolve();
        order.push("third");
      });
    },
  });
  equal(fiber.state, "active");
  equal(fiber.name, "p");
  await fiber.dispose();
  deepEqual(order, ["third", "second", "first"]);
  equal(fiber.state, "disposed");
  await fiber.dispose();
  deepEqual(order, ["third", "second", "first"]);
  await root.fiber.dispose();
});

Deno.test("plugin() accepts functions and module-like objects and names fibers", async () => {
  const root = quietRoot();
  function named(_ctx: Context, config: { n: number }) {
    equal(config.n, 1);
  }
  equal(root.plugin(named, { n: 1 }).name, "named");
  equal(root.plugin({ apply() {} }).name, "anonymous");
  throws(() => root.plugin({} as never), TypeError);
  throws(() => root.plugin({ inject: "tools", apply() {} } as never), TypeError);
  throws(() => new Fiber(), {
    name: "TypeError",
    message: "Cannot construct a Fiber directly: use ctx.plugin()",
  });
  await root.fiber.dispose();
});

Deno.test("effect() returns an early disposer that runs once", async () => {
  const root = quietRoot();
  let undone = 0;
  const dispose = root.effect(() => () => void undone++);
  await dispose();
  await dispose();
  await root.fiber.dispose();
  equal(undone, 1);
});

Deno.test("a throwing apply fails only its fiber, with a clear log line", async () => {
  const logs: LogRecord[] = [];
  const root = quietRoot(logs);
  const seen: string[] = [];
  root.on("ping", () => seen.push("root"));
  const bad = root.plugin({
    name: "bad",
    apply(ctx) {
      ctx.on("ping", () => seen.push("bad"));
      throw new Error("config missing");
    },
  });
  const badAsync = root.plugin({
    name: "bad-async",
    async apply() {
      await Promise.resolve();
      throw new Error("later");
    },
  });
  const good = root.plugin({
    name: "good",
    apply: (ctx) => void ctx.on("ping", () => seen.push("good")),
  });
  await rejects(badAsync.ready, { message: "later" });
  await rejects(bad.ready, { message: "config missing" });
  equal(bad.state, "failed");
  equal((bad.error as Error).message, "config missing");
  equal(badAsync.state, "failed");
  equal(good.state, "active");
  root.emit("ping");
  deepEqual(seen, ["root", "good"]);
  deepEqual(
    logs.filter((r) => r.level === "error").map((r) => `${r.name}: ${r.message}`),
    [
      'bad: plugin "bad" failed to apply: config missing',
      'bad-async: plugin "bad-async" failed to apply: later',
    ],
  );
  await root.fiber.dispose();
});

Deno.test("inject waits for services, restarts on replacement and stops on withdrawal", async () => {
  const root = quietRoot();
  const log: string[] = [];
  const fiber = root.plugin({
    name: "consumer",
    inject: ["store"],
    apply(ctx) {
      const store = ctx.get<{ id: string }>("store")!;
      log.push(`apply ${store.id}`);
      ctx.effect(() => () => void log.push(`undo ${store.id}`));
    },
  });
  equal(fiber.state, "pending");
  const provider = root.plugin({
    name: "provider",
    apply: (ctx) => void ctx.provide("store", { id: "a" }),
  });
  equal(fiber.state, "active");
  const replace = root.provide("store", { id: "b" });
  await fiber.ready;
  deepEqual(log, ["apply a", "undo a", "apply b"]);
  replace();
  await fiber.ready;
  equal(fiber.state, "pending");
  deepEqual(log, ["apply a", "undo a", "apply b", "undo b"]);
  await provider.dispose();
  root.provide("store", { id: "c" });
  await fiber.ready;
  deepEqual(log.at(-1), "apply c");
  await root.fiber.dispose();
  deepEqual(log.at(-1), "undo c");
});

Deno.test("provide() serves by name; tools, jobs and approval are declared getters, nothing is patched", async () => {
  const root = quietRoot();
  const members = Object.getOwnPropertyNames(Context.prototype);
  const service = { n: 1 };
  root.provide("things", service);
  const child = root.plugin({ name: "c", apply() {} });
  equal(child.ctx.get("things"), service);
  equal(root.get("things"), service);
  equal(root.get("missing"), undefined);
  equal("things" in child.ctx, false, "an undeclared service is no property");
  for (const slot of ["tools", "jobs", "approval"]) {
    const descriptor = Object.getOwnPropertyDescriptor(Context.prototype, slot);
    equal(typeof descriptor?.get, "function", `${slot} is a declared getter`);
    equal((child.ctx as unknown as Record<string, unknown>)[slot], undefined);
    const provided = { slot };
    root.provide(slot, provided);
    equal((child.ctx as unknown as Record<string, unknown>)[slot], provided);
  }
  const typed = child.ctx as Context<{ tools: { slot: string }; jobs?: { slot: string } }>;
  equal(typed.tools.slot, "tools");
  equal(typed.jobs?.slot, "jobs");
  deepEqual(Object.getOwnPropertyNames(Context.prototype), members, "the prototype is unchanged");
  equal(Object.getPrototypeOf(child.ctx), Context.prototype);
  equal(Object.getPrototypeOf(root), Context.prototype);
  for (const name of ["on", "emit", "then", "fiber", "toString", "not valid"]) {
    throws(() => root.provide(name, {}), TypeError, name);
  }
  await root.fiber.dispose();
});

Deno.test("two roots in one process share no services", async () => {
  const a = quietRoot();
  const b = quietRoot();
  a.provide("tools", { from: "a" });
  equal(b.get("tools"), undefined);
  equal(b.tools, undefined);
  deepEqual(a.tools, { from: "a" });
  await a.fiber.dispose();
  await b.fiber.dispose();
});

Deno.test("BIND_SERVICE hands each context its own view", async () => {
  const root = quietRoot();
  root.provide("who", { [BIND_SERVICE]: (ctx: Context) => ({ name: ctx.fiber.name }) });
  const fiber = root.plugin({ name: "plugin-a", apply() {} });
  equal(root.get<{ name: string }>("who")?.name, "root");
  equal(fiber.ctx.get<{ name: string }>("who")?.name, "plugin-a");
  equal(fiber.ctx.get("who"), fiber.ctx.get("who"));
  await root.fiber.dispose();
});

Deno.test("child plugins are disposed with their parent and a disposed context rejects new effects", async () => {
  const root = quietRoot();
  let inner: Fiber | undefined;
  const outer = root.plugin({
    name: "outer",
    apply(ctx) {
      inner = ctx.plugin({ name: "inner", apply() {} });
    },
  });
  await outer.dispose();
  equal(inner?.state, "disposed");
  throws(() => outer.ctx.on("x", () => {}), {
    message:
      'Cannot add a listener in plugin "outer": its fiber is disposed and this context is no longer active',
  });
  await root.fiber.dispose();
});

Deno.test("emit() isolates and logs listener failures; listeners go away with their fiber", async () => {
  const logs: LogRecord[] = [];
  const root = quietRoot(logs);
  const seen: number[] = [];
  const fiber = root.plugin({
    name: "noisy",
    apply(ctx) {
      ctx.on("n", () => {
        throw new Error("sync");
      });
      ctx.on("n", () => Promise.reject(new Error("async")));
    },
  });
  root.on("n", (n: number) => seen.push(n));
  root.emit("n", 1);
  await Promise.resolve();
  deepEqual(seen, [1]);
  deepEqual(logs.map((r) => `${r.name}: ${r.message}`), [
    'noisy: listener for "n" threw: sync',
    'noisy: listener for "n" threw: async',
  ]);
  equal(root.listenerCount("n"), 3);
  await fiber.dispose();
  equal(root.listenerCount("n"), 1);
  await root.fiber.dispose();
});

Deno.test("bail() returns the first defined result and waterfall() threads the value", async () => {
  const root = quietRoot();
  equal(await root.bail("b"), undefined);
  root.on("b", () => undefined);
  root.on("b", (x: number) => x * 2);
  root.on("b", () => "never");
  equal(await root.bail("b", 21), 42);
  root.on("w", (v: number, add: number) => v + add);
  root.on("w", () => undefined);
  root.on("w", (v: number) => Promise.resolve(v * 10));
  equal(await root.waterfall("w", 1, 2), 30);
  root.on("throws", () => {
    throw new Error("propagates");
  });
  await rejects(root.waterfall("throws", 0), { message: "propagates" });
  await root.fiber.dispose();
});

Deno.test("around() composes onion-style, recomposes on change and rejects a second next()", async () => {
  const root = quietRoot();
  const order: string[] = [];
  const body = (n: number) => {
    order.push("body");
    return Promise.resolve(n);
  };
  equal(await root.around("a", 1, body), 1);
  const off = root.on("a", async (n: number, next: () => Promise<number>) => {
    order.push("outer in");
    const r = await next();
    order.push("outer out");
    return r + n;
  });
  root.on("a", async (_n: number, next: () => Promise<number>) => {
    order.push("inner in");
    const r = await next();
    order.push("inner out");
    return r * 10;
  });
  order.length = 0;
  equal(await root.around("a", 2, body), 22);
  deepEqual(order, ["outer in", "inner in", "body", "inner out", "outer out"]);
  off();
  equal(await root.around("a", 3, body), 30);
  root.on("twice", async (_n: number, next: () => Promise<number>) => {
    await next();
    return next();
  });
  await rejects(root.around("twice", 1, body), { message: "next() called multiple times" });
  await root.fiber.dispose();
});

Deno.test("dispose() does not wait for an apply that never settles", async () => {
  const logs: LogRecord[] = [];
  const root = quietRoot(logs);
  const never = Promise.withResolvers<void>();
  let undone = false;
  const fiber = root.plugin({
    name: "hangs",
    async apply(ctx) {
      ctx.effect(() => () => {
        undone = true;
      });
      await never.promise;
      ctx.on("late", () => {});
    },
  });
  equal(fiber.state, "pending");
  await fiber.dispose();
  equal(fiber.state, "disposed");
  equal(undone, true);
  never.resolve();
  await fiber.ready;
  equal(root.listenerCount("late"), 0);
  equal(logs.filter((r) => r.level === "error").length, 0);
  await root.fiber.dispose();
});

Deno.test("Fiber.ready rejects when a plugin it loaded fails to apply, and resolves once disposed", async () => {
  const root = quietRoot();
  const parent = root.plugin({
    name: "parent",
    apply(ctx) {
      ctx.plugin({
        name: "child",
        async apply() {
          await Promise.resolve();
          throw new Error("child broke");
        },
      });
    },
  });
  equal(parent.state, "active");
  await rejects(parent.ready, { message: "child broke" });
  await rejects(root.fiber.ready, { message: "child broke" });
  const waiting = root.plugin({ name: "waiting", inject: ["absent"], apply() {} });
  await waiting.ready;
  equal(waiting.state, "pending");
  await parent.dispose();
  await root.fiber.ready;
  await root.fiber.dispose();
});

Deno.test("around(): an argument given to next() is ignored; a sync throw rejects; listenerVersion moves", async () => {
  const root = quietRoot();
  const version = root.listenerVersion;
  const off = root.on("w", (_arg: number, next: (x?: unknown) => Promise<number>) => next("junk"));
  const afterAdd = root.listenerVersion;
  equal(afterAdd !== version, true);
  equal(await root.around("w", 4, (n: number) => Promise.resolve(n * 2)), 8);
  off();
  equal(root.listenerVersion !== afterAdd, true);
  root.on("x", () => {
    throw new Error("sync");
  });
  await rejects(root.around("x", 1, () => Promise.resolve(1)), { message: "sync" });
  await root.fiber.dispose();
});
