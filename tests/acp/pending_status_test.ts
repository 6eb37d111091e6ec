/**
 * Issue 20: while permission is asked, the card the user sees is `pending`, whatever asked (a
 * dsh.jsonc rule, `defaultDecision`, the workspace policy, a Code Mode sub-call), and it runs
 * (`in_progress`) only once allowed. Driven by acpx (a real ACP client) against the agent binary.
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
  params?: Record<string, unknown> & { update?: Record<string, unknown> };
}

/** Runs one acpx `exec` (approve all) and returns the frames it saw. */
async function run(
  root: string,
  config: string,
  script: unknown[],
  extraRoot?: string,
): Promise<Frame[]> {
  const ws = join(root, "ws");
  const sessions = join(root, "sessions");
  await Deno.mkdir(ws);
  await Deno.mkdir(sessions);
  await Deno.writeTextFile(join(ws, "dsh.jsonc"), config);
  await Deno.writeTextFile(join(ws, "a.txt"), "alpha\n");
  const scriptFile = join(root, "script.json");
  await Deno.writeTextFile(scriptFile, JSON.stringify(script));
  const flags = permissionFlags(parseConfig(config, "dsh.jsonc"), {
    roots: [ws, ...(extraRoot === undefined ? [] : [extraRoot])],
    sessionsDir: sessions,
    readOnly: [scriptFile],
    tmpDir: root,
    useDeepSeek: false,
  });
  const agent = [Deno.execPath(), "run", "--quiet", ...flags, MAIN, "--script", scriptFile]
    .concat(["--sessions-dir", sessions]).join(" ");
  const { code, stdout, stderr } = await new Deno.Command(ACPX, {
    args: [
      "--cwd",
      ws,
      "--approve-all",
      "--format",
      "json",
      "--timeout",
      String(5 * HANG_GUARD_MS / 1000),
      "--agent",
      agent,
    ]
      .concat(["exec", "go"]),
    cwd: ws,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: root, TMPDIR: root },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout);
  equal(code, 0, `acpx failed (${code}): ${new TextDecoder().decode(stderr)}\n${text}`);
  return text.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Frame);
}

/**
 * The status of every shown card at the moment of each permission request, and each card's
 * whole status history.
 */
function statuses(frames: Frame[]) {
  const current = new Map<string, string>();
  const history = new Map<string, string[]>();
  const atAsk: Record<string, string | undefined>[] = [];
  for (const frame of frames) {
    const update = frame.params?.update;
    if (
      frame.method === "session/update" && String(update?.sessionUpdate).startsWith("tool_call")
    ) {
      const id = String(update!.toolCallId);
      if (typeof update!.status === "string") {
        current.set(id, update!.status);
        history.set(id, [...(history.get(id) ?? []), update!.status]);
      }
    }
    if (frame.method === "session/request_permission") atAsk.push(Object.fromEntries(current));
  }
  return { atAsk, history: Object.fromEntries(history) };
}

const WRITE = [
  { toolCalls: [{ id: "call_1", name: "write", args: { file_path: "n.txt", content: "hi\n" } }] },
  { text: "Done." },
];

Deno.test("a card waiting on a dsh.jsonc rule's ask, or on defaultDecision, is pending", async (t) => {
  for (
    const [label, config] of <[string, string][]> [
      ["rule", '{ "permissions": [{ "tool": "write", "decision": "ask", "reason": "writes" }] }'],
      ["defaultDecision", '{ "defaultDecision": "ask" }'],
    ]
  ) {
    await t.step(label, async () => {
      await using root = await tempDir("dsh_pending_");
      const { atAsk, history } = statuses(await run(root.path, config!, WRITE));
      deepEqual(atAsk, [{ call_1: "pending" }]);
      deepEqual(history.call_1, ["in_progress", "pending", "in_progress", "completed"]);
    });
  }
});

Deno.test("a card waiting on the workspace policy's ask (a write outside the workspace) is pending", async () => {
  await using root = await tempDir("dsh_pending_");
  const outside = join(root.path, "outside");
  await Deno.mkdir(outside);
  const target = join(outside, "o.txt");
  const { atAsk, history } = statuses(
    await run(root.path, "{}", [
      { toolCalls: [{ id: "call_1", name: "write", args: { file_path: target, content: "x" } }] },
      { text: "Done." },
    ], outside),
  );
  deepEqual(atAsk, [{ call_1: "pending" }]);
  deepEqual(history.call_1, ["in_progress", "pending", "in_progress", "completed"]);
  equal(await Deno.readTextFile(target), "x");
});

Deno.test("a run_code card whose sub-call waits on a rule's ask is pending meanwhile", async () => {
  await using root = await tempDir("dsh_pending_");
  const code = "await tools.write({ file_path: 'n.txt', content: 'hi\\n' });\nreturn 'written';";
  const frames = await run(
    root.path,
    '{ "toolMode": "code", "permissions": [{ "tool": "write", "decision": "ask" }] }',
    [
      { toolCalls: [{ id: "call_1", name: "run_code", args: { description: "Write", code } }] },
      { text: "Done." },
    ],
  );
  const { atAsk, history } = statuses(frames);
  equal(atAsk.length, 1);
  equal(atAsk[0]!.call_1, "pending");
  deepEqual(history.call_1, ["in_progress", "pending", "in_progress", "completed"]);
  ok(frames.some((f) => f.method === "session/request_permission"));
});
