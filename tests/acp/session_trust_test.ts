/**
 * Attacks on the session log through the real agent binary (a scripted model, an SDK client over
 * stdio, bash in its sandbox): a log bash rewrote is refused on load; a validly signed header
 * naming `/` grants nothing (a write outside the client's `cwd` still asks); a sessions folder
 * replaced by a symbolic link is refused and nothing lands outside; bad session ids get clear
 * errors.
 */
import { equal, match, ok, rejects } from "node:assert/strict";
import { client, type SessionUpdate } from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { spawnAgentProcess } from "../../acp/_agent_process.ts";
import { DEFAULT_CONFIG } from "../../acp/config.ts";
import { permissionFlags } from "../../acp/permissions.ts";
import { loadSessionKey, SessionLog } from "../../agent/mod.ts";
import { tempDir } from "../_helpers.ts";
import { plainEnv } from "./_snapshot.ts";

const IMPORT = new URL("../../acp/import_session.ts", import.meta.url).pathname;

interface Agent {
  readonly a: ReturnType<typeof spawnAgentProcess>["connection"]["agent"];
  readonly updates: SessionUpdate[];
  /** Titles of the permission prompts (each answered `answer`). */
  readonly asked: string[];
  close(): Promise<string>;
}

/** The agent binary for workspace `ws` with logs in `ws/logs` and the user state in `root/state`. */
async function start(
  root: string,
  script: unknown[],
  answer: "allow_once" | "reject_once",
): Promise<Agent> {
  const ws = join(root, "ws");
  const scriptPath = join(root, `script-${crypto.randomUUID()}.json`);
  await Deno.writeTextFile(scriptPath, JSON.stringify(script));
  const flags = permissionFlags(DEFAULT_CONFIG, {
    roots: [ws],
    sessionsDir: join(ws, "logs"),
    keyDir: join(root, "state", "dsh", "keys"),
    readOnly: [scriptPath],
    // The agent may write all of root (so a write outside ws would succeed if it did not ask).
    tmpDir: root,
    useDeepSeek: false,
  });
  const updates: SessionUpdate[] = [];
  const asked: string[] = [];
  const app = client({ name: "session-trust" })
    .onNotification("session/update", ({ params }) => void updates.push(params.update))
    .onRequest("session/request_permission", ({ params }) => {
      asked.push(params.toolCall.title ?? "");
      return { outcome: { outcome: "selected", optionId: answer } };
    });
  const agent = spawnAgentProcess(app, {
    permissions: flags,
    args: ["--script", scriptPath, "--sessions-dir", join(ws, "logs")],
    cwd: ws,
    clearEnv: true,
    env: { ...plainEnv(root), XDG_STATE_HOME: join(root, "state") },
  });
  await agent.connection.agent.request("initialize", { protocolVersion: 1 });
  return {
    a: agent.connection.agent,
    updates,
    asked,
    async close() {
      await agent.close();
      return agent.stderr();
    },
  };
}

function said(updates: readonly SessionUpdate[]): string {
  return updates.flatMap((u) =>
    u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []
  ).join("");
}

Deno.test("session/load refuses a log bash rewrote, and a signed header naming / grants nothing", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  const outside = join(dir.path, "outside");
  await Deno.mkdir(ws);
  await Deno.mkdir(outside);
  // 1. The model has bash point its own log's header at "/".
  const first = await start(dir.path, [
    {
      toolCalls: [{
        id: "call_sed",
        name: "bash",
        args: { command: `sed -i '1s#"cwd":"[^"]*"#"cwd":"/"#' logs/*.jsonl` },
      }],
    },
    { text: "Done." },
  ], "allow_once");
  let sessionId: string;
  try {
    ({ sessionId } = await first.a.request("session/new", { cwd: ws, mcpServers: [] }));
    const { stopReason } = await first.a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    equal(stopReason, "end_turn");
  } finally {
    await first.close();
  }
  const logPath = join(ws, "logs", `${sessionId}.jsonl`);
  match((await Deno.readTextFile(logPath)).split("\n")[0]!, /"cwd":"\/"}$/, "bash did rewrite it");

  // 2. A validly signed log whose header names "/" (as if the key had signed anything).
  const key = loadSessionKey(join(dir.path, "state", "dsh", "keys"));
  (await SessionLog.create(join(ws, "logs", "forged.jsonl"), { id: "forged", cwd: "/", key }))
    .close();

  const second = await start(dir.path, [
    {
      toolCalls: [{
        id: "call_w",
        name: "write",
        args: { file_path: join(outside, "pwned.txt"), content: "x" },
      }],
    },
    { text: "Done." },
  ], "reject_once");
  try {
    await rejects(
      second.a.request("session/load", { sessionId, cwd: ws, mcpServers: [] }),
      {
        message:
          /^Cannot load session log ".*\.jsonl": it was changed by something other than the dsh agent \(the signature at line 2 does not match its content\), so it is not loaded/,
      },
    );
    await second.a.request("session/load", { sessionId: "forged", cwd: ws, mcpServers: [] });
    const { stopReason } = await second.a.request("session/prompt", {
      sessionId: "forged",
      prompt: [{ type: "text", text: "write outside" }],
    });
    equal(stopReason, "end_turn");
    match(
      said(second.updates),
      new RegExp(
        `This session was started in "/"; it now works in "${ws}", the folder the editor opened`,
      ),
    );
    // The write outside ws asked (and was rejected): the header's "/" widened nothing.
    equal(second.asked.length, 1, JSON.stringify(second.asked));
    match(second.asked[0]!, /pwned\.txt/);
    await rejects(Deno.lstat(join(outside, "pwned.txt")), Deno.errors.NotFound);
    // Ids that cannot name a log file get clear errors, not "not found".
    await rejects(
      second.a.request("session/load", { sessionId: "a".repeat(300), cwd: ws, mcpServers: [] }),
      {
        code: -32602,
        message: /the id is 300 characters long; the longest is 128 \(it names the log file/,
      },
    );
    await rejects(
      second.a.request("session/load", { sessionId: "../../etc/x", cwd: ws, mcpServers: [] }),
      { code: -32602, message: /a session id is letters, digits, "_" and "-" only/ },
    );
  } finally {
    await second.close();
  }
});

Deno.test("a sessions folder replaced by a symbolic link is refused, and nothing is written outside", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  const outside = join(dir.path, "outside");
  await Deno.mkdir(ws);
  await Deno.mkdir(outside);
  const first = await start(dir.path, [
    {
      toolCalls: [{
        id: "call_ln",
        name: "bash",
        args: { command: `mv logs logs.old && ln -s ${outside} logs` },
      }],
    },
    { text: "Done." },
  ], "allow_once");
  try {
    const { sessionId } = await first.a.request("session/new", { cwd: ws, mcpServers: [] });
    await first.a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    ok(Deno.lstatSync(join(ws, "logs")).isSymlink, "bash did replace the folder");
    await rejects(first.a.request("session/new", { cwd: ws, mcpServers: [] }), {
      message:
        /^Cannot use the sessions folder ".*ws\/logs": it was replaced while dsh was using it \(now a symbolic link\); nothing was written there$/,
    });
  } finally {
    await first.close();
  }
  // A fresh agent refuses the linked folder at start.
  const second = await start(dir.path, [{ text: "unused" }], "reject_once");
  try {
    await rejects(second.a.request("session/new", { cwd: ws, mcpServers: [] }), {
      message:
        /the sessions folder ".*ws\/logs": it is a symbolic link, and dsh never writes session logs through links/,
    });
  } finally {
    await second.close();
  }
  equal([...Deno.readDirSync(outside)].length, 0, "nothing was written outside");
});

Deno.test("an unsigned (old) log is refused with the import command, and loads once imported", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  const logs = join(ws, "logs");
  await Deno.mkdir(logs, { recursive: true });
  const old = await SessionLog.create(join(logs, "old1.jsonl"), { id: "old1", cwd: ws });
  old.append("user/message", { turn: 1, content: [{ type: "text", text: "from before" }] });
  old.close();
  const agent = await start(dir.path, [{ text: "unused" }], "reject_once");
  try {
    await rejects(agent.a.request("session/load", { sessionId: "old1", cwd: ws, mcpServers: [] }), {
      message:
        /it carries no signature .* To continue it anyway \(you vouch for its content\), run `deno task import-session <log\.jsonl>` in the workspace folder\.$/,
    });
    await Deno.mkdir(join(dir.path, "legacy"));
    await Deno.rename(join(logs, "old1.jsonl"), join(dir.path, "legacy", "old1.jsonl"));
    const imported = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        IMPORT,
        "../legacy/old1.jsonl",
        "--sessions-dir",
        logs,
      ],
      cwd: dir.path,
      clearEnv: true,
      env: { ...plainEnv(dir.path), XDG_STATE_HOME: join(dir.path, "state"), INIT_CWD: ws },
    }).output();
    const out = new TextDecoder().decode(imported.stdout) +
      new TextDecoder().decode(imported.stderr);
    equal(imported.code, 0, out);
    match(
      out,
      /^Imported session old1 \(1 events\) into .*ws\/logs\/old1\.jsonl; load it from the editor\.\n$/,
    );
    await agent.a.request("session/load", { sessionId: "old1", cwd: ws, mcpServers: [] });
    ok(
      agent.updates.some((u) =>
        u.sessionUpdate === "user_message_chunk" && u.content.type === "text" &&
        u.content.text === "from before"
      ),
    );
  } finally {
    await agent.close();
  }
});
