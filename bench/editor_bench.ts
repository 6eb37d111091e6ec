/**
 * What a user waits on in the editor, through the real agent process (the launcher with the
 * `agent` task's flags, a raw JSON-RPC client on its stdio, temp HOME and XDG dirs) and the
 * public API, each row with its floor measured in the same run. Prints medians and ratios; not a
 * timed test. `deno task bench:editor` (`-- --quick` for fewer rounds, `-- --npx` to also time
 * Zed's zero-setup `npx` command, which needs the npm cache or network, `-- --only=reload,…` for
 * some rows: start, session/new, session/new with a plugin, reload, conversation, dispatch).
 *
 * Rows: spawn → `initialize` (dsh-agent, the old launch.ts entry, an installed `dsh-agent`
 * command, npx) vs an empty `deno run`; spawn → first `session/new`; `session/new` p50 with no
 * config and with one plugin; 100 concurrent `session/new` and the agent's RSS holding them;
 * save → reload of a plugin (and a type error reported); a conversation through `createAgent` +
 * MockAdapter with the durable signed log vs the AI SDK's `generateText` with its mock model;
 * per-call dispatch vs floor2 (bench/dispatch_bench.ts, run here as a subprocess).
 *
 * @module
 */
import {
  agentPid,
  type BenchHome,
  benchHome,
  DEFAULT_ENTRY,
  denoDir,
  fmt,
  median,
  ok,
  ROOT,
  rssMb,
  startAgent,
  trustWorkspace,
} from "./_editor_client.ts";
import { conversationRows } from "./_editor_conversation.ts";
import { reloadRow } from "./_editor_reload.ts";

const QUICK = Deno.args.includes("--quick");
const ROUNDS = QUICK ? 3 : 7;
const EMPTY = "data:application/javascript,";

function row(name: string, value: string, floor = "", ratio = ""): void {
  console.log(`| ${name.padEnd(52)} | ${value.padEnd(24)} | ${floor.padEnd(22)} | ${ratio} |`);
}

async function emptyRun(): Promise<number> {
  const t0 = performance.now();
  await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", EMPTY],
    stdout: "null",
    stderr: "null",
  }).output();
  return performance.now() - t0;
}

/** Spawn → `initialize` response, and → first `session/new` response (ms). */
async function startTimes(
  home: BenchHome,
  command?: { command: string; args: string[] },
  entry?: string,
): Promise<{ init: number; first: number }> {
  const ws = await Deno.makeTempDir({ prefix: "dsh_editor_ws_" });
  const t0 = performance.now();
  const agent = command === undefined
    ? startAgent(ws, home, entry ? { entry } : {})
    : (await import(
      "./_editor_client.ts"
    )).rawAgent(command.command, command.args, { cwd: ws, env: { ...home.env, INIT_CWD: ws } });
  ok(await agent.request("initialize", { protocolVersion: 1 }), "initialize");
  const init = performance.now() - t0;
  ok(await agent.request("session/new", { cwd: ws, mcpServers: [] }), "session/new");
  const first = performance.now() - t0;
  await agent.close();
  return { init, first };
}

async function startRows(home: BenchHome): Promise<void> {
  const floors: number[] = [];
  const fast: { init: number; first: number }[] = [];
  const old: { init: number; first: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    floors.push(await emptyRun());
    fast.push(await startTimes(home));
    old.push(await startTimes(home, undefined, "launch.ts"));
  }
  const floor = median(floors);
  const show = (name: string, ms: number) =>
    row(name, fmt(ms), `empty deno run ${fmt(floor)}`, `${(ms / floor).toFixed(2)}×`);
  show(`spawn → initialize (deno task agent: ${DEFAULT_ENTRY})`, median(fast.map((r) => r.init)));
  show("spawn → initialize (acp/launch.ts directly)", median(old.map((r) => r.init)));
  show(`spawn → first session/new (${DEFAULT_ENTRY})`, median(fast.map((r) => r.first)));
  const shim = await installShim(home);
  if (shim !== undefined) {
    const runs = [];
    for (let i = 0; i < ROUNDS; i++) runs.push(await startTimes(home, { command: shim, args: [] }));
    show("spawn → initialize (installed dsh-agent command)", median(runs.map((r) => r.init)));
  }
  if (Deno.args.includes("--npx")) await npxRow(home, floor, show);
}

/** `deno install` of the `dsh-agent` command into the temp HOME (see the README's Zed section). */
async function installShim(home: BenchHome): Promise<string | undefined> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "install",
      "--global",
      "--force",
      "--quiet",
      "--root",
      `${home.path}/.deno`,
      "--name",
      "dsh-agent",
      "--config",
      `${ROOT}/deno.json`,
      "--allow-read",
      "--allow-env",
      "--allow-run=deno,bash",
      `${ROOT}/acp/dsh_agent.ts`,
    ],
    env: home.env,
    clearEnv: true,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (out.success) return `${home.path}/.deno/bin/dsh-agent`;
  row("installed dsh-agent command", "not measured", new TextDecoder().decode(out.stderr));
  return undefined;
}

async function npxRow(
  home: BenchHome,
  floor: number,
  show: (name: string, ms: number) => void,
): Promise<void> {
  const npx = {
    command: "npx",
    args: ["--yes", "deno@2.9.6", "task", "--config", `${ROOT}/deno.json`, "agent"],
  };
  const env = { ...home.env, npm_config_cache: `${Deno.env.get("HOME")}/.npm` };
  try {
    const runs = [];
    for (let i = 0; i < ROUNDS; i++) {
      runs.push(await startTimes({ ...home, env }, npx));
    }
    show("spawn → initialize (Zed's npx command, warm)", median(runs.map((r) => r.init)));
  } catch (error) {
    row("spawn → initialize (npx)", "not measured", String(error).slice(0, 60), `${floor}`);
  }
}

async function sessionRows(home: BenchHome, plugin: boolean): Promise<void> {
  const ws = await Deno.makeTempDir({ prefix: "dsh_editor_ws_" });
  if (plugin) {
    await writePlugin(ws);
    await trustWorkspace(home, ws);
  }
  const agent = startAgent(ws, home);
  ok(await agent.request("initialize", { protocolVersion: 1 }), "initialize");
  ok(await agent.request("session/new", { cwd: ws, mcpServers: [] }), "first session/new");
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    ok(await agent.request("session/new", { cwd: ws, mcpServers: [] }), "session/new");
    times.push(performance.now() - t0);
  }
  const label = plugin ? "one plugin listed" : "no config";
  row(`session/new p50, 20 in a row (${label})`, fmt(median(times)), "target 30 / 60 ms");
  if (!plugin) {
    const pid = agentPid(agent.child.pid);
    const before = pid === undefined ? NaN : rssMb(pid);
    const t0 = performance.now();
    const all = await Promise.all(
      Array.from({ length: 100 }, () => agent.request("session/new", { cwd: ws, mcpServers: [] })),
    );
    const ms = performance.now() - t0;
    for (const frame of all) ok(frame, "concurrent session/new");
    row("100 concurrent session/new", fmt(ms), "target 2 s");
    const rss = pid === undefined ? NaN : rssMb(pid);
    row(
      "agent RSS holding 121 idle sessions",
      `${rss.toFixed(0)} MB`,
      `21 open: ${before.toFixed(0)} MB`,
    );
  }
  await agent.close();
}

/** A plugin listed in the workspace's dsh.jsonc (grant it with {@linkcode trustWorkspace}). */
export async function writePlugin(ws: string, version = "v1", extra = ""): Promise<string> {
  await Deno.mkdir(`${ws}/tools`, { recursive: true });
  const path = `${ws}/tools/probe.ts`;
  await Deno.writeTextFile(
    path,
    `import { defineTool } from "@dsh/harness";\nexport const name = "probe";\n` +
      `export const inject = ["tools"];\n${extra}\n` +
      `export function apply(ctx: { tools: { register(t: unknown): void } }) {\n` +
      `  ctx.tools.register(defineTool({ name: "probe", description: "Says its version.",\n` +
      `    parameters: {}, execute: () => Promise.resolve([{ type: "text", text: "${version}" }]) }));\n}\n`,
  );
  await Deno.writeTextFile(`${ws}/dsh.jsonc`, JSON.stringify({ plugins: ["./tools/probe.ts"] }));
  return path;
}

/** Per-call dispatch against floor2, from bench/dispatch_bench.ts: the median of 3 runs' ratios. */
async function dispatchRow(): Promise<void> {
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await dispatchRun());
  const pick = runs.sort((a, b) => a.dsh / a.floor - b.dsh / b.floor)[1]!;
  const ratio = `${(pick.dsh / pick.floor).toFixed(2)}× (runs: ${
    runs.map((r) => (r.dsh / r.floor).toFixed(2)).join(", ")
  })`;
  row(
    "per-call dispatch (ctx.tools.execute)",
    fmt(pick.dsh / 1e6),
    `floor2 ${fmt(pick.floor / 1e6)}`,
    ratio,
  );
}

async function dispatchRun(): Promise<{ dsh: number; floor: number }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "bench",
      "-A",
      "--json",
      "--filter",
      "/floor|dsh: ctx/",
      `${ROOT}/bench/dispatch_bench.ts`,
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  const report = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    benches: { name: string; results: { ok?: { avg: number } }[] }[];
  };
  const avg = (prefix: string) =>
    report.benches.find((b) => b.name.startsWith(prefix))?.results[0]?.ok?.avg ?? NaN;
  return { floor: avg("floor"), dsh: avg("dsh: ctx") };
}

if (import.meta.main) {
  const home = await benchHome(await denoDir());
  try {
    console.log(`| row | dsh (median) | floor | ratio |\n| --- | --- | --- | --- |`);
    const rows: [string, () => Promise<void>][] = [
      ["start", () => startRows(home)],
      ["session/new", () => sessionRows(home, false)],
      ["session/new with a plugin", () => sessionRows(home, true)],
      ["reload", () => reloadRow(home, writePlugin, row, ROUNDS)],
      ["conversation", () => conversationRows(row, QUICK ? 200 : 1000)],
      ["dispatch", dispatchRow],
    ];
    const only = Deno.args.find((a) => a.startsWith("--only="))?.slice(7).split(",");
    for (const [name, run] of rows) {
      if (only !== undefined && !only.includes(name)) continue;
      // One failing row (an older checkout, a missing tool) does not hide the others.
      await run().catch((error) => row(name, "failed", String(error).slice(0, 80)));
    }
  } finally {
    await Deno.remove(home.path, { recursive: true }).catch(() => {});
  }
}
