/**
 * The compiled binary's profile (`deno task compile`) is the scoped read/write profile of
 * `deno task agent` for the folder it was compiled for, never bare `--allow-read`/`--allow-write`,
 * plus the user's config folder for its own `trust` subcommand.
 * `deno compile` needs the denort download, so the same entry point runs under `deno run` with
 * exactly the flags the binary would bake in.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { client } from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { spawnAgentProcess } from "../../acp/_agent_process.ts";
import { compileArgs, compileFlags } from "../../acp/_compile.ts";
import { DEFAULT_CONFIG } from "../../acp/config.ts";
import { defaultSessionsDir } from "../../acp/_session_dir.ts";
import { sessionKeyDir } from "../../agent/session_key.ts";
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
    userConfigDir: join(dir.path, "cfg", "dsh"),
  };
  const flags = compileFlags(options);
  const args = compileArgs(options);
  deepEqual(args.filter((a) => a === "--allow-read" || a === "--allow-write" || a === "-A"), []);
  const cfg = join(dir.path, "cfg", "dsh");
  ok(
    args.includes(
      `--allow-write=${ws},${defaultSessionsDir(ws)},${sessionKeyDir()},${tmp},${cfg}`,
    ),
    args.join(" "),
  );
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

Deno.test("the compiled agent's own trust subcommand records a grant under the same flags", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  await Deno.mkdir(ws);
  await Deno.writeTextFile(join(ws, "dsh.jsonc"), '{ "allowRun": ["git"] }');
  const configDir = join(dir.path, ".config", "dsh");
  const flags = compileFlags({
    baseUrl: "https://api.deepseek.com",
    output: "x",
    config: DEFAULT_CONFIG,
    workspace: ws,
    tmpDir: dir.path,
    userConfigDir: configDir,
  });
  const main = new URL("../../acp/main.ts", import.meta.url).pathname;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", ...flags, main, "trust", "--yes", ws],
    cwd: ws,
    clearEnv: true,
    env: plainEnv(dir.path),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  equal(code, 0, text);
  ok(text.includes("lets the agent run git"), text);
  const record = JSON.parse(await Deno.readTextFile(join(configDir, "trusted.json")));
  deepEqual(Object.keys(record.folders), [await Deno.realPath(ws)]);
});
