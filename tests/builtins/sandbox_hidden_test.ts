/**
 * The default hidden list for real (SECURITY.md, credentials): every entry of
 * DEFAULT_HIDDEN_PATHS, planted in a temporary home as a file or a folder, reads empty inside the
 * sandbox, as does dsh's own config and state wherever XDG_CONFIG_HOME and XDG_STATE_HOME put them.
 */
import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { createSandboxExecutor, DEFAULT_HIDDEN_PATHS } from "../../builtins/sandbox.ts";
import type { LocalExecutor } from "../../builtins/local_executor.ts";
import { tempDir } from "../_helpers.ts";

const decoder = new TextDecoder();

async function run(executor: LocalExecutor, command: string, cwd: string) {
  let out = "";
  await executor.run(command, { cwd, onOutput: (chunk) => void (out += decoder.decode(chunk)) });
  return out;
}

/** A folder outside /tmp (the sandbox has its own /tmp), removed on dispose. */
async function hostDir(prefix: string): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ dir: "/var/tmp", prefix });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}

Deno.test("attack: every default hidden path (editor, agent, cloud, registry, history, dsh) reads empty", async () => {
  await using ws = await tempDir();
  await using home = await hostDir("dsh_home_");
  const planted: string[] = [];
  // The home entries, planted in a home of our own (the system ones: sandbox_attack_test.ts).
  const homeEntries = DEFAULT_HIDDEN_PATHS.filter((entry) => entry.startsWith("~/"));
  ok(DEFAULT_HIDDEN_PATHS.every((entry) => entry.startsWith("~/") || entry.startsWith("/etc/")));
  for (const [i, entry] of homeEntries.entries()) {
    const path = join(home.path, entry.slice(2));
    await Deno.mkdir(join(path, ".."), { recursive: true });
    // Both shapes: half as files, half as folders holding the secret.
    if (i % 2 === 0) await Deno.writeTextFile(path, `PRIVATE-${i}\n`);
    else {
      await Deno.mkdir(path, { recursive: true });
      await Deno.writeTextFile(join(path, "secret"), `PRIVATE-${i}\n`);
    }
    planted.push(path);
  }
  await Deno.writeTextFile(join(home.path, ".config/notes.txt"), "visible\n");
  const executor = await createSandboxExecutor({ workspace: ws.path, home: home.path });
  const out = await run(
    executor,
    `cat ${home.path}/.config/notes.txt; grep -r PRIVATE ${home.path}; cat ${
      planted.join(" ")
    } 2>/dev/null | grep -c PRIVATE; echo done`,
    ws.path,
  );
  match(out, /^visible$/m);
  ok(!out.includes("PRIVATE-"), out);
  match(out, /^0$/m);
  match(out, /^done$/m);
  // The control: on the host every planted secret is there.
  for (const [i, path] of planted.entries()) {
    const file = i % 2 === 0 ? path : join(path, "secret");
    equal(await Deno.readTextFile(file), `PRIVATE-${i}\n`);
  }
});

Deno.test("attack: dsh's user config and state are hidden where XDG_CONFIG_HOME / XDG_STATE_HOME put them", async () => {
  await using ws = await tempDir();
  await using base = await hostDir("dsh_xdg_");
  const config = join(base.path, "cfg");
  const state = join(base.path, "state");
  await Deno.mkdir(join(config, "dsh"), { recursive: true });
  await Deno.mkdir(join(state, "dsh/sessions"), { recursive: true });
  await Deno.writeTextFile(join(config, "dsh/dsh.jsonc"), '{ "key": "PRIVATE-CONFIG" }');
  await Deno.writeTextFile(join(state, "dsh/sessions/s.jsonl"), "PRIVATE-LOG\n");
  await Deno.writeTextFile(join(config, "other.txt"), "visible\n");
  const executor = await createSandboxExecutor({
    workspace: ws.path,
    home: join(base.path, "home"),
    configHome: config,
    stateHome: state,
  });
  const out = await run(
    executor,
    `cat ${config}/other.txt; grep -r PRIVATE ${base.path}; ` +
      `echo x > ${state}/dsh/sessions/s.jsonl && echo wrote; echo done`,
    ws.path,
  );
  match(out, /^visible$/m);
  ok(!out.includes("PRIVATE"), out);
  ok(!out.includes("wrote"), out);
  equal(await Deno.readTextFile(join(state, "dsh/sessions/s.jsonl")), "PRIVATE-LOG\n");
  // Un-hiding the default entry un-hides the XDG location too (the user's choice).
  const shown = await createSandboxExecutor({
    workspace: ws.path,
    home: join(base.path, "home"),
    configHome: config,
    hiddenPaths: DEFAULT_HIDDEN_PATHS.filter((p) => p !== "~/.config/dsh"),
  });
  match(await run(shown, `cat ${config}/dsh/dsh.jsonc`, ws.path), /PRIVATE-CONFIG/);
});
