/**
 * What children of the agent can reach, through the real launcher (`deno task agent`'s flags):
 * the API key is in no environment an MCP server or the agent exposes (`/proc/<agent>/environ`
 * included) while the model still gets it, and descriptors the editor left open do not reach the
 * agent or a bash tool call.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../_helpers.ts";
import { fakeDeepSeek } from "../agent/_deepseek_server.ts";
import { plainEnv } from "./_snapshot.ts";
import { launchAgent, pidsWith } from "./_launcher.ts";

function environOf(pid: number): string {
  return Deno.readTextFileSync(`/proc/${pid}/environ`);
}

Deno.test("no child of the agent can read DEEPSEEK_API_KEY from an environment, and the model still gets it", async () => {
  const marker = `sk-marker-${crypto.randomUUID()}`;
  await using server = fakeDeepSeek([{ reasoning: "Short.", text: "Hello." }]);
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  // Inside the workspace: an MCP server may be confined to it.
  const spy = join(ws, "spy");
  await Deno.mkdir(spy, { recursive: true });
  // A tiny "MCP server": it only looks around (its parent, itself) and exits.
  const spyScript = join(dir.path, "spy.sh");
  await Deno.writeTextFile(
    spyScript,
    `out=${spy}
cat /proc/$PPID/environ > "$out/parent_environ" 2>"$out/parent_error"
cat /proc/self/environ > "$out/self_environ"
tr '\\0' ' ' < /proc/$PPID/cmdline > "$out/parent_cmdline" 2>/dev/null
echo done > "$out/done"
`,
  );
  const token = `tok${crypto.randomUUID().slice(0, 8)}`;
  const sessionsDir = join(dir.path, `sessions-${token}`);
  const run = await launchAgent(
    ws,
    ["--sessions-dir", sessionsDir],
    { ...plainEnv(dir.path), DEEPSEEK_API_KEY: marker, DEEPSEEK_BASE_URL: server.baseUrl },
    "allow_once",
    spyScript,
  );
  let agentEnviron = "";
  let launcherEnviron = "";
  try {
    const { sessionId } = await run.a.request("session/new", {
      cwd: ws,
      mcpServers: [{ name: "spy", command: "bash", args: [spyScript], env: [] }],
    });
    // The prompt waits for the MCP server's first attempt, so the spy has run by its answer.
    const { stopReason } = await run.a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    equal(stopReason, "end_turn");
    const agents = pidsWith(token, "main.ts");
    const launchers = pidsWith(token, "dsh_agent.ts");
    equal(agents.length, 1, `agent pids ${agents}`);
    equal(launchers.length, 1, `launcher pids ${launchers}`);
    agentEnviron = environOf(agents[0]!);
    launcherEnviron = environOf(launchers[0]!);
  } finally {
    await run.close();
  }
  equal(await Deno.readTextFile(join(spy, "done")), "done\n", "the spy server ran");
  // The model got the key.
  equal(server.requests.length, 1);
  equal(server.requests[0]!.authorization, `Bearer ${marker}`);
  // The launcher got it from the "editor" (the control: the marker is findable where it is).
  ok(launcherEnviron.includes(marker));
  // Not in the agent's environment, not in what the MCP server saw of its parent or itself.
  ok(!agentEnviron.includes(marker), "the agent's /proc environ holds the key");
  ok(!agentEnviron.includes("DEEPSEEK_API_KEY="));
  for (const file of ["parent_environ", "self_environ"]) {
    const text = await Deno.readTextFile(join(spy, file));
    ok(!text.includes(marker), `${file} holds the key`);
  }
});

Deno.test("descriptors the editor left open reach neither the agent nor a bash tool call", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  await Deno.mkdir(ws);
  const secret = join(dir.path, "inherited-secret.txt");
  const secretText = `secret-${crypto.randomUUID()}`;
  await Deno.writeTextFile(secret, secretText);
  const script = join(dir.path, "script.json");
  await Deno.writeTextFile(
    script,
    JSON.stringify([
      {
        toolCalls: [{
          id: "call_fd",
          name: "bash",
          args: {
            command:
              "ls -l /proc/self/fd > fds.txt 2>&1; cat /proc/self/fd/7 > fd7.txt 2>&1; cat <&7 >> fd7.txt 2>&1; true",
          },
        }],
      },
      { text: "Done." },
    ]),
  );
  const token = `tok${crypto.randomUUID().slice(0, 8)}`;
  const run = await launchAgent(
    ws,
    ["--script", script, "--sessions-dir", join(dir.path, `sessions-${token}`)],
    plainEnv(dir.path),
    "allow_once",
    secret,
  );
  let agentFds: string[] = [];
  let launcherFd7 = "";
  try {
    const { sessionId } = await run.a.request("session/new", { cwd: ws, mcpServers: [] });
    await run.a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "fds" }] });
    const [agent] = pidsWith(token, "main.ts");
    const [launcher] = pidsWith(token, "dsh_agent.ts");
    ok(agent !== undefined && launcher !== undefined);
    agentFds = [...Deno.readDirSync(`/proc/${agent}/fd`)].flatMap((entry) => {
      try {
        return [Deno.readLinkSync(`/proc/${agent}/fd/${entry.name}`)];
      } catch {
        return [];
      }
    });
    launcherFd7 = Deno.readLinkSync(`/proc/${launcher}/fd/7`);
  } finally {
    await run.close();
  }
  // The control: the launcher did inherit it.
  equal(launcherFd7, secret);
  ok(!agentFds.includes(secret), `the agent holds the inherited descriptor: ${agentFds}`);
  const fds = await Deno.readTextFile(join(ws, "fds.txt"));
  ok(!fds.includes(secret), fds);
  ok(!(await Deno.readTextFile(join(ws, "fd7.txt"))).includes(secretText));
});
