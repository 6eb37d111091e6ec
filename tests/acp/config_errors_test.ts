/**
 * Issue 20's config errors: every mistake of a dsh.jsonc in one message, each with its path and a
 * "did you mean" for misspelt keys and values; a retired model id refused at start-up (from the
 * file or DEEPSEEK_MODEL) by the real agent process; `--help` lists every top-level key.
 */
import { equal, match, ok, rejects, throws } from "node:assert/strict";
import { join } from "node:path";
import { client } from "@agentclientprotocol/sdk";
import { spawnAgentProcess } from "../../acp/_agent_process.ts";
import { AGENT_HELP } from "../../acp/_cli.ts";
import { configJsonSchema, parseConfig } from "../../acp/config.ts";
import { tempDir } from "../_helpers.ts";
import { plainEnv } from "./_snapshot.ts";

const CURRENT =
  'use "deepseek-flash" (recommended), "deepseek-v4-pro" or "deepseek-v4-flash" (an alias of "deepseek-flash")';

Deno.test("parseConfig() reports every mistake at once, each with its path and a suggestion", () => {
  const text = `{
    "tols": { "deny": ["bash"] },
    "toolMode": "cod",
    "model": { "modle": "x", "thinking": "enable", "baseUrl": "ftp://h" },
    "sandbox": "readonly",
    "mcpServers": { "a": {}, "b": { "command": "x", "args": "y" } },
    "plugins": ["a.ts", "./ok.ts", "b.ts"],
    "roots": ["/fine"]
  }`;
  throws(() => parseConfig(text, "c"), {
    name: "SyntaxError",
    message: [
      'Cannot read config "c": 10 problems:',
      '  1. unknown key "tols": did you mean "tools"? expected one of $schema, model, toolMode, permissions, defaultDecision, sandbox, executor, hiddenPaths, env, mcpServers, sessionsDir, roots, allowRun, tools, plugins',
      '  2. unknown key "model.modle": did you mean "model"? expected one of provider, model, baseUrl, thinking, reasoningEffort, apiKeyFile',
      '  3. "model.baseUrl" must be an http or https URL: received "ftp://h"',
      '  4. "model.thinking" must be one of "enabled", "disabled": received "enable"; did you mean "enabled"?',
      '  5. "toolMode" must be one of "native", "code", "both": received "cod"; did you mean "code"?',
      '  6. "sandbox" must be one of "auto", "read-only", "workspace-write", "danger-full-access", "off": received "readonly"; did you mean "read-only"?',
      '  7. "mcpServers.a" must have exactly one of a non-empty "command" or "url": received {}',
      `  8. "mcpServers.b" is invalid: "args" must be an array of strings, current value is "y"`,
      '  9. "plugins[0]" must be a path starting with "./", "../" or "/", or a file:, npm: or jsr: specifier: received "a.ts"',
      '  10. "plugins[2]" must be a path starting with "./", "../" or "/", or a file:, npm: or jsr: specifier: received "b.ts"',
    ].join("\n"),
  });
});

Deno.test("parseConfig() keeps a single mistake to one line, with no suggestion when none is close", () => {
  throws(() => parseConfig('{ "toolMode": "fast" }', "c"), {
    message:
      'Cannot read config "c": "toolMode" must be one of "native", "code", "both": received "fast"',
  });
  throws(() => parseConfig('{ "zzzzzz": 1 }', "c"), {
    message: /^Cannot read config "c": unknown key "zzzzzz": expected one of \$schema, model,/,
  });
});

Deno.test("parseConfig() refuses the retired deepseek-chat and deepseek-reasoner with the current ids", () => {
  for (const id of ["deepseek-chat", "deepseek-reasoner"]) {
    throws(() => parseConfig(JSON.stringify({ model: { model: id } }), "c"), {
      message:
        `Cannot read config "c": "model.model": "${id}" was retired on 2026-07-24: ${CURRENT} (DEEPSEEK_MODEL, when set, overrides it)`,
    });
  }
  equal(
    parseConfig('{ "model": { "model": "deepseek-v4-pro" } }', "c").model.model,
    "deepseek-v4-pro",
  );
});

/** Starts the real agent in `cwd` and returns the error its session/new fails with. */
async function startupError(cwd: string, env: Record<string, string> = {}): Promise<string> {
  const agent = spawnAgentProcess(client({ name: "config-errors" }), {
    permissions: [`--allow-read=${cwd}`, `--allow-write=${cwd}`, "--allow-env"],
    args: [],
    cwd,
    clearEnv: true,
    env: { ...plainEnv(cwd), ...env },
  });
  let message = "";
  try {
    const a = agent.connection.agent;
    await a.request("initialize", { protocolVersion: 1 });
    await rejects(() => a.request("session/new", { cwd, mcpServers: [] }), (error: unknown) => {
      message = (error as { message: string }).message;
      return true;
    });
  } finally {
    const status = await agent.close();
    equal(status.code, 1);
  }
  return message;
}

Deno.test("the agent refuses a retired model at start-up, from dsh.jsonc or DEEPSEEK_MODEL", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "dsh.jsonc");
  await Deno.writeTextFile(file, '{ "model": { "model": "deepseek-chat" } }');
  equal(
    await startupError(dir.path, { DEEPSEEK_API_KEY: "sk-test" }),
    `Cannot read config "${file}": "model.model": "deepseek-chat" was retired on 2026-07-24: ${CURRENT} (DEEPSEEK_MODEL, when set, overrides it)`,
  );
  await Deno.remove(file);
  equal(
    await startupError(dir.path, {
      DEEPSEEK_API_KEY: "sk-test",
      DEEPSEEK_MODEL: "deepseek-reasoner",
    }),
    `Cannot start the agent as DEEPSEEK_MODEL "deepseek-reasoner" was retired on 2026-07-24: ${CURRENT} (it overrides model.model in dsh.jsonc)`,
  );
});

Deno.test("the agent reports all of a dsh.jsonc's mistakes in one start-up error", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "dsh.jsonc"), '{ "tols": {}, "toolMode": "nativ" }');
  const message = await startupError(dir.path);
  match(message, /: 2 problems:\n {2}1\. unknown key "tols": did you mean "tools"\?/);
  match(
    message,
    /\n {2}2\. "toolMode" must be one of "native", "code", "both": received "nativ"; did you mean "native"\?$/,
  );
});

Deno.test("--help lists every top-level dsh.jsonc key, tools included", () => {
  const keys = Object.keys((configJsonSchema() as { properties: object }).properties)
    .filter((key) => key !== "$schema");
  ok(keys.includes("tools"));
  const section = AGENT_HELP.slice(AGENT_HELP.indexOf("dsh.jsonc keys"));
  const listed = section.split("\n").slice(1).join(" ").split(/[\s,.]+/).filter(Boolean);
  equal(listed.join(" "), keys.join(" "));
});

Deno.test("parseConfig() suggests a fix inside permission rules, the env policy and the tool filter", () => {
  const cases: [string, string][] = [
    [
      '{"permissions": [{"tool": "x", "decison": "ask"}]}',
      '"permissions[0]" has an unknown key "decison": expected "tool", "args", "decision" and "reason"; did you mean "decision"?',
    ],
    [
      '{"permissions": [{"tool": "x", "decision": "ak"}]}',
      '"permissions[0].decision" must be one of "allow", "ask", "deny": received "ak"; did you mean "ask"?',
    ],
    [
      '{"env": {"inherit": "cor"}}',
      '"env.inherit" must be one of "all", "core", "none": received "cor"; did you mean "core"?',
    ],
    [
      '{"tools": {"alow": []}}',
      '"tools" has an unknown key "alow": expected "allow" and "deny"; did you mean "allow"?',
    ],
  ];
  for (const [text, detail] of cases) {
    throws(() => parseConfig(text, "c"), { message: `Cannot read config "c": ${detail}` });
  }
});
