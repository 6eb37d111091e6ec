/**
 * A real ACP client no one here wrote (acpx 0.19.1, test_deps) shows dsh's plugin notices: they
 * are sent inside a turn, where acpx prints them, and carry no ANSI codes.
 */
import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { trustFolder } from "./_trust_fixture.ts";
import { parseConfig } from "../../acp/config.ts";
import { permissionFlags } from "../../acp/permissions.ts";
import { tempDir } from "../_helpers.ts";

const ACPX = new URL("../../test_deps/node_modules/.bin/acpx", import.meta.url).pathname;
const MAIN = new URL("../../acp/main.ts", import.meta.url).pathname;

Deno.test("acpx shows a plugin's load error, inside the turn and without ANSI codes", async () => {
  await using root = await tempDir("dsh_acpx_plugin_");
  const ws = join(root.path, "ws");
  const sessions = join(root.path, "sessions");
  await Deno.mkdir(join(ws, "tools"), { recursive: true });
  await Deno.mkdir(sessions);
  // A bare import: Deno's message for it is coloured even through a pipe.
  await Deno.writeTextFile(
    join(ws, "tools", "broken.ts"),
    'import { format } from "date-fns";\nexport function apply() { void format; }\n',
  );
  const config = JSON.stringify({ plugins: ["./tools/broken.ts"] });
  await Deno.writeTextFile(join(ws, "dsh.jsonc"), config);
  const script = join(root.path, "script.json");
  await Deno.writeTextFile(script, JSON.stringify([{ text: "Hello." }]));
  const flags = permissionFlags(parseConfig(config, "dsh.jsonc"), {
    roots: [ws],
    sessionsDir: sessions,
    readOnly: [script, new URL("../../", import.meta.url).pathname],
    tmpDir: root.path,
    useDeepSeek: false,
  });
  // The plugin needs the user's trust (HOME is the temp folder).
  await trustFolder(ws, root.path);
  const agent = [Deno.execPath(), "run", "--quiet", ...flags, MAIN, "--script", script].join(" ");
  const { code, stdout, stderr } = await new Deno.Command(ACPX, {
    args: [
      "--cwd",
      ws,
      "--deny-all",
      "--format",
      "json",
      "--timeout",
      "60",
      "--agent",
      agent,
      "exec",
      "go",
    ],
    cwd: ws,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: root.path },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout);
  equal(code, 0, `acpx failed (${code}): ${new TextDecoder().decode(stderr)}\n${text}`);
  const chunks = text.split("\n").filter((l) => l.startsWith("{")).flatMap((l) => {
    const frame = JSON.parse(l) as {
      method?: string;
      params?: { update?: Record<string, unknown> };
    };
    const update = frame.params?.update;
    if (frame.method !== "session/update" || update?.sessionUpdate !== "agent_message_chunk") {
      return [];
    }
    return [String((update.content as { text?: unknown }).text)];
  });
  const notice = chunks.find((c) => c.includes("Cannot load plugin"));
  ok(notice, text);
  match(notice, /\[dsh\] Cannot load plugin "\.\/tools\/broken\.ts": /);
  equal(notice.includes("\u001b"), false, JSON.stringify(notice));
  match(notice, /"npm:date-fns@<version>"/);
  // Said before the model's answer, in the same turn.
  ok(chunks.indexOf(notice) < chunks.findIndex((c) => c.includes("Hello.")));
});
