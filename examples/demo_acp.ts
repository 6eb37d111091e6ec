/**
 * The dsh demo: a session driven through the REAL ACP bridge by a real ACP client.
 *
 *     deno run --allow-read --allow-write --allow-env --allow-run=deno examples/demo_acp.ts
 *
 * (`deno task demo` in this repository.) It spawns the agent binary (`acp/main.ts`) under its computed Deno permission profile (never
 * `-A`), connects the SDK client over stdio, and prints the cards as a person would see them.
 *
 * - Offline (no `DEEPSEEK_API_KEY`): the config says `"model": {"provider": "demo"}`, so the
 *   built-in scripted model runs a shell command (terminal card), creates a file (diff card) and
 *   edits it behind a permission prompt (answered "Allow once"), all in a temporary folder. The
 *   agent never picks the scripted model on its own.
 * - With `DEEPSEEK_API_KEY`: `deno task demo "your prompt"` sends your prompt to DeepSeek
 *   (`deepseek-flash` in thinking mode unless `DEEPSEEK_MODEL` names another id such as
 *   `deepseek-v4-pro`; `DEEPSEEK_BASE_URL` points it elsewhere); its reasoning prints as thoughts,
 *   and edits and writes ask first (answer on the terminal, or "Allow once" when stdin is not a TTY).
 *
 * @module
 */
import {
  client,
  ndJsonStream,
  type SessionUpdate,
  type ToolCallContent,
} from "@agentclientprotocol/sdk";
import { structuredPatch } from "diff";
import { join, relative } from "node:path";
import { agentCommand } from "@dsh/harness/acp";
import { errorMessage } from "@dsh/harness/core";

const DIM = "\x1b[2m";
const BOLD = "\x1b[1m";
const GREEN = "\x1b[32m";
const RED = "\x1b[31m";
const CYAN = "\x1b[36m";
const RESET = "\x1b[0m";
const color = Deno.stdout.isTerminal();
function paint(code: string, text: string): string {
  return color ? code + text + RESET : text;
}

const apiKey = Deno.env.get("DEEPSEEK_API_KEY");
const userPrompt = Deno.args.join(" ").trim() ||
  (apiKey
    ? "Look around this folder and write a short notes.md about it."
    : "Show me what you can do.");

const root = await Deno.makeTempDir({ prefix: "dsh_demo_" });
const ws = join(root, "workspace");
const sessions = join(root, "sessions");
await Deno.mkdir(ws);
await Deno.mkdir(sessions);
const configText = JSON.stringify(
  {
    ...(apiKey ? {} : { model: { provider: "demo" } }),
    permissions: [
      { tool: "edit", decision: "ask", reason: "edits need your approval" },
      ...(apiKey ? [{ tool: "write", decision: "ask" }, { tool: "bash", decision: "ask" }] : []),
    ],
  },
  null,
  2,
);
await Deno.writeTextFile(join(ws, "dsh.jsonc"), configText);
// The agent binary under the permission profile its dsh.jsonc computes (never -A).
const agentRun = await agentCommand(ws, ["--sessions-dir", sessions, "--log-level", "warn"]);

const out = (line = "") => console.log(line);
const cards = new Map<string, { title: string; terminal: boolean; content: string }>();
let textOpen: "text" | "thought" | undefined;

function endText(): void {
  if (textOpen !== undefined) out();
  textOpen = undefined;
}

function show(path: string): string {
  const rel = relative(ws, path);
  return rel.startsWith("..") ? path : rel;
}

function printContent(items: readonly ToolCallContent[] | null | undefined): void {
  for (const item of items ?? []) {
    if (item.type === "diff") {
      const patch = structuredPatch(
        show(item.path),
        show(item.path),
        item.oldText ?? "",
        item.newText,
        "",
        "",
        {
          context: 2,
        },
      );
      out(
        `  │ ${
          paint(BOLD, item.oldText == null ? `new file ${show(item.path)}` : show(item.path))
        }`,
      );
      for (const hunk of patch.hunks) {
        out(
          `  │ ${
            paint(
              CYAN,
              `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
            )
          }`,
        );
        for (const line of hunk.lines.filter((l) => !l.startsWith("\\"))) {
          const tint = line.startsWith("+") ? GREEN : line.startsWith("-") ? RED : DIM;
          out(`  │ ${paint(tint, line)}`);
        }
      }
    } else if (item.type === "content" && item.content.type === "text") {
      for (const line of item.content.text.split("\n")) out(`  │ ${line}`);
    }
  }
}

function onUpdate(update: SessionUpdate): void {
  switch (update.sessionUpdate) {
    case "agent_message_chunk":
    case "agent_thought_chunk": {
      if (update.content.type !== "text") return;
      const kind = update.sessionUpdate === "agent_message_chunk" ? "text" : "thought";
      if (textOpen !== kind) {
        endText();
        Deno.stdout.writeSync(
          new TextEncoder().encode(
            kind === "text" ? paint(BOLD, "dsh: ") : paint(DIM, "(thinking) "),
          ),
        );
        textOpen = kind;
      }
      Deno.stdout.writeSync(
        new TextEncoder().encode(
          kind === "thought" ? paint(DIM, update.content.text) : update.content.text,
        ),
      );
      return;
    }
    case "tool_call": {
      endText();
      const terminal = update.content?.some((c) => c.type === "terminal") ?? false;
      const content = update.content?.filter((c) => c.type !== "terminal");
      cards.set(update.toolCallId, {
        title: update.title,
        terminal,
        content: JSON.stringify(content ?? []),
      });
      out(
        `  ┌ ${paint(CYAN, `[${update.kind ?? "other"}]`)} ${
          paint(BOLD, terminal ? `$ ${update.title}` : update.title)
        }`,
      );
      printContent(content);
      return;
    }
    case "tool_call_update": {
      const card = cards.get(update.toolCallId);
      const meta = (update._meta ?? {}) as {
        terminal_output?: { data: string };
        terminal_exit?: { exit_code?: number; signal?: string };
      };
      const data = meta.terminal_output?.data ?? "";
      if (data !== "") {
        for (const line of data.replace(/\n$/, "").split("\n")) out(`  │ ${paint(DIM, line)}`);
      }
      if (update.status !== "completed" && update.status !== "failed") return;
      // A result that repeats the pending card (a write's diff) is not printed twice.
      if (JSON.stringify(update.content ?? []) !== card?.content) printContent(update.content);
      const exit = meta.terminal_exit;
      const pill = exit?.signal
        ? ` (${exit.signal})`
        : exit?.exit_code !== undefined
        ? ` (exit ${exit.exit_code})`
        : "";
      out(
        `  └ ${
          update.status === "completed" ? paint(GREEN, "completed") : paint(RED, "failed")
        }${pill}`,
      );
      return;
    }
  }
}

function askPermission(
  title: string,
  options: { optionId: string; name: string; kind: string }[],
) {
  endText();
  out(
    `  ${paint(BOLD, "? Permission")} for ${paint(BOLD, title)}: ${
      options.map((o) => o.name).join(" / ")
    }`,
  );
  if (apiKey && Deno.stdin.isTerminal()) {
    const answer = prompt("    allow? [y = once, a = always, n = reject]", "y")?.trim()
      .toLowerCase();
    const kind = answer === "a" ? "allow_always" : answer === "n" ? "reject_once" : "allow_once";
    return options.find((o) => o.kind === kind)!.optionId;
  }
  const chosen = options.find((o) => o.kind === "allow_once")!;
  out(`    → ${paint(GREEN, chosen.name)}`);
  return chosen.optionId;
}

const app = client({ name: "dsh-demo" })
  .onNotification("session/update", ({ params }) => onUpdate(params.update))
  .onRequest("session/request_permission", async ({ params }) => {
    const optionId = await askPermission(
      params.toolCall.title ?? params.toolCall.toolCallId,
      params.options,
    );
    return { outcome: { outcome: "selected", optionId } };
  });

out(paint(BOLD, "dsh demo") + " — an ACP client talking to the dsh agent over stdio");
out(
  paint(
    DIM,
    `model: ${
      apiKey
        ? `DeepSeek ${Deno.env.get("DEEPSEEK_MODEL") ?? "deepseek-flash"} at ${
          Deno.env.get("DEEPSEEK_BASE_URL") ?? "https://api.deepseek.com"
        }`
        : "built-in scripted demo (offline; set DEEPSEEK_API_KEY for deepseek-flash)"
    } · workspace: ${ws}`,
  ),
);
out(
  paint(
    DIM,
    `agent: ${agentRun.command} ${agentRun.args.join(" ").replaceAll(root, "$DEMO")}`,
  ),
);
out();
const child = new Deno.Command(agentRun.command, {
  args: [...agentRun.args],
  cwd: ws,
  env: apiKey ? { DEEPSEEK_API_KEY: apiKey } : {},
  stdin: "piped",
  stdout: "piped",
  stderr: "inherit",
}).spawn();
const connection = app.connect(ndJsonStream(child.stdin, child.stdout));
try {
  const a = connection.agent;
  const init = await a.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: { _meta: { terminal_output: true } },
    clientInfo: { name: "dsh-demo", version: "1" },
  });
  out(
    paint(
      DIM,
      `connected to ${init.agentInfo?.name} ${init.agentInfo?.version} (loadSession: ${init.agentCapabilities?.loadSession})`,
    ),
  );
  const { sessionId } = await a.request("session/new", { cwd: ws, mcpServers: [] });
  out(`${paint(BOLD, "you:")} ${userPrompt}`);
  let stopReason: string;
  try {
    ({ stopReason } = await a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: userPrompt }],
    }));
  } catch (error) {
    stopReason = `error (${errorMessage(error)})`;
    Deno.exitCode = 1;
  }
  endText();
  out();
  out(
    paint(DIM, `turn ended: ${stopReason} · session log: ${join(sessions, `${sessionId}.jsonl`)}`),
  );
  for await (const entry of Deno.readDir(ws)) {
    if (entry.isFile && entry.name !== "dsh.jsonc") {
      out(paint(DIM, `--- ${entry.name} ---`));
      out((await Deno.readTextFile(join(ws, entry.name))).trimEnd());
    }
  }
} finally {
  connection.close();
  await connection.closed.catch(() => {});
  await child.stdin.close().catch(() => {});
  await child.status;
  if (!Deno.env.get("DSH_DEMO_KEEP")) await Deno.remove(root, { recursive: true }).catch(() => {});
}
