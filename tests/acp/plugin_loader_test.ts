import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import { loadConfigPlugins, type PluginChange } from "../../acp/_plugins.ts";
import { ProtectedPaths } from "../../builtins/protected_paths.ts";
import { resolvePlugins } from "../../acp/plugin_permissions.ts";
import { createHarness } from "../../mod.ts";
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

/** Saves as editors do (a temp file renamed over the old one): one change, never a torn file. */
async function save(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(`${path}.tmp`, text);
  await Deno.rename(`${path}.tmp`, path);
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

Deno.test("loadConfigPlugins() counts only successful loads and says a missing apply() once", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "greeter.js");
  await Deno.writeTextFile(file, source("v1"));
  const ctx = await createHarness({ logSink: () => {} });
  const notices: string[] = [];
  const next = async (from: number) =>
    await until("a notice", () => notices.slice(from).find((n) => n !== ""));
  try {
    await using plugins = loadConfigPlugins(ctx, {
      plugins: resolvePlugins(["./greeter.js"], dir.path),
      notify: (text) => notices.push(text),
      debounceMs: 20,
    });
    await plugins.ready;
    let seen = notices.length;
    await Deno.writeTextFile(file, "export const name = 'x';");
    equal(
      await next(seen),
      'Cannot reload plugin "./greeter.js", keeping the previous version: the module has no apply() export (a plugin exports name, inject and apply)',
    );
    seen = notices.length;
    await Deno.writeTextFile(file, "export function apply( {");
    match(
      await next(seen),
      /^Cannot reload plugin "\.\/greeter\.js", keeping the previous version: /,
    );
    seen = notices.length;
    await Deno.writeTextFile(file, source("v2"));
    // Two failed reloads, then the second version.
    equal(await next(seen), 'Reloaded plugin "./greeter.js" (version 2).');
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("loadConfigPlugins() explains a bare npm import with the specifier that works", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "dates.js");
  await Deno.writeTextFile(
    file,
    'import { format } from "date-fns";\nexport function apply() { void format; }\n',
  );
  const ctx = await createHarness({ logSink: () => {} });
  const notices: string[] = [];
  try {
    await using plugins = loadConfigPlugins(ctx, {
      plugins: resolvePlugins(["./dates.js"], dir.path),
      notify: (text) => notices.push(text),
      watch: false,
    });
    await plugins.ready;
    equal(notices.length, 1);
    match(
      notices[0]!,
      /^Cannot load plugin "\.\/dates\.js": ".*dates\.js" imports "date-fns" by its bare name/,
    );
    match(notices[0]!, /Import it with a version instead: "npm:date-fns@<version>"/);
    equal(notices[0]!.includes("deno add") || notices[0]!.includes("\u001b"), false, notices[0]);
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("loadConfigPlugins() holds a change for review and protects the plugin and its local imports", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "greeter.ts");
  const helper = join(dir.path, "helper.ts");
  await Deno.writeTextFile(helper, 'export const who = "v1";\n');
  const withHelper = (version: string) =>
    `import { who } from "./helper.ts";\n${source(version).replace("Greets (", "Greets (${who} ")}`
      .replace('description: "Greets', "description: `Greets").replace(')",', ")`,");
  await save(file, withHelper("v1"));
  const ctx = await createHarness({ logSink: () => {} });
  const notices: string[] = [];
  const changes: PluginChange[] = [];
  const protectedPaths = new ProtectedPaths([dir.path]);
  try {
    await using plugins = loadConfigPlugins(ctx, {
      plugins: resolvePlugins(["./greeter.ts"], dir.path),
      notify: (text) => notices.push(text),
      review: (change) => changes.push(change),
      protectedPaths,
      debounceMs: 20,
      typeCheck: false,
    });
    await plugins.ready;
    equal(ctx.tools.get("greet")?.description, "Greets (v1 v1)");
    await until("the protected imports", () => protectedPaths.find(helper));
    match(protectedPaths.find(file)?.reason ?? "", /plugin "\.\/greeter\.ts"/);
    equal(protectedPaths.find(join(dir.path, "other.ts")), undefined);

    // A change is held, not loaded, until decided.
    await save(file, withHelper("v2"));
    const change = await until("the held change", () => changes[0]);
    equal(change.plugin, "./greeter.ts");
    equal(change.files[0]?.path, file);
    match(change.files[0]?.newText ?? "", /v2/);
    equal(ctx.tools.get("greet")?.description, "Greets (v1 v1)");
    await change.decide(false);
    equal(ctx.tools.get("greet")?.description, "Greets (v1 v1)");
    match(notices.at(-1) ?? "", /^Kept the loaded version of plugin "\.\/greeter\.ts"/);

    // Changed again after the prompt was shown: approving the old prompt loads nothing stale.
    await save(file, withHelper("v3"));
    const third = await until("the third change", () => changes[1]);
    await save(file, withHelper("v4"));
    const fourth = await until("the fourth change", () => changes[2]);
    await third.decide(true);
    equal(ctx.tools.get("greet")?.description, "Greets (v1 v1)");
    await fourth.decide(true);
    equal(ctx.tools.get("greet")?.description, "Greets (v1 v4)");

    // Rewritten between the approval and the load: the approved text is gone, so nothing loads
    // and the new text is asked about.
    await save(file, withHelper("v5"));
    const fifth = await until("the fifth change", () => changes[3]);
    await save(file, withHelper("v6"));
    await fifth.decide(true);
    equal(ctx.tools.get("greet")?.description, "Greets (v1 v4)");
    const sixth = await until("the sixth change", () => changes[4]);
    match(sixth.files[0]?.newText ?? "", /v6/);
    equal(changes.length, 5);
    await sixth.decide(false);

    // An imported module's change cannot hot-load: the user is told, nothing is asked.
    const asked = changes.length;
    await save(helper, 'export const who = "evil";\n');
    match(
      await until("the import notice", () => notices.find((n) => n.includes("helper.ts"))),
      /imported by plugin "\.\/greeter\.ts", changed on disk: the agent keeps the version it loaded/,
    );
    equal(changes.length, asked);
    equal(ctx.tools.get("greet")?.description, "Greets (v1 v4)");
  } finally {
    await ctx.fiber.dispose();
  }
});

function typedSource(version: string, extra = ""): string {
  return `export const name = "typed";
export const inject = ["tools"];
${extra}
export function apply(ctx: { get(name: string): { register(tool: unknown): void } }): void {
  ctx.get("tools").register({
    name: "typed",
    description: "Typed (${version})",
    parameters: { type: "object" },
    execute: () => Promise.resolve([{ type: "text", text: "${version}" }]),
  });
}
`;
}

Deno.test("loadConfigPlugins() loads an approved edit beside its type check and rolls a type error back", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "typed.ts");
  await Deno.writeTextFile(file, typedSource("v1"));
  const ctx = await createHarness({ logSink: () => {} });
  const notices: string[] = [];
  try {
    await using plugins = loadConfigPlugins(ctx, {
      plugins: resolvePlugins(["./typed.ts"], dir.path),
      notify: (text) => notices.push(text),
      review: (change) => void change.decide(true),
      debounceMs: 20,
    });
    await plugins.ready;
    equal(ctx.tools.get("typed")?.description, "Typed (v1)");

    // A type error: the edit loads (nothing waits for `deno check`), then the check's failure
    // puts v1 back and says why.
    await save(file, typedSource("v2", 'const n: number = "not a number";\nvoid n;'));
    await until("the reload", () => notices.find((n) => n.startsWith("Reloaded")));
    const failure = await until(
      "the check",
      () => notices.find((n) => /deno check failed/.test(n)),
    );
    match(failure, /keeping the previous version[\s\S]*TS2322/);
    await until(
      "the roll-back",
      () => ctx.tools.get("typed")?.description === "Typed (v1)" ? true : undefined,
    );

    // A good edit loads and keeps; the rolled-back load is not counted as a version.
    const seen = notices.length;
    await save(file, typedSource("v3"));
    const reloaded = await until(
      "the good reload",
      () => notices.slice(seen).find((n) => n.startsWith("Reloaded")),
    );
    match(reloaded, /\(version 2\)/);
    equal(ctx.tools.get("typed")?.description, "Typed (v3)");
  } finally {
    await ctx.fiber.dispose();
  }
});
