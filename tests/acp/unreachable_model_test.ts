/**
 * Issue 20: the real agent (launch.ts, its computed profile) with DEEPSEEK_BASE_URL on a closed
 * loopback port: the prompt fails at once (no retry waits), and the user reads the host:port,
 * the cause and where the endpoint is set.
 */
import { equal, match } from "node:assert/strict";
import { client, type SessionUpdate } from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { spawnAgentProcess } from "../../acp/_agent_process.ts";
import { tempDir } from "../_helpers.ts";
import { plainEnv } from "./_snapshot.ts";

const LAUNCH = new URL("../../acp/launch.ts", import.meta.url).pathname;

function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

Deno.test("a prompt to a closed DEEPSEEK_BASE_URL port tells the user where and why, without retrying", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  await Deno.mkdir(ws);
  const port = closedPort();
  const updates: SessionUpdate[] = [];
  const app = client({ name: "unreachable" }).onNotification("session/update", ({ params }) => {
    updates.push(params.update);
  });
  const agent = spawnAgentProcess(app, {
    main: LAUNCH,
    permissions: ["--allow-read", "--allow-env", "--allow-run=deno"],
    cwd: ws,
    clearEnv: true,
    env: {
      ...plainEnv(dir.path),
      DEEPSEEK_API_KEY: "sk-test",
      DEEPSEEK_BASE_URL: `http://127.0.0.1:${port}`,
    },
  });
  let outcome = "";
  try {
    const a = agent.connection.agent;
    await a.request("initialize", { protocolVersion: 1 });
    const { sessionId } = await a.request("session/new", { cwd: ws, mcpServers: [] });
    await a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] })
      .then(
        (result) => outcome = JSON.stringify(result),
        (error) => outcome = String(error?.message ?? error),
      );
  } finally {
    await agent.close();
  }
  const shown = `${outcome}\n${JSON.stringify(updates)}`;
  match(
    shown,
    new RegExp(
      `Cannot reach DeepSeek at 127\\.0\\.0\\.1:${port} \\(http://127\\.0\\.0\\.1:${port}/chat/completions\\): connection refused \\(nothing listens there\\); the endpoint is DEEPSEEK_BASE_URL when set, else model\\.baseUrl in dsh\\.jsonc`,
    ),
  );
  // No "retrying in …" notice: a refused connection is not retried.
  equal(/retrying in/.test(shown), false, shown);
});
