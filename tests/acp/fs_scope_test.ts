/**
 * The shipped agent (a real process, a real ACP client, a scripted model): "Always allow" for a
 * read outside the workspace covers that real folder only, so a read through another workspace
 * symlink to another outside folder asks again (issue 19 item 7); a write to `.git/config`
 * inside the workspace asks, naming why, and a rejected one writes nothing.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { client, type SessionUpdate } from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { spawnAgentProcess } from "../../acp/_agent_process.ts";
import { DEFAULT_CONFIG } from "../../acp/config.ts";
import { permissionFlags } from "../../acp/permissions.ts";
import { tempDir } from "../_helpers.ts";
import { plainEnv } from "./_snapshot.ts";

interface Asked {
  readonly title: string;
  readonly always: string | undefined;
  readonly card: string;
}

async function drive(root: string, script: unknown[], answer: (title: string) => string) {
  const cwd = join(root, "ws");
  const sessionsDir = join(root, "sessions");
  const scriptPath = join(root, "script.json");
  await Deno.writeTextFile(scriptPath, JSON.stringify(script));
  const flags = permissionFlags(DEFAULT_CONFIG, {
    roots: [cwd],
    sessionsDir,
    readOnly: [scriptPath],
    tmpDir: root,
    useDeepSeek: false,
  });
  const asked: Asked[] = [];
  const updates: SessionUpdate[] = [];
  const app = client({ name: "fs-scope" })
    .onNotification("session/update", ({ params }) => void updates.push(params.update))
    .onRequest("session/request_permission", ({ params }) => {
      const title = params.toolCall.title ?? "";
      const always = params.options.find((o) => o.kind === "allow_always")?.name;
      asked.push({ title, always, card: JSON.stringify(params.toolCall) });
      return { outcome: { outcome: "selected", optionId: answer(title) } };
    });
  const agent = spawnAgentProcess(app, {
    permissions: flags,
    args: ["--sessions-dir", sessionsDir, "--script", scriptPath],
    cwd,
    clearEnv: true,
    env: plainEnv(root),
  });
  try {
    const a = agent.connection.agent;
    await a.request("initialize", { protocolVersion: 1 });
    const { sessionId } = await a.request("session/new", { cwd, mcpServers: [] });
    const { stopReason } = await a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    equal(stopReason, "end_turn");
  } finally {
    await agent.close();
  }
  return { asked, updates };
}

function results(updates: readonly SessionUpdate[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const u of updates) {
    if (u.sessionUpdate !== "tool_call_update" || u.status === undefined) continue;
    if (u.status !== "completed" && u.status !== "failed") continue;
    out.set(u.toolCallId, `${u.status} ${JSON.stringify(u.content ?? [])}`);
  }
  return out;
}

const read = (id: string, path: string) => ({
  toolCalls: [{ id, name: "read", args: { file_path: path } }],
});

Deno.test("agent: Always allow for a read outside covers its real folder, not every workspace symlink", async () => {
  await using dir = await tempDir();
  const root = await Deno.realPath(dir.path);
  await Deno.mkdir(join(root, "ws"));
  for (const name of ["out1", "out2"]) {
    await Deno.mkdir(join(root, name));
    await Deno.writeTextFile(join(root, name, "a.txt"), `content of ${name}\n`);
    await Deno.writeTextFile(join(root, name, "b.txt"), `more of ${name}\n`);
  }
  await Deno.symlink(join(root, "out1"), join(root, "ws", "l1"));
  await Deno.symlink(join(root, "out2"), join(root, "ws", "l2"));
  const { asked, updates } = await drive(root, [
    read("r1", "l1/a.txt"),
    read("r2", "l1/b.txt"),
    read("r3", "l2/a.txt"),
    { text: "Done." },
  ], (title) => title.includes("l2") ? "reject_once" : "allow_always");
  deepEqual(asked.map((a) => a.title), ["Read l1/a.txt", "Read l2/a.txt"]);
  equal(asked[0]?.always, `Always allow read in "${root}/out1" (this folder only)`);
  const done = results(updates);
  ok(done.get("r1")?.includes("content of out1"), done.get("r1"));
  ok(done.get("r2")?.includes("more of out1"), done.get("r2"));
  ok(done.get("r3")?.startsWith("failed"), done.get("r3"));
  ok(!done.get("r3")?.includes("content of out2"));
});

Deno.test("agent: a write to .git/config inside the workspace asks why; rejected writes nothing", async () => {
  await using dir = await tempDir();
  const root = await Deno.realPath(dir.path);
  await Deno.mkdir(join(root, "ws", ".git"), { recursive: true });
  await Deno.writeTextFile(join(root, "ws", ".git", "config"), "[core]\n");
  const { asked, updates } = await drive(root, [
    read("r", ".git/config"),
    {
      toolCalls: [{
        id: "w",
        name: "write",
        args: { file_path: ".git/config", content: "[core]\n\tfsmonitor = touch /tmp/pwned\n" },
      }],
    },
    { text: "Done." },
  ], () => "reject_once");
  equal(asked.length, 1);
  ok(
    asked[0]?.card.includes(
      `write of \\"${root}/ws/.git/config\\" needs your approval: git runs its config and hooks on the host`,
    ),
    asked[0]?.card,
  );
  equal(await Deno.readTextFile(join(root, "ws", ".git", "config")), "[core]\n");
  ok(results(updates).get("w")?.startsWith("failed"));
});
