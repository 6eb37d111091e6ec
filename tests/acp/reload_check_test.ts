import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { loadConfigPlugins } from "../../acp/_plugins.ts";
import { resolvePlugins } from "../../acp/plugin_permissions.ts";
import { createHarness } from "../../registry/mod.ts";
import { tempDir } from "../_helpers.ts";

function source(version: string, extra = ""): string {
  return `${extra}
export const name = "greeter";
export const inject = ["tools"];
export function apply(ctx: { get(name: string): { register(tool: unknown): void } }) {
  ctx.get("tools").register({
    name: "greet",
    description: "Greets (${version})",
    parameters: { type: "object" },
    execute: () => Promise.resolve([{ type: "text", text: "hello from ${version}" }]),
  });
}
`;
}

async function until<T>(what: string, probe: () => T | undefined): Promise<T> {
  for (let i = 0; i < 2400; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

Deno.test("a saved plugin loads while deno check runs; a type error then puts the previous version back", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "greeter.ts");
  await Deno.writeTextFile(file, source("v1"));
  const ctx = await createHarness({ logSink: () => {} });
  const notices: string[] = [];
  const seen: string[] = [];
  // Every registration of the tool, in order: which versions were live at some point.
  ctx.on("tools/changed", () => {
    const description = ctx.tools.get("greet")?.description;
    if (description !== undefined && seen.at(-1) !== description) seen.push(description);
  });
  try {
    await using plugins = loadConfigPlugins(ctx, {
      plugins: resolvePlugins(["./greeter.ts"], dir.path),
      notify: (text) => notices.push(text),
      debounceMs: 20,
    });
    await plugins.ready;
    equal(ctx.tools.get("greet")?.description, "Greets (v1)");
    await Deno.writeTextFile(file, source("v2", 'const n: number = "not a number";\nvoid n;'));
    const failure = await until("the check's failure", () => notices.find((n) => /TS2322/.test(n)));
    match(failure, /Cannot reload plugin "\.\/greeter\.ts", keeping the previous version/);
    match(failure, /deno check failed/);
    // The new version ran before the check answered, and the old one is back now.
    const loaded = notices.findIndex((n) => n.startsWith("Reloaded"));
    ok(loaded >= 0 && loaded < notices.indexOf(failure), JSON.stringify(notices));
    ok(seen.includes("Greets (v2)"), JSON.stringify(seen));
    equal(ctx.tools.get("greet")?.description, "Greets (v1)");
    const result = await ctx.tools.execute({ callId: "c", name: "greet", arguments: {} });
    equal(JSON.stringify(result.content), '[{"type":"text","text":"hello from v1"}]');
  } finally {
    await ctx.fiber.dispose();
  }
});
