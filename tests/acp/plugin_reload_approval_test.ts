/**
 * Hot reload never loads code that a tool wrote: a real agent (the launcher, a scripted model)
 * whose `write` tool rewrites a dsh.jsonc plugin. The new code must not run — its marker file
 * stays absent — until the user answers the reload prompt with "Reload plugin".
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import {
  client,
  type RequestPermissionRequest,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { trustFolder } from "./_trust_fixture.ts";
import { spawnAgentProcess } from "../../acp/_agent_process.ts";
import { tempDir } from "../_helpers.ts";
import { plainEnv } from "./_snapshot.ts";

function markerPlugin(marker: string, version: string): string {
  const write = version === "v1"
    ? ""
    : `Deno.writeTextFileSync(${JSON.stringify(marker)}, ${JSON.stringify(version)});`;
  return `import { tag } from "./helper.ts";\nexport const name = "marker";\n` +
    `export function apply() {\n  void tag;\n  ${write}\n}\n`;
}

async function until<T>(what: string, probe: () => T | undefined): Promise<T> {
  // A failure guard only: the condition normally holds within a second.
  for (let i = 0; i < 2400; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("a plugin file rewritten by a tool call loads only after the user approves the reload", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  await Deno.mkdir(join(ws, "tools"), { recursive: true });
  const plugin = join(ws, "tools", "marker.ts");
  const marker = join(ws, "marker.txt");
  await Deno.writeTextFile(plugin, markerPlugin(marker, "v1"));
  const helper = join(ws, "tools", "helper.ts");
  await Deno.writeTextFile(helper, 'export const tag = "v1";\n');
  await Deno.writeTextFile(
    join(ws, "dsh.jsonc"),
    JSON.stringify({ plugins: ["./tools/marker.ts"] }),
  );
  const rewrite = (id: string, version: string) => [
    { toolCalls: [{ id: `${id}_read`, name: "read", args: { file_path: "tools/marker.ts" } }] },
    {
      toolCalls: [{
        id: `${id}_write`,
        name: "write",
        args: { file_path: "tools/marker.ts", content: markerPlugin(marker, version) },
      }],
    },
    { text: `Rewrote the plugin (${version}).` },
  ];
  const script = join(dir.path, "script.json");
  await Deno.writeTextFile(
    script,
    JSON.stringify([
      ...rewrite("a", "v2"),
      { text: "Answer 2." },
      ...rewrite("b", "v3"),
      { text: "Answer 4." },
      { text: "Answer 5." },
    ]),
  );
  const updates: SessionUpdate[] = [];
  // Every message must arrive inside a turn, where every client shows it.
  let inTurn = false;
  const outside: SessionUpdate[] = [];
  // The reload prompts, each answered when the test says (whichever turn it arrives in).
  const reloads: { params: RequestPermissionRequest; answer: (optionId: string) => void }[] = [];
  const app = client({ name: "reload-approval" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update);
      if (!inTurn && params.update.sessionUpdate === "agent_message_chunk") {
        outside.push(params.update);
      }
    })
    .onRequest("session/request_permission", ({ params }) => {
      if (!params.options.some((o) => o.optionId === "reload")) {
        // A write to a protected path may ask: the user allows the tool call itself.
        return { outcome: { outcome: "selected", optionId: "allow_once" } };
      }
      const answered = Promise.withResolvers<string>();
      reloads.push({ params, answer: answered.resolve });
      return answered.promise.then((optionId) => ({
        outcome: { outcome: "selected" as const, optionId },
      }));
    });
  // The plugin needs the user's trust (HOME is the temp folder).
  await trustFolder(ws, dir.path);
  const agent = spawnAgentProcess(app, {
    main: new URL("../../acp/launch.ts", import.meta.url),
    permissions: ["--allow-read", "--allow-env", "--allow-run=deno"],
    args: ["--sessions-dir", join(dir.path, "sessions"), "--script", script],
    cwd: ws,
    clearEnv: true,
    env: plainEnv(dir.path),
  });
  const texts = () =>
    updates.flatMap((u) =>
      u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []
    ).join("");
  const held = () =>
    (agent.stderr().match(/the change is held until the user approves/g) ?? []).length;
  try {
    const a = agent.connection.agent;
    await a.request("initialize", { protocolVersion: 1 });
    const { sessionId } = await a.request("session/new", { cwd: ws, mcpServers: [] });
    const prompt = async (text: string) => {
      inTurn = true;
      const { stopReason } = await a.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text }],
      });
      inTurn = false;
      equal(stopReason, "end_turn");
    };

    // The tool rewrites the plugin; the watcher holds the change instead of loading it.
    await prompt("rewrite the plugin");
    match(await Deno.readTextFile(plugin), /"v2"/);
    await until("the held change", () => held() >= 1 ? true : undefined);
    equal(exists(marker), false, "the tool-written plugin ran without approval");

    // The next turn asks first (if the running one did not); "Keep the loaded version" leaves
    // v2 unloaded.
    const second = prompt("hello");
    const first = await until("the reload prompt", () => reloads[0]);
    equal(exists(marker), false, "the plugin ran while its reload was being asked about");
    first.answer("keep");
    await second;
    const ask = first.params;
    equal(ask.toolCall.title, 'Reload plugin "./tools/marker.ts" from disk?');
    deepEqual(ask.options.map((o) => o.kind), ["allow_once", "reject_once"]);
    const content = JSON.stringify(ask.toolCall.content);
    match(content, /dsh asks because: plugin \\"\.\/tools\/marker\.ts\\" changed on disk/);
    match(content, /tools\/marker\.ts \(\+\d+ −\d+ lines\)/);
    const diff = ask.toolCall.content?.find((c) => c.type === "diff");
    equal(diff?.type === "diff" ? diff.path : "", plugin);
    match(diff?.type === "diff" ? diff.newText : "", /"v2"/);
    await until(
      "the kept notice",
      () => /Kept the loaded version/.test(texts()) ? true : undefined,
    );
    equal(exists(marker), false, "a rejected reload ran the plugin");

    // Another tool rewrite, approved this time: it loads, in the turn that asked.
    await prompt("rewrite it again");
    await until("the second held change", () => held() >= 2 ? true : undefined);
    const fourth = prompt("hello again");
    const again = await until("the second reload prompt", () => reloads[1]);
    equal(exists(marker), false, "the plugin ran before its reload was approved");
    again.answer("reload");
    await fourth;
    equal(reloads.length, 2);
    equal(await Deno.readTextFile(marker), "v3");
    match(texts(), /Reloaded plugin "\.\/tools\/marker\.ts" \(version 2\)\./);
    ok(texts().indexOf("Reloaded plugin") < texts().indexOf("Answer 4."));

    // A change said between turns (an imported module changed) waits for the next turn.
    await Deno.writeTextFile(helper, 'export const tag = "v2";\n');
    await until("the import notice", () => /imported by plugin/.test(agent.stderr()) || undefined);
    equal(/imported by plugin/.test(texts()), false);
    await prompt("and again");
    match(
      texts(),
      /"[^"]*helper\.ts", imported by plugin "\.\/tools\/marker\.ts", changed on disk/,
    );
    equal(reloads.length, 2);
    deepEqual(outside, []);
  } finally {
    await agent.close();
  }
});
