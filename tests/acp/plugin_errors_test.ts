/**
 * Plugin errors as a newcomer meets them, through the real launcher and agent: a missing plugin,
 * an `npm:` import (which must not touch this package's deno.lock) and a tool that needs a
 * permission the plugin did not declare. Plus the translations themselves.
 */
import { equal, match, ok } from "node:assert/strict";
import { client, type SessionUpdate } from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { trustFolder } from "./_trust_fixture.ts";
import { spawnAgentProcess } from "../../acp/_agent_process.ts";
import { cleanDenoText, permissionErrorText, pluginErrorText } from "../../acp/_plugin_errors.ts";
import { tempDir } from "../_helpers.ts";

const LOCK = new URL("../../deno.lock", import.meta.url);

const NET_PLUGIN = `import isNumber from "npm:is-number@7.0.0";
export const name = "net";
export const inject = ["tools"];
export function apply(ctx) {
  ctx.get("tools").register({
    name: "fetch_it",
    description: "Fetches a page.",
    parameters: { type: "object" },
    async execute() {
      await fetch("https://example.com/");
      return [{ type: "text", text: String(isNumber(1)) }];
    },
  });
}
`;

Deno.test("the real agent: a missing plugin, an npm import and an undeclared permission read as the user can act on them", async () => {
  await using dir = await tempDir();
  const ws = join(dir.path, "ws");
  await Deno.mkdir(join(ws, "tools"), { recursive: true });
  await Deno.writeTextFile(join(ws, "tools", "net.js"), NET_PLUGIN);
  await Deno.writeTextFile(
    join(ws, "dsh.jsonc"),
    JSON.stringify({ plugins: ["./tools/net.js", "./tools/missing.ts"] }),
  );
  const script = join(dir.path, "script.json");
  await Deno.writeTextFile(
    script,
    JSON.stringify([
      { toolCalls: [{ id: "call_1", name: "fetch_it", args: {} }] },
      { text: "Done." },
    ]),
  );
  // The plugins need the user's trust: recorded under a temp config folder (HOME stays the
  // parent's, for Deno's cache).
  await trustFolder(ws, dir.path);
  const lockBefore = await Deno.readFile(LOCK);
  const updates: SessionUpdate[] = [];
  const app = client({ name: "plugin-errors" })
    .onNotification("session/update", ({ params }) => void updates.push(params.update));
  const state = join(dir.path, "state");
  // The parent's environment (npm registry access and Deno's cache for the npm import), with the
  // user's state directory in the temp folder.
  const agent = spawnAgentProcess(app, {
    main: new URL("../../acp/launch.ts", import.meta.url),
    permissions: ["--allow-read", "--allow-env", "--allow-run=deno"],
    args: ["--sessions-dir", join(dir.path, "sessions"), "--script", script],
    cwd: ws,
    // INIT_CWD: `deno task test` sets it, and the launcher takes it for the workspace.
    env: {
      XDG_STATE_HOME: state,
      XDG_CONFIG_HOME: join(dir.path, ".config"),
      DEEPSEEK_API_KEY: "",
      INIT_CWD: ws,
    },
  });
  try {
    const a = agent.connection.agent;
    await a.request("initialize", { protocolVersion: 1 });
    const { sessionId } = await a.request("session/new", { cwd: ws, mcpServers: [] });
    const { stopReason } = await a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "fetch it" }],
    });
    equal(stopReason, "end_turn");
  } finally {
    await agent.close();
  }
  const wire = JSON.stringify(updates);
  const stderr = agent.stderr();
  ok(/fetch_it/.test(stderr) || wire.includes("Requires net access"), `${stderr}\n${wire}`);
  // The missing plugin: its path and a plain reason, in the editor and on stderr.
  const missing = join(ws, "tools", "missing.ts");
  ok(
    wire.includes(
      JSON.stringify(
        `Cannot load plugin "./tools/missing.ts": the file ${
          JSON.stringify(missing)
        } does not exist`,
      ).slice(1, -1),
    ),
    wire,
  );
  match(
    stderr,
    /Cannot read the permissions of plugin "\.\/tools\/missing\.ts": the file .* does not exist/,
  );
  equal(/data:application|base64|Stack backtrace|<unknown>/.test(stderr + wire), false, stderr);
  // The undeclared permission names the plugin's export, not a Deno flag.
  const result = updates.find((u) =>
    u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_1" && u.status === "failed"
  );
  const text = JSON.stringify(result);
  match(
    text,
    /Requires net access to \\"example\.com:443\\": add `export const permissions = \{ net: \[\\"example\.com:443\\"\] \}` to plugin \\"\.\/tools\/net\.js\\"/,
  );
  equal(text.includes("--allow-net"), false);
  // The npm import loaded (its tool ran) and was locked in the plugins' own lock only.
  equal(new TextDecoder().decode(await Deno.readFile(LOCK)), new TextDecoder().decode(lockBefore));
  match(await Deno.readTextFile(join(state, "dsh", "plugins.deno.lock")), /is-number@7\.0\.0/);
});

Deno.test("pluginErrorText() strips ANSI and the backtrace, and names what works for a bare import", () => {
  const deno =
    'Import "date-fns" not a dependency and not in import map from "file:///w/tools/a.ts"\n' +
    "  \u001b[0m\u001b[36mhint:\u001b[0m If you want to use the npm package, try running `deno add npm:date-fns`\n" +
    "    at \u001b[0m\u001b[36mfile:///w/tools/a.ts\u001b[0m:1:24";
  const text = pluginErrorText(new TypeError(deno), "./tools/a.ts");
  equal(
    text,
    '"/w/tools/a.ts" imports "date-fns" by its bare name, which the agent cannot resolve: it reads no import map or package.json of your project (a deno.json entry does not reach it). Import it with a version instead: "npm:date-fns@<version>" (or "jsr:@scope/name@<version>" for a JSR package)',
  );
  equal(
    cleanDenoText(
      "\u001b[1m\u001b[31merror\u001b[0m: boom\n    at data:application/typescript;base64,aW1w:1:8\n\nStack backtrace:\n   0: <unknown>\n",
    ),
    "error: boom",
  );
  equal(pluginErrorText("\u001b[31mred\u001b[0m and \u202e", "p"), "red and \\u202e");
});

Deno.test("permissionErrorText() names the plugin's permissions export for each kind", () => {
  equal(
    permissionErrorText(
      'Requires env access to "GH_TOKEN", run again with the --allow-env flag',
      "./gh.ts",
    ),
    'Requires env access to "GH_TOKEN": add `export const permissions = { env: ["GH_TOKEN"] }` to plugin "./gh.ts" and restart the agent (it grants what its plugins declare)',
  );
  match(
    permissionErrorText(
      'Requires read access to "/etc/x", run again with the --allow-read flag',
      "p",
    )!,
    /permissions = \{ read: \["\/etc\/x"\] \}/,
  );
  match(
    permissionErrorText(
      'Requires ffi access to "/x.so", run again with the --allow-ffi flag',
      "p",
    )!,
    /cannot be granted ffi access/,
  );
  equal(permissionErrorText("some other error", "p"), undefined);
});
