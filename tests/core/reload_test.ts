import { deepEqual, equal, rejects } from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL as toFileUrl } from "node:url";
import { reloadPlugin } from "../../core/reload.ts";
import { createHarness } from "../../mod.ts";
import { tempDir } from "../_helpers.ts";

function pluginSource(version: string, tool: string): string {
  return `
export const name = "reloadable";
export const inject = ["tools"];
export function apply(ctx) {
  const tools = ctx.get("tools");
  tools.register({
    name: "greet",
    description: "Greets (${version})",
    parameters: { type: "object" },
    async execute() {
      await globalThis.__reloadGate;
      return [{ type: "text", text: "hello from ${version}" }];
    },
  });
  tools.register({
    name: "${tool}",
    description: "Only in ${version}",
    parameters: { type: "object" },
    execute: () => [],
  });
}
`;
}

Deno.test("reloadPlugin() swaps the tool set; a running call finishes on the old definition", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "plugin.js");
  const url = toFileUrl(file);
  const ctx = await createHarness({ logSink: () => {} });
  const gate = Promise.withResolvers<void>();
  const global = globalThis as { __reloadGate?: Promise<void> };
  global.__reloadGate = gate.promise;
  try {
    await Deno.writeTextFile(file, pluginSource("v1", "only_v1"));
    const v1 = await reloadPlugin(ctx, url, { version: 1 });
    equal(v1.state, "active");
    deepEqual(ctx.tools.list().map((d) => d.name), ["greet", "only_v1"]);
    const running = ctx.tools.execute({ callId: "old", name: "greet", arguments: {} });

    await Deno.writeTextFile(file, pluginSource("v2", "only_v2"));
    const v2 = await reloadPlugin(ctx, url, { version: 2, previous: v1 });
    equal(v1.state, "disposed");
    equal(v2.state, "active");
    deepEqual(ctx.tools.list().map((d) => d.name), ["greet", "only_v2"]);
    equal(ctx.tools.get("greet")?.description, "Greets (v2)");

    gate.resolve();
    deepEqual((await running).content, [{ type: "text", text: "hello from v1" }]);
    const fresh = await ctx.tools.execute({ callId: "new", name: "greet", arguments: {} });
    deepEqual(fresh.content, [{ type: "text", text: "hello from v2" }]);
  } finally {
    delete global.__reloadGate;
    await ctx.fiber.dispose();
  }
});

Deno.test("reloadPlugin() keeps the previous fiber when the new module has no apply()", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "plugin.js");
  const ctx = await createHarness({ logSink: () => {} });
  try {
    await Deno.writeTextFile(file, pluginSource("v1", "only_v1"));
    const v1 = await reloadPlugin(ctx, toFileUrl(file));
    await Deno.writeTextFile(file, "export const name = 'broken';");
    await rejects(reloadPlugin(ctx, toFileUrl(file), { previous: v1 }), {
      name: "TypeError",
      message: `Cannot reload plugin ${
        JSON.stringify(toFileUrl(file).href)
      }: the module has no apply() export`,
    });
    equal(v1.state, "active");
    equal(ctx.tools.get("only_v1")?.name, "only_v1");
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("reloadPlugin() accepts an absolute file path and rejects a relative one", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "plugin.js");
  const ctx = await createHarness({ logSink: () => {} });
  try {
    await Deno.writeTextFile(file, pluginSource("v1", "only_v1"));
    const v1 = await reloadPlugin(ctx, file);
    equal(v1.state, "active");
    equal(ctx.tools.get("only_v1")?.name, "only_v1");
    await rejects(reloadPlugin(ctx, "./plugin.js", { previous: v1 }), {
      name: "TypeError",
      message: 'Cannot reload plugin "./plugin.js": expected a URL or an absolute file path, ' +
        'such as new URL("./plugin.js", import.meta.url)',
    });
    equal(v1.state, "active");
  } finally {
    await ctx.fiber.dispose();
  }
});
