/**
 * The listing hooks of `ctx.tools.listing()`: what `schemas({ mode, scope })` shows a model, and
 * the schema cache per (scope, mode) they invalidate.
 */
import { deepEqual, equal, notEqual, throws } from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { reloadPlugin } from "../../core/reload.ts";
import type { ToolsContext } from "../../mod.ts";
import type { ListingHook } from "../../registry/mod.ts";
import { tempDir } from "../_helpers.ts";
import { harness, rawTool, type TestHarness } from "./_harness.ts";

const names = (list: readonly { name: string }[]) => list.map((t) => t.name);

/** The shared test harness with alpha, beta and gamma registered. */
async function withTools(): Promise<TestHarness> {
  const h = await harness();
  for (const name of ["alpha", "beta", "gamma"]) h.ctx.tools.register(rawTool(name));
  return h;
}

/** Counts `tools/changed` events on `ctx`. */
function changes(ctx: ToolsContext): { count: number } {
  const counter = { count: 0 };
  ctx.on("tools/changed", () => void counter.count++);
  return counter;
}

Deno.test("listing(): a hook decides schemas() per mode; get/list are unaffected; dispose restores", async () => {
  await using h = await withTools();
  const ctx = h.ctx;
  const changed = changes(ctx);
  const seen: string[] = [];
  const onlyA: ListingHook = (definition, mode) => {
    seen.push(`${definition.name}:${mode}`);
    return mode !== "short" || definition.name.startsWith("a");
  };
  const fiber = ctx.plugin({
    name: "short-listing",
    apply(plugin: ToolsContext) {
      plugin.tools.listing(onlyA);
    },
  });
  equal(changed.count, 1);
  deepEqual(names(ctx.tools.schemas({ mode: "short" })), ["alpha"]);
  deepEqual(names(ctx.tools.schemas()), ["alpha", "beta", "gamma"]);
  deepEqual(names(ctx.tools.list()), ["alpha", "beta", "gamma"]);
  equal(ctx.tools.get("beta")?.name, "beta");
  // The hook ran once per tool and mode: a second call is served from the cache.
  deepEqual(seen.sort(), [
    "alpha:native",
    "alpha:short",
    "beta:native",
    "beta:short",
    "gamma:native",
    "gamma:short",
  ]);
  const cached = ctx.tools.schemas({ mode: "short" });
  equal(ctx.tools.schemas({ mode: "short" }), cached);
  equal(seen.length, 6);
  await fiber.dispose();
  equal(changed.count, 2);
  deepEqual(names(ctx.tools.schemas({ mode: "short" })), ["alpha", "beta", "gamma"]);
  equal(seen.length, 6);
});

Deno.test("listing(): with two hooks a tool is listed only when both accept it", async () => {
  await using h = await withTools();
  const ctx = h.ctx;
  const noBeta = ctx.tools.listing((definition) => definition.name !== "beta");
  const noGamma = ctx.tools.listing((definition, mode) =>
    mode === "all" || definition.name !== "gamma"
  );
  deepEqual(names(ctx.tools.schemas()), ["alpha"]);
  deepEqual(names(ctx.tools.schemas({ mode: "all" })), ["alpha", "gamma"]);
  noBeta();
  deepEqual(names(ctx.tools.schemas()), ["alpha", "beta"]);
  deepEqual(names(ctx.tools.schemas({ mode: "all" })), ["alpha", "beta", "gamma"]);
  noGamma();
  deepEqual(names(ctx.tools.schemas()), ["alpha", "beta", "gamma"]);
});

Deno.test("listing(): the cache per (scope, mode) is dropped on registration, mask and hook changes", async () => {
  await using h = await withTools();
  const ctx = h.ctx;
  ctx.tools.listing((definition, mode) => mode !== "code" || definition.name === "alpha");
  const global = ctx.tools.schemas({ mode: "code" });
  const scoped = ctx.tools.schemas({ mode: "code", scope: "s1" });
  deepEqual(names(global), ["alpha"]);
  // A scope without its own tools or masks shares the global view.
  equal(scoped, global);
  ctx.tools.register(rawTool("alpha"), { scope: "s1" });
  const own = ctx.tools.schemas({ mode: "code", scope: "s1" });
  notEqual(own, global);
  deepEqual(names(own), ["alpha"]);
  const lift = ctx.tools.restrict({ deny: ["alpha"] });
  deepEqual(names(ctx.tools.schemas({ mode: "code" })), []);
  deepEqual(names(ctx.tools.schemas({ mode: "code", scope: "s1" })), ["alpha"]);
  lift();
  const before = ctx.tools.schemas({ mode: "code" });
  deepEqual(names(before), ["alpha"]);
  const remove = ctx.tools.listing(() => false);
  deepEqual(names(ctx.tools.schemas({ mode: "code" })), []);
  deepEqual(names(ctx.tools.schemas({ mode: "code", scope: "s1" })), []);
  remove();
  deepEqual(names(ctx.tools.schemas({ mode: "code" })), ["alpha"]);
  notEqual(ctx.tools.schemas({ mode: "code" }), before);
});

Deno.test("listing(): a hot reload swaps the hook of the old version for the new one's", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "listing_plugin.js");
  const source = (prefix: string) => `
export const name = "listing";
export const inject = ["tools"];
export function apply(ctx) {
  ctx.get("tools").listing((definition) => definition.name.startsWith("${prefix}"));
}
`;
  await using h = await withTools();
  const ctx = h.ctx;
  const changed = changes(ctx);
  await Deno.writeTextFile(file, source("a"));
  const v1 = await reloadPlugin(ctx, pathToFileURL(file), { version: 1 });
  deepEqual(names(ctx.tools.schemas()), ["alpha"]);
  await Deno.writeTextFile(file, source("g"));
  const v2 = await reloadPlugin(ctx, pathToFileURL(file), { version: 2, previous: v1 });
  equal(v1.state, "disposed");
  deepEqual(names(ctx.tools.schemas()), ["gamma"]);
  equal(changed.count, 3);
  await v2.dispose();
  deepEqual(names(ctx.tools.schemas()), ["alpha", "beta", "gamma"]);
});

Deno.test("listing(): a malformed hook or answer is a clear TypeError", async () => {
  await using h = await withTools();
  const ctx = h.ctx;
  throws(() => ctx.tools.listing(undefined as never), {
    name: "TypeError",
    message: "Cannot add a listing hook: expected a function, received undefined",
  });
  const remove = ctx.tools.listing(() => "yes" as never);
  throws(() => ctx.tools.schemas({ mode: "x" }), {
    name: "TypeError",
    message: 'A listing hook returned "yes" for tool "alpha" under mode "x", expected a boolean',
  });
  remove();
  ctx.tools.listing((_definition, mode) => {
    if (mode !== "native") throw new TypeError(`no mode ${mode}`);
    return true;
  });
  throws(() => ctx.tools.schemas({ mode: "fast" }), { message: "no mode fast" });
  // A throw caches nothing: the next call asks again.
  throws(() => ctx.tools.schemas({ mode: "fast" }), { message: "no mode fast" });
  deepEqual(names(ctx.tools.schemas()), ["alpha", "beta", "gamma"]);
});

Deno.test("execute() and prepare() carry the caller's opaque mode; a malformed one is refused", async () => {
  await using h = await withTools();
  const ctx = h.ctx;
  const modes: string[] = [];
  ctx.tools.use("route", (call, next) => (modes.push(call.mode), next()));
  await ctx.tools.execute({ callId: "1", name: "alpha", arguments: {} });
  await ctx.tools.execute({ callId: "2", name: "alpha", arguments: {}, mode: "short" });
  equal(ctx.tools.prepare({ callId: "3", name: "alpha", arguments: {}, mode: "x" }).mode, "x");
  deepEqual(modes, ["native", "short"]);
  const bad = await ctx.tools.execute({ callId: "4", name: "alpha", arguments: {}, mode: "" });
  equal(
    bad.error?.message,
    'tool execution request mode must be a non-empty string, received ""',
  );
  throws(
    () => ctx.tools.prepare({ callId: "5", name: "alpha", arguments: {}, mode: 3 as never }),
    {
      name: "TypeError",
      message: "tool execution request mode must be a non-empty string, received 3",
    },
  );
  deepEqual(modes, ["native", "short"]);
});
