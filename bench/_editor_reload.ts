/**
 * Private to bench/editor_bench.ts: save → reload. A plugin listed in the workspace's dsh.jsonc
 * is rewritten the way an editor saves it; the time is until the next call of its tool (by a
 * scripted model, through `session/prompt`) answers with the new version, the reload approved
 * at once (the client allows every prompt). Then an edit with a
 * type error: the time until the session is told (`deno check failed`).
 *
 * @module
 */
import {
  type BenchHome,
  fmt,
  type Frame,
  median,
  ok,
  startAgent,
  trustWorkspace,
  until,
} from "./_editor_client.ts";

type Row = (name: string, value: string, floor?: string, ratio?: string) => void;
type WritePlugin = (ws: string, version?: string, extra?: string) => Promise<string>;

function texts(frames: readonly Frame[]): string[] {
  return frames.flatMap((f) => {
    const update = (f.params as { update?: Record<string, unknown> } | undefined)?.update;
    return update === undefined ? [] : [JSON.stringify(update)];
  });
}

/** Measures save → the next call uses the new version, `rounds` times, and a type error. */
export async function reloadRow(
  home: BenchHome,
  writePlugin: WritePlugin,
  row: Row,
  rounds: number,
): Promise<void> {
  const ws = await Deno.makeTempDir({ prefix: "dsh_editor_reload_" });
  const plugin = await writePlugin(ws, "v0");
  await trustWorkspace(home, ws);
  const answer = [{ toolCalls: [{ id: "c1", name: "probe", args: {} }] }, { text: "ok" }];
  const script = `${ws}/script.json`;
  await Deno.writeTextFile(
    script,
    JSON.stringify(Array.from({ length: 5000 }, () => answer).flat()),
  );
  const agent = startAgent(ws, home, { args: ["--script", script] });
  try {
    ok(await agent.request("initialize", { protocolVersion: 1 }), "initialize");
    const { sessionId } = ok(
      await agent.request("session/new", { cwd: ws, mcpServers: [] }),
      "session/new",
    );
    const call = async (): Promise<string> => {
      const from = agent.notifications.length;
      ok(
        await agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "go" }],
        }),
        "session/prompt",
      );
      return texts(agent.notifications.slice(from)).join("\n");
    };
    if (!(await call()).includes("v0")) throw new Error("the plugin's tool did not answer v0");
    const times: number[] = [];
    for (let i = 1; i <= rounds; i++) {
      const source = (await Deno.readTextFile(plugin)).replace(/"v\d+"/, `"v${i}"`);
      const t0 = performance.now();
      await Deno.writeTextFile(`${plugin}.tmp`, source);
      await Deno.rename(`${plugin}.tmp`, plugin);
      for (;;) {
        if ((await call()).includes(`v${i}`)) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      times.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 300)); // let the watcher settle between saves
    }
    row("save → next call uses the new version", fmt(median(times)), "target 1 s");
    const from = agent.notifications.length;
    const t0 = performance.now();
    await writePlugin(ws, `v${rounds}`, 'const n: number = "not a number";\nvoid n;');
    // Notices reach the editor inside turns (the first one also approves the reload).
    const told = () =>
      texts(agent.notifications.slice(from)).find((t) => /deno check failed[\s\S]*TS2322/.test(t));
    for (let i = 0; i < 600 && told() === undefined; i++) {
      await call();
      await new Promise((r) => setTimeout(r, 25));
    }
    await until("the type error notice", told);
    row("save with a type error → the session is told", fmt(performance.now() - t0), "reported");
  } finally {
    await agent.close();
  }
}
