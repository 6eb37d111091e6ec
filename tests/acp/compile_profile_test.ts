/**
 * The compiled binary's profile (`deno task compile`) is the scoped read/write profile of
 * `deno task agent` for the folder it was compiled for, never bare `--allow-read`/`--allow-write`.
 * `deno compile` needs the denort download, so the same entry point runs under `deno run` with
 * exactly the flags the binary would bake in.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { client } from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { spawnAgentProcess } from "../../acp/_agent_process.ts";
import { compileArgs, compileFlags } from "../../acp/_compile.ts";
import { DEFAULT_CONFIG } from "../../acp/config.ts";
import { tempDir } from "../_helpers.ts";
import { plainEnv } from "./_snapshot.ts";

Deno.test("the compiled agent reads and writes only its workspace, sessions and tmp", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  const tmp = join(dir.path, "tmp");
  await Deno.mkdir(ws);
  await Deno.mkdir(tmp);
  const options = {
    baseUrl: "https://api.deepseek.com",
    output: join(dir.path, "dsh-agent"),
    config: DEFAULT_CONFIG,
    workspace: ws,
    tmpDir: tmp,
  };
  const flags = compileFlags(options);
  const args = compileArgs(options);
  deepEqual(args.filter((a) => a === "--allow-read" || a === "--allow-write" || a === "-A"), []);
  ok(args.includes(`--allow-write=${ws},${join(ws, ".dsh/sessions")},${tmp}`), args.join(" "));
  const script = join(tmp, "script.json");
  const outside = join(dir.path, "outside.txt");
  await Deno.writeTextFile(
    script,
    JSON.stringify([
      { toolCalls: [{ id: "a", name: "write", args: { file_path: "in.txt", content: "in\n" } }] },
      { toolCalls: [{ id: "b", name: "write", args: { file_path: outside, content: "out\n" } }] },
      { text: "Done." },
    ]),
  );
  const results: string[] = [];
  const app = client({ name: "compiled" })
    .onNotification("session/update", ({ params }) => {
      const u = params.update;
      if (u.sessionUpdate === "tool_call_update" && u.status !== undefined) {
        results.push(`${u.toolCallId}:${u.status}`);
      }
    })
    // The user approves the outside write: only the Deno profile stops it.
    .onRequest("session/request_permission", () => ({
      outcome: { outcome: "selected", optionId: "allow_once" },
    }));
  const agent = spawnAgentProcess(app, {
    permissions: flags,
    args: ["--script", script],
    cwd: ws,
    clearEnv: true,
    env: plainEnv(tmp),
  });
  try {
    const a = agent.connection.agent;
    await a.request("initialize", { protocolVersion: 1 });
    const { sessionId } = await a.request("session/new", { cwd: ws, mcpServers: [] });
    await a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  } finally {
    await agent.close();
  }
  equal(await Deno.readTextFile(join(ws, "in.txt")), "in\n");
  equal(await Deno.stat(outside).then(() => true, () => false), false, results.join(" "));
  ok(results.includes("a:completed") && results.includes("b:failed"), results.join(" "));
});
