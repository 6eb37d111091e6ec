import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { client, type SessionUpdate } from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { spawnAgentProcess } from "../../acp/_agent_process.ts";
import { parseConfig } from "../../acp/config.ts";
import { permissionFlags } from "../../acp/permissions.ts";
import { tempDir } from "../_helpers.ts";
import { EVERYTHING, plainEnv } from "./_snapshot.ts";

Deno.test("main() keeps stdout to protocol frames while bash, an MCP server and logs print", async () => {
  await using dir = await tempDir();
  const cwd = join(dir.path, "ws");
  const sessionsDir = join(dir.path, "sessions");
  await Deno.mkdir(cwd);
  const configText = JSON.stringify({
    mcpServers: { everything: { command: "node", args: [EVERYTHING, "stdio"] } },
    // MCP tools ask by default; this test is about stdout, not prompts.
    permissions: [{ tool: "mcp__*", decision: "allow" }],
  });
  const configPath = join(dir.path, "dsh.jsonc");
  const scriptPath = join(dir.path, "script.json");
  await Deno.writeTextFile(configPath, configText);
  await Deno.writeTextFile(
    scriptPath,
    JSON.stringify([
      {
        toolCalls: [{
          id: "call_b",
          name: "bash",
          args: { command: "echo to-stdout; echo to-stderr >&2" },
        }],
      },
      {
        toolCalls: [{ id: "call_m", name: "mcp__everything__echo", args: { message: "hi" } }],
      },
      { text: "Done." },
    ]),
  );
  const flags = permissionFlags(parseConfig(configText, configPath), {
    roots: [cwd],
    sessionsDir,
    readOnly: [configPath, scriptPath, EVERYTHING],
    tmpDir: dir.path,
    useDeepSeek: false,
  });
  const frames: string[] = [];
  const updates: SessionUpdate[] = [];
  const app = client({ name: "purity" }).onNotification("session/update", ({ params }) => {
    updates.push(params.update);
  });
  const agent = spawnAgentProcess(app, {
    permissions: flags,
    args: [
      "--config",
      configPath,
      "--script",
      scriptPath,
      "--sessions-dir",
      sessionsDir,
      "--log-level",
      "debug",
      // Buffered output goes out only at events (as in the snapshot runner): a loaded machine
      // would otherwise add a streamed-output update before the result.
      "--flush-ms",
      "60000",
    ],
    cwd,
    clearEnv: true,
    env: plainEnv(dir.path),
    onFrame: (line) => frames.push(line),
  });
  let stopReason: string;
  try {
    const a = agent.connection.agent;
    await a.request("initialize", { protocolVersion: 1 });
    const { sessionId } = await a.request("session/new", { cwd, mcpServers: [] });
    ({ stopReason } = await a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Print things" }],
    }));
  } finally {
    await agent.close();
  }
  equal(stopReason, "end_turn");
  ok(frames.length > 0);
  for (const line of frames) {
    const frame = JSON.parse(line) as Record<string, unknown>;
    equal(frame.jsonrpc, "2.0", line);
  }
  const results = updates.filter((u) => u.sessionUpdate === "tool_call_update") as Record<
    string,
    unknown
  >[];
  deepEqual(results.map((u) => [u.toolCallId, u.status]), [
    ["call_b", "completed"],
    ["call_m", "completed"],
  ]);
  match(JSON.stringify(results[0]?.content), /to-stdout/);
  match(JSON.stringify(results[1]?.content), /Echo: hi/);
  // Logs (and the MCP server's own prints) go to stderr.
  ok(agent.stderr().length > 0);
});

Deno.test("guardStdout() sends console output and process.stdout writes to stderr", async () => {
  const guard = new URL("../../acp/_stdout_guard.ts", import.meta.url).href;
  const code = `import { guardStdout } from ${JSON.stringify(guard)};
import process from "node:process";
guardStdout();
console.log("log"); console.info("info"); console.table([1]); console.count("n");
process.stdout.write("raw\\n");
await Deno.stdout.write(new TextEncoder().encode("frame\\n"));`;
  const { stdout, stderr, success } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  ok(success, new TextDecoder().decode(stderr));
  equal(new TextDecoder().decode(stdout), "frame\n");
  const err = new TextDecoder().decode(stderr);
  for (const text of ["log", "info", "n: 1", "raw"]) ok(err.includes(text), err);
});

async function expectStartupError(
  main: string | undefined,
  permissions: string[],
  args: string[],
  cwd: string,
  expected: string,
): Promise<void> {
  const frames: string[] = [];
  const agent = spawnAgentProcess(client({ name: "bad-config" }), {
    permissions,
    args,
    cwd,
    clearEnv: true,
    env: plainEnv(cwd),
    onFrame: (line) => frames.push(line),
    ...(main !== undefined ? { main } : {}),
  });
  let status: Deno.CommandStatus;
  try {
    const a = agent.connection.agent;
    const init = await a.request("initialize", { protocolVersion: 1 });
    equal(init.protocolVersion, 1);
    await rejects(() => a.request("session/new", { cwd, mcpServers: [] }), {
      code: -32603,
      message: expected,
    });
  } finally {
    status = await agent.close();
  }
  equal(status.code, 1);
  for (const line of frames) equal((JSON.parse(line) as { jsonrpc: string }).jsonrpc, "2.0");
  const stderr = agent.stderr();
  ok(stderr.includes(`[dsh] ERROR acp: ${expected}`), stderr);
  ok(!/^\s+at /m.test(stderr), `no stack trace expected: ${stderr}`);
}

Deno.test("main() reports a bad dsh.jsonc on session/new instead of exiting after initialize", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "dsh.jsonc"), '{ "toolMode": "codes" }');
  await expectStartupError(
    undefined,
    [`--allow-read=${dir.path}`, `--allow-env`],
    [],
    dir.path,
    `Cannot read config "${
      join(dir.path, "dsh.jsonc")
    }": "toolMode" must be one of "native", "code", "both": received "codes"; did you mean "code"?`,
  );
});

Deno.test("main() reports a missing --script file on session/new", async () => {
  await using dir = await tempDir();
  await expectStartupError(
    undefined,
    [`--allow-read=${dir.path}`, `--allow-write=${dir.path}`, `--allow-env`],
    ["--script", "none.json"],
    dir.path,
    'Cannot read script "none.json": the file does not exist',
  );
});

Deno.test("launch.ts reports a config syntax error on session/new without a stack trace", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "dsh.jsonc"), '{ "toolMode": "code" ');
  await expectStartupError(
    new URL("../../acp/launch.ts", import.meta.url).pathname,
    ["--allow-read", "--allow-env", "--allow-run=deno"],
    [],
    dir.path,
    `Cannot read config "${
      join(dir.path, "dsh.jsonc")
    }": syntax error at line 1, column 22: expected "}"`,
  );
});

Deno.test("session/new skips an editor MCP server the profile cannot run and names allowRun", async () => {
  await using dir = await tempDir();
  const cwd = join(dir.path, "ws");
  const sessionsDir = join(dir.path, "sessions");
  await Deno.mkdir(cwd);
  const scriptPath = join(dir.path, "script.json");
  await Deno.writeTextFile(scriptPath, JSON.stringify([{ text: "hi" }]));
  const flags = permissionFlags(parseConfig("{}", "c"), {
    roots: [cwd],
    sessionsDir,
    readOnly: [scriptPath],
    tmpDir: dir.path,
    useDeepSeek: false,
  });
  const agent = spawnAgentProcess(client({ name: "mcp-denied" }), {
    permissions: flags,
    args: ["--script", scriptPath, "--sessions-dir", sessionsDir],
    cwd,
    clearEnv: true,
    env: plainEnv(dir.path),
  });
  try {
    const a = agent.connection.agent;
    await a.request("initialize", { protocolVersion: 1 });
    const { sessionId } = await a.request("session/new", {
      cwd,
      mcpServers: [{ name: "ev", command: "node", args: [EVERYTHING, "stdio"], env: [] }],
    });
    ok(sessionId);
  } finally {
    await agent.close();
  }
  match(
    agent.stderr(),
    /Cannot start MCP server "ev" from the editor: the agent may not run "node": add it to "allowRun" in dsh\.jsonc/,
  );
});
