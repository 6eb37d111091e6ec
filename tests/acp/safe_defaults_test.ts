/**
 * The agent binary's defaults with no `dsh.jsonc`: bash in workspace-write where bubblewrap runs,
 * ask-first bash where it does not (said once on stderr and once per session), MCP tools ask, and
 * no scripted model without `"provider": "demo"`.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { client, type SessionUpdate } from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { spawnAgentProcess } from "../../acp/_agent_process.ts";
import { DEFAULT_CONFIG, parseConfig } from "../../acp/config.ts";
import { permissionFlags } from "../../acp/permissions.ts";
import { tempDir } from "../_helpers.ts";
import { EVERYTHING, plainEnv } from "./_snapshot.ts";

interface Session {
  updates: SessionUpdate[];
  asked: string[];
  stopReasons: string[];
  stderr: string;
}

async function drive(
  root: string,
  options: { config?: string; script?: unknown[]; prompts: number; path?: string },
): Promise<Session> {
  const cwd = join(root, "ws");
  const sessionsDir = join(root, "sessions");
  await Deno.mkdir(cwd, { recursive: true });
  const args = ["--sessions-dir", sessionsDir];
  const readOnly: string[] = [EVERYTHING];
  let config = DEFAULT_CONFIG;
  if (options.config !== undefined) {
    const configPath = join(root, "dsh.jsonc");
    await Deno.writeTextFile(configPath, options.config);
    config = parseConfig(options.config, configPath);
    args.push("--config", configPath);
    readOnly.push(configPath);
  }
  if (options.script !== undefined) {
    const scriptPath = join(root, "script.json");
    await Deno.writeTextFile(scriptPath, JSON.stringify(options.script));
    args.push("--script", scriptPath);
    readOnly.push(scriptPath);
  }
  const flags = permissionFlags(config, {
    roots: [cwd],
    sessionsDir,
    readOnly,
    tmpDir: root,
    useDeepSeek: false,
  });
  const session: Session = { updates: [], asked: [], stopReasons: [], stderr: "" };
  const app = client({ name: "defaults" })
    .onNotification("session/update", ({ params }) => void session.updates.push(params.update))
    .onRequest("session/request_permission", ({ params }) => {
      session.asked.push(params.toolCall.title ?? "");
      return { outcome: { outcome: "selected", optionId: "allow_once" } };
    });
  const env = plainEnv(root);
  const agent = spawnAgentProcess(app, {
    permissions: flags,
    args,
    cwd,
    clearEnv: true,
    env: options.path === undefined ? env : { ...env, PATH: options.path },
  });
  try {
    const a = agent.connection.agent;
    await a.request("initialize", { protocolVersion: 1 });
    const { sessionId } = await a.request("session/new", { cwd, mcpServers: [] });
    for (let i = 0; i < options.prompts; i++) {
      const { stopReason } = await a.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: `prompt ${i}` }],
      });
      session.stopReasons.push(stopReason);
    }
  } finally {
    await agent.close();
    session.stderr = agent.stderr();
  }
  return session;
}

function messages(session: Session): string {
  return session.updates.flatMap((u) =>
    u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []
  ).join("");
}

function toolCalls(session: Session): SessionUpdate[] {
  return session.updates.filter((u) => u.sessionUpdate === "tool_call");
}

Deno.test("without a key or config, the agent explains how to set DEEPSEEK_API_KEY and runs no tool", async () => {
  await using dir = await tempDir();
  const session = await drive(dir.path, { prompts: 2 });
  deepEqual(session.stopReasons, ["end_turn", "end_turn"]);
  const text = messages(session);
  match(text, /DEEPSEEK_API_KEY/);
  match(text, /deno task demo/);
  deepEqual(toolCalls(session), []);
  deepEqual(session.asked, []);
  deepEqual([...Deno.readDirSync(join(dir.path, "ws"))], []);
});

Deno.test("the scripted demo model runs only for provider demo", async () => {
  await using dir = await tempDir();
  const session = await drive(dir.path, {
    config: '{"model": {"provider": "demo"}}',
    prompts: 1,
  });
  ok(toolCalls(session).length > 0);
  // The no-key note (which points at `deno task demo`) is not what answered.
  ok(!messages(session).includes("deno task demo"));
});

Deno.test("by default, bash runs sandboxed (no capabilities) without asking and MCP tools ask first", async () => {
  await using dir = await tempDir();
  const session = await drive(dir.path, {
    config: JSON.stringify({
      mcpServers: { everything: { command: "node", args: [EVERYTHING, "stdio"] } },
    }),
    script: [
      {
        toolCalls: [{ id: "b", name: "bash", args: { command: "grep ^CapEff /proc/self/status" } }],
      },
      { toolCalls: [{ id: "m", name: "mcp__everything__echo", args: { message: "hi" } }] },
      { text: "Done." },
    ],
    prompts: 1,
  });
  deepEqual(session.stopReasons, ["end_turn"]);
  equal(session.asked.length, 1);
  match(session.asked[0]!, /echo/);
  const outputs = JSON.stringify(session.updates);
  match(outputs, /CapEff:\\t0000000000000000/);
});

Deno.test("without bubblewrap, the agent says so once and asks before every bash call", async () => {
  await using dir = await tempDir();
  // A PATH holding what the agent runs, but no bwrap.
  const bin = join(dir.path, "bin");
  await Deno.mkdir(bin);
  for (const tool of ["bash", "sh", "setsid", "ps", "kill"]) {
    const path = new TextDecoder().decode(
      (await new Deno.Command("bash", { args: ["-c", `command -v ${tool}`] }).output()).stdout,
    ).trim();
    await Deno.symlink(path, join(bin, tool));
  }
  const session = await drive(dir.path, {
    script: [
      { toolCalls: [{ id: "b1", name: "bash", args: { command: "echo first" } }] },
      { text: "One." },
      { toolCalls: [{ id: "b2", name: "bash", args: { command: "echo second" } }] },
      { text: "Two." },
    ],
    prompts: 2,
    path: bin,
  });
  deepEqual(session.stopReasons, ["end_turn", "end_turn"]);
  deepEqual(session.asked, ["echo first", "echo second"]);
  const notices = messages(session).split("apt-get install bubblewrap").length - 1;
  equal(notices, 1);
  equal(session.stderr.split("apt-get install bubblewrap").length - 1, 1, session.stderr);
});
