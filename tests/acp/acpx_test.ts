/**
 * A real ACP client no one here wrote: acpx 0.19.1 (test_deps) drives the agent binary headless
 * (`exec --format json`) under its computed permission profile; we assert the cards and the
 * permission answers it reports.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { parseConfig } from "../../acp/config.ts";
import { permissionFlags } from "../../acp/permissions.ts";
import { HANG_GUARD_MS, tempDir } from "../_helpers.ts";

const ACPX = new URL("../../test_deps/node_modules/.bin/acpx", import.meta.url).pathname;
const MAIN = new URL("../../acp/main.ts", import.meta.url).pathname;

interface Frame {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
}

async function runAcpx(
  root: string,
  options: {
    config: string;
    script: unknown[];
    approval: "--approve-all" | "--deny-all";
    files?: Record<string, string>;
  },
): Promise<{ frames: Frame[]; ws: string }> {
  const ws = join(root, "ws");
  const sessions = join(root, "sessions");
  await Deno.mkdir(ws);
  await Deno.mkdir(sessions);
  await Deno.writeTextFile(join(ws, "dsh.jsonc"), options.config);
  for (const [name, text] of Object.entries(options.files ?? {})) {
    await Deno.writeTextFile(join(ws, name), text);
  }
  const script = join(root, "script.json");
  await Deno.writeTextFile(script, JSON.stringify(options.script));
  const flags = permissionFlags(parseConfig(options.config, "dsh.jsonc"), {
    roots: [ws],
    sessionsDir: sessions,
    readOnly: [script],
    tmpDir: root,
    useDeepSeek: false,
  });
  const agent = [
    Deno.execPath(),
    "run",
    "--quiet",
    ...flags,
    MAIN,
    "--script",
    script,
    "--sessions-dir",
    sessions,
  ].join(" ");
  const { code, stdout, stderr } = await new Deno.Command(ACPX, {
    args: [
      "--cwd",
      ws,
      options.approval,
      "--format",
      "json",
      "--timeout", // a hang guard for the whole run
      String(5 * HANG_GUARD_MS / 1000),
      "--agent",
      agent,
      "exec",
      "go",
    ],
    cwd: ws,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: root },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout);
  // acpx exits 5 when it denied a permission request.
  equal(
    code,
    options.approval === "--deny-all" ? 5 : 0,
    `acpx failed (${code}): ${new TextDecoder().decode(stderr)}\n${text}`,
  );
  const frames = text.split("\n").filter((l) => l.startsWith("{")).map((l) =>
    JSON.parse(l) as Frame
  );
  return { frames, ws };
}

function updates(frames: Frame[]): Record<string, unknown>[] {
  return frames.filter((f) => f.method === "session/update").map((f) =>
    f.params!.update as Record<string, unknown>
  );
}

const WRITE_SCRIPT = [
  {
    toolCalls: [{ id: "call_1", name: "write", args: { file_path: "n.txt", content: "hi\n" } }],
    text: "Writing.",
  },
  { text: "Done." },
];
const ASK_WRITE = '{ "permissions": [{ "tool": "write", "decision": "ask" }] }';

Deno.test("acpx --approve-all answers allow_once and sees the diff card complete", async () => {
  await using root = await tempDir("dsh_acpx_");
  const { frames, ws } = await runAcpx(root.path, {
    config: ASK_WRITE,
    script: WRITE_SCRIPT,
    approval: "--approve-all",
  });
  const ask = frames.find((f) => f.method === "session/request_permission");
  ok(ask, "no permission request");
  const toolCall = ask.params!.toolCall as Record<string, unknown>;
  deepEqual(toolCall.content, [{
    type: "diff",
    path: join(ws, "n.txt"),
    oldText: null,
    newText: "hi\n",
  }]);
  const answer = frames.find((f) =>
    f.id === ask.id && f.result !== undefined && f.method === undefined && "outcome" in f.result
  );
  deepEqual(answer?.result, { outcome: { outcome: "selected", optionId: "allow_once" } });
  const cards = updates(frames).filter((u) => String(u.sessionUpdate).startsWith("tool_call"));
  deepEqual(cards.map((u) => [u.sessionUpdate, u.status, u.kind ?? null]), [
    ["tool_call", "in_progress", "edit"],
    // Pending while acpx is asked, running once allowed.
    ["tool_call_update", "pending", null],
    ["tool_call_update", "in_progress", null],
    ["tool_call_update", "completed", null],
  ]);
  equal(await Deno.readTextFile(join(ws, "n.txt")), "hi\n");
  const stop = frames.find((f) => f.result && "stopReason" in f.result);
  equal(stop?.result?.stopReason, "end_turn");
});

Deno.test("acpx --deny-all answers reject_once and the write fails without touching the file", async () => {
  await using root = await tempDir("dsh_acpx_");
  const { frames, ws } = await runAcpx(root.path, {
    config: ASK_WRITE,
    script: WRITE_SCRIPT,
    approval: "--deny-all",
  });
  const ask = frames.find((f) => f.method === "session/request_permission");
  ok(ask);
  const answer = frames.find((f) =>
    f.id === ask.id && f.result !== undefined && f.method === undefined && "outcome" in f.result
  );
  deepEqual(answer?.result, { outcome: { outcome: "selected", optionId: "reject_once" } });
  const statuses = updates(frames).filter((u) => u.sessionUpdate === "tool_call_update")
    .map((u) => u.status);
  deepEqual(statuses, ["pending", "failed"]);
  await Deno.stat(join(ws, "n.txt")).then(() => ok(false, "file was written"), () => {});
});

Deno.test("acpx sees a read card with locations and a generic failure card", async () => {
  await using root = await tempDir("dsh_acpx_");
  const script = [
    {
      toolCalls: [{ id: "call_1", name: "read", args: { file_path: "a.txt" } }, {
        id: "call_2",
        name: "nope",
        args: {},
      }],
    },
    { text: "Read it." },
  ];
  const { frames, ws } = await runAcpx(root.path, {
    config: "{}",
    script,
    approval: "--approve-all",
    files: { "a.txt": "alpha\n" },
  });
  const cards = updates(frames).filter((u) => String(u.sessionUpdate).startsWith("tool_call"));
  const read = cards.find((u) => u.toolCallId === "call_1" && u.sessionUpdate === "tool_call");
  equal(read?.kind, "read");
  deepEqual(read?.locations, [{ path: join(ws, "a.txt"), line: 1 }]);
  const nope = cards.filter((u) => u.toolCallId === "call_2");
  deepEqual(nope.map((u) => [u.sessionUpdate, u.status]), [["tool_call", "in_progress"], [
    "tool_call_update",
    "failed",
  ]]);
  equal(frames.some((f) => f.method === "session/request_permission"), false);
});

Deno.test("acpx sees a bash terminal card with the console fallback and the raw output", async () => {
  await using root = await tempDir("dsh_acpx_");
  const script = [
    { toolCalls: [{ id: "call_1", name: "bash", args: { command: "echo ACPX_OK" } }] },
    { text: "Ran it." },
  ];
  const { frames } = await runAcpx(root.path, { config: "{}", script, approval: "--approve-all" });
  const cards = updates(frames).filter((u) => u.toolCallId === "call_1");
  equal(cards[0]?.kind, "execute");
  equal(cards[0]?.title, "echo ACPX_OK");
  const done = cards.at(-1)!;
  equal(done.status, "completed");
  deepEqual(done.content, [{
    type: "content",
    content: { type: "text", text: "```console\nACPX_OK\n```" },
  }]);
  deepEqual(done.rawOutput, { output: "ACPX_OK\n", exit_code: 0 });
  // acpx advertises terminal: true but not _meta.terminal_output: no client terminal is created.
  equal(frames.some((f) => f.method === "terminal/create"), false);
});
