import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { client, type SessionUpdate } from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { spawnAgentProcess } from "../../acp/_agent_process.ts";
import { compileArgs } from "../../acp/_compile.ts";
import { DEFAULT_CONFIG } from "../../acp/config.ts";
import { tempDir } from "../_helpers.ts";
import { fakeDeepSeek } from "../agent/_deepseek_server.ts";
import { plainEnv } from "./_snapshot.ts";

const LAUNCH = new URL("../../acp/launch.ts", import.meta.url).pathname;
const MAIN = new URL("../../acp/main.ts", import.meta.url).pathname;
/** The flags of `deno task agent`. */
const AGENT_TASK_FLAGS = ["--allow-read", "--allow-env", "--allow-run=deno"];

function textOf(updates: readonly SessionUpdate[], kind: string): string {
  return updates.flatMap((u) => {
    if (u.sessionUpdate !== kind) return [];
    const content = (u as { content?: { type?: string; text?: string } }).content;
    return content?.type === "text" ? [content.text ?? ""] : [];
  }).join("");
}

Deno.test("the real agent (launch.ts) talks to DEEPSEEK_BASE_URL in thinking mode under its profile", async () => {
  await using server = fakeDeepSeek([
    {
      reasoning: "I will read the file.",
      text: "Reading.",
      toolCalls: [{ name: "read", arguments: '{"file_path":"hello.txt"}' }],
    },
    { reasoning: "It says hi.", text: "The file says hi." },
    { reasoning: "Again.", toolCalls: [{ name: "read", arguments: '{"file_path":"hello.txt"}' }] },
    { text: "Still hi." },
  ]);
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  await Deno.mkdir(ws);
  await Deno.writeTextFile(join(ws, "hello.txt"), "hi\n");
  // model.baseUrl names another host: DEEPSEEK_BASE_URL must win, in the profile too.
  await Deno.writeTextFile(
    join(ws, "dsh.jsonc"),
    '{ "model": { "baseUrl": "https://unused.example", "reasoningEffort": "low" } }',
  );
  const updates: SessionUpdate[] = [];
  const app = client({ name: "endpoint" }).onNotification("session/update", ({ params }) => {
    updates.push(params.update);
  });
  const agent = spawnAgentProcess(app, {
    main: LAUNCH,
    permissions: AGENT_TASK_FLAGS,
    cwd: ws,
    clearEnv: true,
    env: {
      ...plainEnv(dir.path),
      DEEPSEEK_API_KEY: "sk-test",
      DEEPSEEK_BASE_URL: server.baseUrl,
    },
  });
  const stops: string[] = [];
  try {
    const a = agent.connection.agent;
    await a.request("initialize", { protocolVersion: 1 });
    const { sessionId } = await a.request("session/new", { cwd: ws, mcpServers: [] });
    for (const text of ["What does hello.txt say?", "And now?"]) {
      const { stopReason } = await a.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text }],
      });
      stops.push(stopReason);
    }
  } finally {
    await agent.close();
  }
  deepEqual(stops, ["end_turn", "end_turn"], agent.stderr());
  deepEqual(server.requests.map((r) => r.status), [200, 200, 200, 200]);
  for (const { body } of server.requests) {
    equal(body.model, "deepseek-flash");
    deepEqual(body.thinking, { type: "enabled" });
    equal(body.reasoning_effort, "low");
  }
  const assistants = (server.requests[3]!.body.messages ?? []).filter((m) =>
    m.role === "assistant"
  );
  deepEqual(assistants.map((m) => m.reasoning_content), [
    "I will read the file.",
    undefined,
    "Again.",
  ]);
  match(textOf(updates, "agent_thought_chunk"), /I will read the file\..*It says hi\./s);
  match(textOf(updates, "agent_message_chunk"), /The file says hi\..*Still hi\./s);
  ok(updates.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed"));
});

Deno.test("the compile task's flags run the agent against DEEPSEEK_BASE_URL (deno run, same flags)", async () => {
  await using server = fakeDeepSeek([{ reasoning: "Short.", text: "Hello." }]);
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  await Deno.mkdir(ws);
  const args = compileArgs({
    baseUrl: server.baseUrl,
    output: join(dir.path, "dsh-agent"),
    config: DEFAULT_CONFIG,
    workspace: ws,
    tmpDir: dir.path,
  });
  const port = new URL(server.baseUrl).port;
  ok(args.includes(`--allow-net=127.0.0.1:${port}`), args.join(" "));
  equal(args.at(-1), MAIN);
  // `deno compile` needs the denort download; the same entry and permission flags under `deno run`.
  const flags = args.slice(args.indexOf("compile") + 1, -1).filter((a) => a.startsWith("--allow-"));
  const updates: SessionUpdate[] = [];
  const app = client({ name: "compiled" }).onNotification("session/update", ({ params }) => {
    updates.push(params.update);
  });
  const agent = spawnAgentProcess(app, {
    main: MAIN,
    permissions: flags,
    cwd: ws,
    clearEnv: true,
    env: {
      ...plainEnv(dir.path),
      DEEPSEEK_API_KEY: "sk-test",
      DEEPSEEK_BASE_URL: server.baseUrl,
    },
  });
  let stopReason = "";
  try {
    const a = agent.connection.agent;
    await a.request("initialize", { protocolVersion: 1 });
    const { sessionId } = await a.request("session/new", { cwd: ws, mcpServers: [] });
    ({ stopReason } = await a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    }));
  } finally {
    await agent.close();
  }
  equal(stopReason, "end_turn", agent.stderr());
  equal(textOf(updates, "agent_message_chunk"), "Hello.");
  equal(textOf(updates, "agent_thought_chunk"), "Short.");
});

Deno.test("a profile without the endpoint fails at once and names the setting that grants it", async () => {
  await using server = fakeDeepSeek([]);
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  await Deno.mkdir(ws);
  const flags = compileArgs({
    baseUrl: "https://api.deepseek.com",
    output: "x",
    config: DEFAULT_CONFIG,
    workspace: ws,
    tmpDir: dir.path,
  });
  const updates: SessionUpdate[] = [];
  const app = client({ name: "denied" }).onNotification("session/update", ({ params }) => {
    updates.push(params.update);
  });
  const agent = spawnAgentProcess(app, {
    main: MAIN,
    // Net for api.deepseek.com:443 only, while DEEPSEEK_BASE_URL points at the loopback server.
    permissions: flags.slice(flags.indexOf("compile") + 1, -1).filter((a) =>
      a.startsWith("--allow-")
    ),
    cwd: ws,
    clearEnv: true,
    env: {
      ...plainEnv(dir.path),
      DEEPSEEK_API_KEY: "sk-test",
      DEEPSEEK_BASE_URL: server.baseUrl,
    },
  });
  let message = "";
  try {
    const a = agent.connection.agent;
    await a.request("initialize", { protocolVersion: 1 });
    const { sessionId } = await a.request("session/new", { cwd: ws, mcpServers: [] });
    try {
      await a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    } catch (error) {
      message = JSON.stringify(error);
    }
  } finally {
    await agent.close();
  }
  match(message, /is not allowed by Deno's permissions/);
  match(message, /DEEPSEEK_BASE_URL when set, else of model\.baseUrl in dsh\.jsonc/);
  // Never retried: no retry notice was shown.
  equal(updates.some((u) => JSON.stringify(u).includes("retrying")), false);
  equal(server.requests.length, 0);
});

Deno.test("launch.ts reports a DEEPSEEK_BASE_URL that is not an http URL on session/new", async () => {
  await using dir = await tempDir();
  const agent = spawnAgentProcess(client({ name: "bad-url" }), {
    main: LAUNCH,
    permissions: AGENT_TASK_FLAGS,
    cwd: dir.path,
    clearEnv: true,
    env: { ...plainEnv(dir.path), DEEPSEEK_API_KEY: "sk", DEEPSEEK_BASE_URL: "localhost:8080" },
  });
  let status: Deno.CommandStatus;
  try {
    const a = agent.connection.agent;
    await a.request("initialize", { protocolVersion: 1 });
    await rejects(() => a.request("session/new", { cwd: dir.path, mcpServers: [] }), {
      code: -32603,
      message:
        'Cannot start the agent as DEEPSEEK_BASE_URL must be an https URL, or http on loopback (localhost, 127.0.0.0/8, ::1), since it receives the API key and the conversation: current value is "localhost:8080"',
    });
  } finally {
    status = await agent.close();
  }
  equal(status.code, 1);
});
