import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import { loadConfigPlugins } from "../../acp/_plugins.ts";
import { resolvePlugins } from "../../acp/plugin_permissions.ts";
import { createHarness } from "../../registry/mod.ts";
import { tempDir } from "../_helpers.ts";

function source(version: string, extra = ""): string {
  return `export const name = "greeter";
export const inject = ["tools"];
export function apply(ctx) {
  ${extra}
  ctx.get("tools").register({
    name: "greet",
    description: "Greets (${version})",
    parameters: { type: "object" },
    async execute() {
      await globalThis.__pluginGate;
      return [{ type: "text", text: "hello from ${version}" }];
    },
  });
}
`;
}

async function until<T>(what: string, probe: () => T | undefined): Promise<T> {
  for (let i = 0; i < 1200; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

Deno.test("loadConfigPlugins() reloads on save: a running call ends on the old version, a broken apply keeps it", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "greeter.js");
  await Deno.writeTextFile(file, source("v1"));
  const ctx = await createHarness({ logSink: () => {} });
  const notices: string[] = [];
  const global = globalThis as { __pluginGate?: Promise<void> };
  const gate = Promise.withResolvers<void>();
  try {
    await using plugins = loadConfigPlugins(ctx, {
      plugins: resolvePlugins(["./greeter.js"], dir.path),
      notify: (text) => notices.push(text),
      debounceMs: 20,
    });
    await plugins.ready;
    equal(ctx.tools.get("greet")?.description, "Greets (v1)");
    global.__pluginGate = gate.promise;
    const running = ctx.tools.execute({ callId: "old", name: "greet", arguments: {} });

    await Deno.writeTextFile(file, source("v2"));
    await until("the reload", () => notices.find((n) => n.startsWith("Reloaded")));
    equal(ctx.tools.get("greet")?.description, "Greets (v2)");
    gate.resolve();
    deepEqual((await running).content, [{ type: "text", text: "hello from v1" }]);
    const fresh = await ctx.tools.execute({ callId: "new", name: "greet", arguments: {} });
    deepEqual(fresh.content, [{ type: "text", text: "hello from v2" }]);

    const seen = notices.length;
    await Deno.writeTextFile(file, source("v3", 'throw new Error("no config");'));
    const text = await until("the failure", () => notices.slice(seen).find((n) => n !== ""));
    equal(
      text,
      'Cannot reload plugin "./greeter.js", keeping the previous version: no config',
    );
    equal(ctx.tools.get("greet")?.description, "Greets (v2)");

    const seen2 = notices.length;
    await Deno.writeTextFile(file, "export const name = 'x';");
    match(
      await until("the missing apply", () => notices.slice(seen2).find((n) => n !== "")),
      /keeping the previous version: .*has no apply\(\) export/,
    );
    equal(ctx.tools.get("greet")?.description, "Greets (v2)");
  } finally {
    delete global.__pluginGate;
    await ctx.fiber.dispose();
  }
});

Deno.test("loadConfigPlugins() reports a plugin that fails at start and loads it once fixed", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "greeter.js");
  await Deno.writeTextFile(file, "export const name = 'broken'; export function apply( {");
  const ctx = await createHarness({ logSink: () => {} });
  const notices: string[] = [];
  try {
    await using plugins = loadConfigPlugins(ctx, {
      plugins: resolvePlugins([file], "/unused"),
      notify: (text) => notices.push(text),
      debounceMs: 20,
    });
    await plugins.ready;
    match(notices[0] ?? "", new RegExp(`^Cannot load plugin "${file}": `));
    equal(ctx.tools.get("greet"), undefined);
    await Deno.writeTextFile(file, source("fixed"));
    await until("the reload", () => notices.find((n) => n.startsWith("Reloaded")));
    equal(ctx.tools.get("greet")?.description, "Greets (fixed)");
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("loadConfigPlugins() reports a missing plugin file and a missing folder, and loads the file once created", async () => {
  await using dir = await tempDir();
  const ctx = await createHarness({ logSink: () => {} });
  const notices: string[] = [];
  try {
    await using plugins = loadConfigPlugins(ctx, {
      plugins: resolvePlugins(["./later.js", "./nowhere/x.js"], dir.path),
      notify: (text) => notices.push(text),
      debounceMs: 20,
    });
    await plugins.ready;
    deepEqual(notices.toSorted(), [
      `Cannot load plugin "./later.js": the file ${
        JSON.stringify(join(dir.path, "later.js"))
      } does not exist`,
      `Cannot load plugin "./nowhere/x.js": the file ${
        JSON.stringify(join(dir.path, "nowhere", "x.js"))
      } does not exist`,
    ]);
    await Deno.writeTextFile(join(dir.path, "later.js"), source("later"));
    await until("the load", () => notices.find((n) => n.startsWith("Reloaded")));
    equal(ctx.tools.get("greet")?.description, "Greets (later)");
  } finally {
    await ctx.fiber.dispose();
  }
});
