import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { client, type SessionUpdate } from "@agentclientprotocol/sdk";
import { join } from "node:path";
import { spawnAgentProcess } from "../../acp/_agent_process.ts";
import { agentCommand } from "../../acp/launch.ts";
import { probePluginPermissions, resolvePlugins } from "../../acp/plugin_permissions.ts";
import { tempDir } from "../_helpers.ts";
import { plainEnv } from "./_snapshot.ts";
import { trustFolder } from "./_trust_fixture.ts";

/** The user's tool, as a plugin file that imports the package by name. */
function wordCount(version: string, extra = ""): string {
  return `import { defineTool, type ToolsContext as Context } from "@dsh/harness";

export const name = "word-count";
export const inject = ["tools"];
export const permissions = { env: ["WORD_COUNT_LABEL"] };

export function apply(ctx: Context) {
  ${extra}
  ctx.tools.register(defineTool({
    name: "word_count",
    description: "Counts the words of a text.",
    parameters: { text: { type: "string", required: true } },
    execute(args) {
      const label = Deno.env.get("WORD_COUNT_LABEL");
      const words = args.text.split(/\\s+/).length;
      return Promise.resolve([{ type: "text", text: \`${version} \${label}: \${words} words\` }]);
    },
  }));
}
`;
}

/**
 * A loopback server speaking DeepSeek's streamed chat completions: it calls `word_count` when the
 * last message is the user's, and answers with the tool's text once the result is back.
 */
function loopbackDeepSeek() {
  const requests: { tools: string[] }[] = [];
  let calls = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.json() as {
      messages: { role: string; content: string | null }[];
      tools?: { function: { name: string } }[];
    };
    requests.push({ tools: (body.tools ?? []).map((t) => t.function.name) });
    const last = body.messages.at(-1)!;
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const events = last.role === "tool"
      ? [chunk({ content: `The tool said: ${last.content}` }), chunk({}, "stop")]
      : [
        chunk({
          tool_calls: [{
            index: 0,
            id: `call_${++calls}`,
            type: "function",
            function: { name: "word_count", arguments: '{"text":"one two three"}' },
          }],
        }),
        chunk({}, "tool_calls"),
      ];
    return new Response(events.join("") + "data: [DONE]\n\n", {
      headers: { "content-type": "text/event-stream" },
    });
  });
  return {
    baseUrl: `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`,
    requests,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

async function until<T>(what: string, probe: () => T | undefined): Promise<T> {
  // A failure guard only: the condition normally holds within a few hundred milliseconds.
  for (let i = 0; i < 1200; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

Deno.test("a dsh.jsonc plugin reaches the editor, reloads on save and survives broken edits", async () => {
  await using dir = await tempDir();
  await using model = loopbackDeepSeek();
  const ws = join(dir.path, "ws");
  await Deno.mkdir(join(ws, "tools"), { recursive: true });
  const plugin = join(ws, "tools", "word_count.ts");
  await Deno.writeTextFile(plugin, wordCount("v1"));
  await Deno.writeTextFile(
    join(ws, "dsh.jsonc"),
    JSON.stringify({
      model: { provider: "deepseek", baseUrl: model.baseUrl },
      plugins: ["./tools/word_count.ts"],
    }),
  );
  // The plugin and the endpoint need the user's trust (HOME is the temp dir).
  await trustFolder(ws, dir.path);
  const updates: SessionUpdate[] = [];
  let reloadPrompts = 0;
  const app = client({ name: "plugins" })
    .onNotification("session/update", ({ params }) => void updates.push(params.update))
    // The user's own save: one click on "Reload plugin".
    .onRequest("session/request_permission", ({ params }) => {
      const reload = params.options.some((o) => o.optionId === "reload");
      if (reload) reloadPrompts++;
      return { outcome: { outcome: "selected", optionId: reload ? "reload" : "allow_once" } };
    });
  // The real launcher (`deno task agent`): it probes the plugin and runs the agent under the profile.
  const agent = spawnAgentProcess(app, {
    main: new URL("../../acp/launch.ts", import.meta.url),
    permissions: ["--allow-read", "--allow-env", "--allow-run=deno"],
    args: ["--sessions-dir", join(dir.path, "sessions")],
    cwd: ws,
    clearEnv: true,
    env: { ...plainEnv(dir.path), DEEPSEEK_API_KEY: "sk-test", WORD_COUNT_LABEL: "counted" },
  });
  const texts = () =>
    updates.flatMap((u) =>
      u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []
    );
  const notice = (pattern: RegExp, from: number) =>
    until(`a notice matching ${pattern}`, () => texts().slice(from).find((t) => pattern.test(t)));
  const held = () =>
    (agent.stderr().match(/the change is held until the user approves/g) ?? []).length;
  const saved = (count: number) => until("the held change", () => held() >= count || undefined);
  try {
    const a = agent.connection.agent;
    await a.request("initialize", { protocolVersion: 1 });
    const { sessionId } = await a.request("session/new", { cwd: ws, mcpServers: [] });
    const ask = async (): Promise<string> => {
      const from = updates.length;
      const { stopReason } = await a.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "count my words" }],
      });
      equal(stopReason, "end_turn");
      const turn = updates.slice(from) as unknown as Record<string, unknown>[];
      const card = turn.find((u) => u.sessionUpdate === "tool_call" && u.title === "word_count");
      ok(card !== undefined, JSON.stringify(turn));
      const done = turn.find((u) =>
        u.sessionUpdate === "tool_call_update" && u.toolCallId === card.toolCallId &&
        u.status !== undefined
      );
      equal(done?.status, "completed", JSON.stringify(done));
      return JSON.stringify(done?.content);
    };

    // The card arrives, and the declared env permission was granted to the agent.
    match(await ask(), /v1 counted: 3 words/);
    ok(model.requests[0]!.tools.includes("word_count"));

    // Save a new version the way many editors do (write a temp file, rename it over the old
    // one): the next prompt asks first, and once approved its call uses it.
    let seen = texts().length;
    await Deno.writeTextFile(`${plugin}.tmp`, wordCount("v2"));
    await Deno.rename(`${plugin}.tmp`, plugin);
    await saved(1);
    match(await ask(), /v2 counted: 3 words/);
    equal(reloadPrompts, 1);
    await notice(/Reloaded plugin "\.\/tools\/word_count\.ts" \(version 2\)/, seen);

    // Broken edits keep v2 and tell the user why. A type error is found by `deno check`, which
    // runs beside the reload (so the reload waits for no check): a call in the same turn may
    // still meet the edit, and the failure then puts v2 back for the next one.
    const broken: [string, RegExp][] = [
      [wordCount("v3").replace("export function apply", "export function apply("), /SyntaxError/],
      [wordCount("v3", 'const n: number = "not a number";'), /deno check failed[\s\S]*TS2322/],
      [wordCount("v3", 'throw new Error("apply blew up");'), /apply blew up/],
    ];
    const failure = (from: number) =>
      texts().slice(from).find((t) => /Cannot reload plugin/.test(t));
    for (const [index, [source, reason]] of broken.entries()) {
      seen = texts().length;
      await Deno.writeTextFile(plugin, source);
      await saved(2 + index);
      if (index === 1) {
        match(await ask(), /v[23] counted: 3 words/);
        // Notices reach the editor inside turns: ask until the check's failure arrives (a hang
        // guard, not a budget).
        for (let i = 0; i < 600 && failure(seen) === undefined; i++) {
          await new Promise((r) => setTimeout(r, 100));
          await ask();
        }
      }
      match(await ask(), /v2 counted: 3 words/);
      const text = await notice(/Cannot reload plugin/, seen);
      match(text, /keeping the previous version/);
      match(text, reason);
      equal(text.includes("\u001b"), false, "ANSI codes reach the editor");
    }
  } finally {
    await agent.close();
  }
  match(
    agent.stderr(),
    /\[dsh\] dsh-agent \S+ · model \S+ · sandbox [^·]+ · config .*dsh\.jsonc · \d+ tools/,
  );
  match(agent.stderr(), /Cannot reload plugin "\.\/tools\/word_count\.ts"/);
});

Deno.test("agentCommand() grants what the listed plugins declare, and nothing for unlisted ones", async () => {
  await using dir = await tempDir();
  const tools = join(dir.path, "tools");
  await Deno.mkdir(tools);
  const declare = (permissions: string) =>
    `import { defineTool } from "@dsh/harness";\nexport const permissions = ${permissions};\n` +
    `export function apply() { void defineTool; }\n`;
  await Deno.writeTextFile(
    join(tools, "gh.ts"),
    declare('{ net: ["api.github.com"], read: ["data"], run: ["gh"], env: ["GH_TOKEN"] }'),
  );
  await Deno.writeTextFile(join(tools, "unlisted.ts"), declare('{ net: ["evil.example"] }'));
  // Top-level code runs in the probe without permissions: this one cannot read the env.
  await Deno.writeTextFile(
    join(tools, "greedy.ts"),
    `export const permissions = { net: [Deno.env.get("HOST") ?? "x"] };\nexport function apply() {}\n`,
  );
  await Deno.writeTextFile(
    join(dir.path, "dsh.jsonc"),
    // inherit "core": the agent's --allow-env is a named list, so GH_TOKEN must be added to it.
    JSON.stringify({ plugins: ["./tools/gh.ts", "./tools/greedy.ts"], env: { inherit: "core" } }),
  );
  await trustFolder(dir.path, dir.path);
  const { args } = await agentCommand(
    dir.path,
    [],
    (name) => name === "HOME" ? dir.path : undefined,
  );
  // Its own lock copy: a plugin's npm: imports never land in this package's deno.lock.
  ok(args.some((a) => /^--lock=.*plugins\.deno\.lock$/.test(a)), args.join(" "));
  const flag = (name: string) => args.find((a) => a.startsWith(`--allow-${name}=`)) ?? "";
  ok(flag("net").split(/[=,]/).includes("api.github.com"), flag("net"));
  ok(!flag("net").includes("evil.example"));
  ok(!flag("net").includes(",x"));
  ok(flag("read").split(/[=,]/).includes(join(tools, "data")), flag("read"));
  ok(flag("read").split(/[=,]/).includes(tools), flag("read"));
  ok(flag("run").split(/[=,]/).includes("gh"));
  ok(flag("env").split(/[=,]/).includes("GH_TOKEN"));
  deepEqual(args.filter((a) => a === "-A" || a === "--allow-all"), []);
});

Deno.test("probePluginPermissions() gives up on top-level code that never finishes", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "busy.ts");
  await Deno.writeTextFile(file, "setInterval(() => {}, 1000);\nexport function apply() {}\n");
  const [plugin] = resolvePlugins([file], dir.path);
  await rejects(probePluginPermissions(plugin!, { timeoutMs: 300 }), {
    message: `Cannot read the permissions of plugin ${
      JSON.stringify(file)
    } (imported with no permissions): its top-level code did not finish within 300 ms`,
  });
});

Deno.test("probePluginPermissions() rejects a malformed declaration with its kind", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "bad.ts");
  await Deno.writeTextFile(file, 'export const permissions = { ffi: ["x"] };\n');
  const [plugin] = resolvePlugins([file], dir.path);
  await rejects(probePluginPermissions(plugin!), {
    name: "TypeError",
    message: `Cannot grant the permissions of plugin ${
      JSON.stringify(file)
    }: unknown kind "ffi": expected net, read, write, run, env`,
  });
});

Deno.test("probePluginPermissions() says top-level code runs unprivileged, without Deno's flag", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "greedy.ts");
  await Deno.writeTextFile(
    file,
    'export const host = Deno.env.get("HOST");\nexport function apply() {}\n',
  );
  const [plugin] = resolvePlugins([file], dir.path);
  await rejects(probePluginPermissions(plugin!), (error: Error) => {
    match(
      error.message,
      /Requires env access to "HOST" \(its top-level code ran with no permissions/,
    );
    equal(/--allow-env|Stack backtrace|data:/.test(error.message), false, error.message);
    return true;
  });
});
