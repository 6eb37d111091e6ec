/**
 * Every TypeScript example of README.md, SECURITY.md and examples/ runs as written, from a
 * separate consumer project (its own deno.json, `@dsh/harness` mapped to this checkout):
 *
 * - plugins are loaded by a host (`ctx.plugin(...).ready`, the fiber ends `active`);
 * - scripts and tests run with exactly the `deno run` / `deno test` command the text shows next
 *   to them (a following `sh` code block, or the module doc of an `examples/` file), so a
 *   changed flag or file name in the text fails here;
 * - fragments are only type-checked.
 *
 * Commands run under Deno's default compiler options; a second project with the strict ones
 * (`exactOptionalPropertyTypes`, `noUncheckedIndexedAccess`, …) type-checks every example and
 * every entry point. The one substitution: a command that talks to `api.deepseek.com:443` gets
 * the loopback DeepSeek server instead (its host:port in `--allow-net`, its URL in
 * `DEEPSEEK_BASE_URL`); every other flag is the text's.
 *
 * @module
 */
import { equal, ok } from "node:assert/strict";
import { basename, join } from "node:path";
import { type DocExample, markdownExamples, moduleExample } from "./_doc_blocks.ts";
import {
  assertRan,
  type Consumer,
  consumerProject,
  ENTRY_SPECIFIERS,
  HARNESS_ROOT,
  runShown,
} from "./_consumer.ts";
import { fakeDeepSeek } from "../agent/_deepseek_server.ts";

const DOCUMENTS = ["README.md", "SECURITY.md"];

async function docExamples(): Promise<DocExample[]> {
  const found: DocExample[] = [];
  for (const name of DOCUMENTS) {
    found.push(...markdownExamples(name, await Deno.readTextFile(join(HARNESS_ROOT, name))));
  }
  return found;
}

async function moduleExamples(): Promise<DocExample[]> {
  const found: DocExample[] = [];
  for await (const entry of Deno.readDir(join(HARNESS_ROOT, "examples"))) {
    if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
    const code = await Deno.readTextFile(join(HARNESS_ROOT, "examples", entry.name));
    found.push(moduleExample(`examples/${entry.name}`, code));
  }
  return found.sort((a, b) => a.file.localeCompare(b.file));
}

/** The code without its JSDoc comments (a README copy of an example file leaves them out). */
function withoutDocComments(code: string): string {
  return code.replace(/^[ \t]*\/\*\*[\s\S]*?\*\/\n/gm, "").trim();
}

/** The config a plugin example takes (from the usage its module doc shows). */
const PLUGIN_CONFIG: Readonly<Record<string, unknown>> = {
  "examples/permission_gate.ts": { rules: [{ tool: "bash", decision: "ask" }] },
};

/** A host that loads each plugin into a fresh harness and reports what it registered. */
function pluginHost(plugins: readonly DocExample[]): string {
  const imports = plugins.map((p, i) => `import * as p${i} from "./${p.file}";`).join("\n");
  const list = plugins.map((p, i) =>
    `[${JSON.stringify(`${p.where} ${p.file}`)}, p${i}, ${
      JSON.stringify(PLUGIN_CONFIG[p.file] ?? null)
    }]`
  ).join(",\n  ");
  return `import { createHarness } from "@dsh/harness";
import { type Plugin } from "@dsh/harness/core";
${imports}

const plugins: [string, unknown, unknown][] = [
  ${list},
];
for (const [where, plugin, config] of plugins) {
  const ctx = await createHarness();
  const fiber = ctx.plugin(plugin as Plugin, config ?? undefined);
  await fiber.ready;
  if (fiber.state !== "active") throw new Error(where + ": the plugin is " + fiber.state);
  console.log(where + ": " + JSON.stringify(ctx.tools.schemas().map((s) => s.name)));
  await ctx.fiber.dispose();
}
`;
}

/** What a script must print, by file (beyond exiting 0). */
const SCRIPT_OUTPUT: Readonly<Record<string, readonly string[]>> = {
  "examples/embed.ts": ["c3: all done", "stop reason: end_turn"],
  "examples/demo_acp.ts": ["turn ended: end_turn", "- editors show them as cards"],
};

/** Runs a script's commands and checks what it printed. */
async function runScript(consumer: Consumer, example: DocExample): Promise<void> {
  for (const command of example.commands) {
    if (example.file === "agent.ts") {
      await runAgentScript(consumer, command);
      continue;
    }
    const run = await runShown(consumer.dir, command);
    assertRan(run, `${example.where}: "${command.text}"`);
    for (const expected of SCRIPT_OUTPUT[example.file] ?? []) {
      ok(
        run.stdout.includes(expected),
        `${example.file} did not print "${expected}":\n${run.stdout}`,
      );
    }
  }
}

/** The README's agent.ts against the loopback DeepSeek server: it works, then it fails clearly. */
async function runAgentScript(
  consumer: Consumer,
  command: DocExample["commands"][number],
): Promise<void> {
  await using server = fakeDeepSeek([
    {
      reasoning: "look",
      toolCalls: [{
        name: "bash",
        arguments: JSON.stringify({ command: "ls", description: "ls" }),
      }],
    },
    { reasoning: "Two files.", text: "There are some files." },
  ]);
  const host = new URL(server.baseUrl).host;
  const local = {
    ...command,
    argv: command.argv.map((arg) => arg.replace("api.deepseek.com:443", host)),
  };
  ok(local.argv.some((arg) => arg.includes(host)), `"${command.text}" allows no DeepSeek host`);
  const env = { DEEPSEEK_BASE_URL: server.baseUrl };
  const run = await runShown(consumer.dir, local, env);
  assertRan(run, `agent.ts: "${command.text}"`);
  equal(
    run.stdout,
    'thinking: look\ntool: bash {"command":"ls","description":"ls"}\nthinking: Two files.\n' +
      "answer: There are some files.\n[end_turn]\n",
  );
  equal(server.requests.length, 2);
  // The tool ran (bash `ls` in the workspace): its output went back to the model.
  ok(JSON.stringify(server.requests[1]!.body.messages).includes("agent.ts"));
  // The session log folder was created.
  ok((await Deno.stat(join(consumer.dir, ".dsh/sessions"))).isDirectory);
  // No reply left: the turn fails, and the script prints why.
  const failed = await runShown(consumer.dir, local, env);
  ok(/\[error\] .*599/.test(failed.stdout), failed.stdout + failed.stderr);
}

async function runTest(consumer: Consumer, example: DocExample): Promise<void> {
  for (const command of example.commands) {
    const run = await runShown(consumer.dir, command);
    assertRan(run, `${example.where}: "${command.text}"`);
    ok(/\bok \| \d+ passed/.test(run.stdout), run.stdout);
  }
}

/** `deno check` of every example file and every entry point. */
async function checkAll(consumer: Consumer, files: readonly string[]): Promise<void> {
  await consumer.write(
    "entry_points.ts",
    ENTRY_SPECIFIERS.map((specifier) => `import ${JSON.stringify(specifier)};`).join("\n") + "\n",
  );
  const run = await runShown(consumer.dir, {
    text: "deno check",
    env: {},
    argv: ["deno", "check", "--doc", "entry_points.ts", ...files],
  });
  assertRan(run, `deno check in ${consumer.dir}`);
}

async function writeExamples(consumer: Consumer, examples: readonly DocExample[]): Promise<void> {
  for (const example of examples) await consumer.write(example.file, example.code);
  // The stored transcript examples/text_stats_test.ts compares with.
  const snapshots = join(HARNESS_ROOT, "examples", "__snapshots__");
  for await (const entry of Deno.readDir(snapshots)) {
    await consumer.write(
      `examples/__snapshots__/${entry.name}`,
      await Deno.readTextFile(join(snapshots, entry.name)),
    );
  }
}

Deno.test("every example in the docs and examples/ runs as written from a consumer project", async (t) => {
  const docs = await docExamples();
  const modules = await moduleExamples();
  const all = [...docs, ...modules];

  await t.step("each README copy of an examples/ file is that file", async () => {
    for (const example of docs) {
      const original = join(HARNESS_ROOT, "examples", basename(example.file));
      const text = await Deno.readTextFile(original).catch(() => undefined);
      if (text === undefined) continue;
      equal(
        withoutDocComments(example.code),
        withoutDocComments(text),
        `${example.where} differs from examples/${basename(example.file)}`,
      );
    }
  });

  await using consumer = await consumerProject({ strict: false });
  await writeExamples(consumer, all);

  await t.step("plugins load in a host", async () => {
    const plugins = all.filter((e) => e.kind === "plugin");
    await consumer.write("plugin_host.ts", pluginHost(plugins));
    const run = await runShown(consumer.dir, {
      text: "deno run plugin_host.ts",
      env: {},
      argv: ["deno", "run", "plugin_host.ts"],
    });
    assertRan(run, "the plugin host");
    equal(run.stdout.trim().split("\n").length, plugins.length, run.stdout);
  });

  for (const example of all.filter((e) => e.kind === "script" || e.kind === "test")) {
    await t.step(
      `${example.where}: ${example.commands.map((c) => c.text).join(" && ")}`,
      () => example.kind === "script" ? runScript(consumer, example) : runTest(consumer, example),
    );
  }

  const files = all.map((e) => e.file);
  await t.step(
    "everything type-checks under Deno's default compiler options",
    () => checkAll(consumer, files),
  );

  await t.step("everything type-checks under strict compiler options", async () => {
    await using strict = await consumerProject({ strict: true });
    await writeExamples(strict, all);
    await checkAll(strict, files);
  });
});
