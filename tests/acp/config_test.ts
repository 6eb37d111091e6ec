import { deepEqual, equal, ok, rejects, throws } from "node:assert/strict";
import { decide, DEFAULT_CONFIG, loadConfig, parseConfig } from "../../acp/config.ts";
import { tempDir } from "../_helpers.ts";
import { configJsonSchema } from "../../acp/config.ts";
import { CONFIG_SCHEMA_FILE, configSchemaText } from "../../acp/_config_schema_file.ts";
import { Ajv } from "ajv";

Deno.test("parseConfig() reads JSONC with comments and trailing commas", () => {
  const config = parseConfig(
    `{
      // model
      "model": { "provider": "demo", "model": "m", },
      "toolMode": "both",
      "permissions": [{ "tool": "bash", "decision": "ask", "args": { "command": "rm *" }, "reason": "destructive" }],
      "defaultDecision": "deny",
      "sandbox": "workspace-write",
      "mcpServers": { "everything": { "command": "node", "args": ["x.js", "stdio"], "env": { "A": "1" } } },
      "sessionsDir": "logs",
      "roots": ["/extra"],
      "allowRun": ["npx"],
      "plugins": ["./tools/word_count.ts", "npm:dsh-plugin@1.0.0", "jsr:@me/tool"],
      "tools": { "deny": ["mcp__*"] },
    }`,
    "dsh.jsonc",
  );
  deepEqual(config, {
    model: {
      provider: "demo",
      model: "m",
      baseUrl: "https://api.deepseek.com",
      thinking: "enabled",
    },
    toolMode: "both",
    permissions: [{
      tool: "bash",
      decision: "ask",
      args: { command: "rm *" },
      reason: "destructive",
    }],
    defaultDecision: "deny",
    sandbox: "workspace-write",
    executor: DEFAULT_CONFIG.executor,
    hiddenPaths: [],
    env: {},
    mcpServers: { everything: { command: "node", args: ["x.js", "stdio"], env: { A: "1" } } },
    sessionsDir: "logs",
    roots: ["/extra"],
    allowRun: ["npx"],
    plugins: ["./tools/word_count.ts", "npm:dsh-plugin@1.0.0", "jsr:@me/tool"],
    tools: { deny: ["mcp__*"] },
  });
});

Deno.test("parseConfig() gives defaults for an empty file", () => {
  deepEqual(parseConfig("", "dsh.jsonc"), DEFAULT_CONFIG);
  deepEqual(parseConfig("// nothing\n{}", "dsh.jsonc"), DEFAULT_CONFIG);
});

Deno.test("parseConfig() reports syntax errors with line and column", () => {
  throws(() => parseConfig('{\n  "toolMode": "code"\n  "sandbox": "off"\n}', "/p/dsh.jsonc"), {
    name: "SyntaxError",
    message: 'Cannot read config "/p/dsh.jsonc": syntax error at line 3, column 3: expected ","',
  });
  throws(() => parseConfig('{ "toolMode": "code"\n', "c"), {
    message: 'Cannot read config "c": syntax error at line 2, column 1: expected "}"',
  });
});

/** Asserts that `text` is rejected with `Cannot read config "c": <detail>`. */
function rejectsConfig(text: string, detail: string | RegExp): void {
  throws(() => parseConfig(text, "c"), {
    name: "SyntaxError",
    message: typeof detail === "string" ? `Cannot read config "c": ${detail}` : detail,
  });
}

Deno.test("parseConfig() rejects a bad model URL and bad MCP server fields at load time", () => {
  rejectsConfig(
    '{"model": {"baseUrl": "not a url"}}',
    '"model.baseUrl" must be an http or https URL: received "not a url"',
  );
  rejectsConfig(
    '{"mcpServers": {"x": {"command": "node", "args": "a b"}}}',
    '"mcpServers.x" is invalid: "args" must be an array of strings, current value is "a b"',
  );
  rejectsConfig(
    '{"mcpServers": {"h": {"url": "ftp://h"}}}',
    '"mcpServers.h" is invalid: "url" must be an http or https URL, current value is "ftp://h"',
  );
});

Deno.test("parseConfig() rejects invalid values with the received value", () => {
  rejectsConfig(
    '{"toolMode": "fast"}',
    '"toolMode" must be one of "native", "code", "both": received "fast"',
  );
  rejectsConfig('{"modle": {}}', /unknown key "modle"/);
  rejectsConfig(
    '{"tools": {"deny": "bash"}}',
    '"tools.deny" must be an array of tool-name globs: received "bash"',
  );
  rejectsConfig(
    '{"permissions": [{"tool": "bash", "pattern": "^rm ", "decision": "ask"}]}',
    '"permissions[0].pattern" is not supported: rules match arguments with globs in "args", for example {"tool": "bash", "args": {"command": "rm *"}, "decision": "ask"}',
  );
  rejectsConfig(
    '{"permissions": [{"tool": "bash"}]}',
    '"permissions[0].decision" must be one of "allow", "ask", "deny": received undefined',
  );
  rejectsConfig(
    '{"mcpServers": {"x": {}}}',
    '"mcpServers.x" must have exactly one of a non-empty "command" or "url": received {}',
  );
});

Deno.test("decide() applies the first matching rule, then the default", () => {
  const config = parseConfig(
    '{"permissions": [{"tool": "bash", "decision": "deny", "args": {"command": "rm *"}, "reason": "no"}, {"tool": "*", "decision": "ask"}], "defaultDecision": "allow"}',
    "c",
  );
  deepEqual(decide(config, "bash", { command: "rm x" }), { decision: "deny", reason: "no" });
  deepEqual(decide(config, "bash", { command: "ls" }), { decision: "ask" });
  deepEqual(decide(config, "fs_read", "raw"), { decision: "ask" });
  deepEqual(decide(DEFAULT_CONFIG, "bash", {}), { decision: "allow" });
});

Deno.test("loadConfig() says an explicit config file does not exist", async () => {
  await using dir = await tempDir();
  await rejects(() => loadConfig(dir.path, "nope.jsonc"), {
    name: "NotFound",
    message: `Cannot read config "${dir.path}/nope.jsonc": the file does not exist`,
  });
});

Deno.test("loadConfig() reads dsh.jsonc from the cwd or falls back to defaults", async () => {
  await using dir = await tempDir();
  deepEqual(await loadConfig(dir.path), { config: DEFAULT_CONFIG });
  await Deno.writeTextFile(`${dir.path}/dsh.jsonc`, '{"toolMode": "code"}');
  const loaded = await loadConfig(dir.path);
  equal(loaded.config.toolMode, "code");
  equal(loaded.file, `${dir.path}/dsh.jsonc`);
  await rejects(() => loadConfig(dir.path, `${dir.path}/missing.jsonc`), Deno.errors.NotFound);
});

Deno.test("loadConfig() takes an empty dsh.jsonc folder (a sandbox placeholder left by a kill) as no config", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/dsh.jsonc`);
  deepEqual(await loadConfig(dir.path), { config: DEFAULT_CONFIG });
  await Deno.writeTextFile(`${dir.path}/dsh.jsonc/x`, "");
  await rejects(() => loadConfig(dir.path));
});

Deno.test("parseConfig() reads the model section: deepseek-flash by default, thinking and effort", () => {
  deepEqual(DEFAULT_CONFIG.model, {
    provider: "auto",
    model: "deepseek-flash",
    baseUrl: "https://api.deepseek.com",
    thinking: "enabled",
  });
  deepEqual(
    parseConfig(
      '{"model": {"model": "deepseek-v4-pro", "thinking": "disabled", "reasoningEffort": "max"}}',
      "c",
    ).model,
    {
      provider: "auto",
      model: "deepseek-v4-pro",
      baseUrl: "https://api.deepseek.com",
      thinking: "disabled",
      reasoningEffort: "max",
    },
  );
  rejectsConfig(
    '{"model": {"thinking": true}}',
    '"model.thinking" must be one of "enabled", "disabled": received true',
  );
  rejectsConfig(
    '{"model": {"reasoningEffort": "medium"}}',
    '"model.reasoningEffort" must be one of "low", "high", "max": received "medium"',
  );
  rejectsConfig(
    '{"model": {"reasoning_effort": "high"}}',
    'unknown key "model.reasoning_effort": did you mean "reasoningEffort"? expected one of provider, model, baseUrl, thinking, reasoningEffort, apiKeyFile',
  );
});

Deno.test("parseConfig() reads the safety keys: sandbox levels, hiddenPaths, env", () => {
  const config = parseConfig(
    `{
      "sandbox": "read-only",
      "hiddenPaths": ["~/.secrets", "!~/.docker", "/srv/keys"],
      "env": { "inherit": "core", "include": ["GITHUB_TOKEN"], "exclude": ["AWS_*"], "set": { "CI": "1" } },
    }`,
    "dsh.jsonc",
  );
  equal(config.sandbox, "read-only");
  deepEqual(config.hiddenPaths, ["~/.secrets", "!~/.docker", "/srv/keys"]);
  deepEqual(config.env, {
    inherit: "core",
    include: ["GITHUB_TOKEN"],
    exclude: ["AWS_*"],
    set: { CI: "1" },
  });
  equal(DEFAULT_CONFIG.sandbox, "auto");
  for (const level of ["workspace-write", "danger-full-access", "off", "auto"]) {
    equal(parseConfig(JSON.stringify({ sandbox: level }), "c").sandbox, level);
  }
  throws(() => parseConfig('{"sandbox": "none"}', "c"), {
    message:
      `Cannot read config "c": "sandbox" must be one of "auto", "read-only", "workspace-write", "danger-full-access", "off": received "none"`,
  });
  throws(
    () => parseConfig('{"hiddenPaths": ["rel/path"]}', "c"),
    /"hiddenPaths\[0\]" must be an absolute or "~\/" path/,
  );
  throws(() => parseConfig('{"env": {"inherit": "most"}}', "c"), {
    message:
      `Cannot read config "c": "env.inherit" must be one of "all", "core", "none": received "most"`,
  });
  throws(() => parseConfig('{"env": {"pass": []}}', "c"), /unknown key "env.pass"/);
});

Deno.test("DEFAULT_CONFIG is frozen all the way down, and a parsed config shares nothing with it", () => {
  ok(Object.isFrozen(DEFAULT_CONFIG) && Object.isFrozen(DEFAULT_CONFIG.model));
  ok(Object.isFrozen(DEFAULT_CONFIG.permissions));
  throws(() => (DEFAULT_CONFIG.permissions as unknown[]).push({}), TypeError);
  const parsed = parseConfig("{}", "dsh.jsonc");
  deepEqual(parsed, DEFAULT_CONFIG);
  ok(parsed.model !== DEFAULT_CONFIG.model && parsed.permissions !== DEFAULT_CONFIG.permissions);
});

Deno.test("decide() matches tool prefixes ending in *", () => {
  const config = parseConfig('{"permissions": [{"tool": "mcp__*", "decision": "ask"}]}', "c");
  equal(decide(config, "mcp__everything__echo", {}).decision, "ask");
  equal(decide(config, "bash", {}).decision, "allow");
});

Deno.test("parseConfig() rejects unknown nested keys and bad plugin specifiers", () => {
  rejectsConfig(
    '{"model": {"modle": "x"}}',
    'unknown key "model.modle": did you mean "model"? expected one of provider, model, baseUrl, thinking, reasoningEffort, apiKeyFile',
  );
  rejectsConfig(
    '{"permissions": [{"tool": "bash", "decison": "deny"}]}',
    '"permissions[0]" has an unknown key "decison": expected "tool", "args", "decision" and "reason"; did you mean "decision"?',
  );
  rejectsConfig(
    '{"plugins": ["tools/x.ts"]}',
    '"plugins[0]" must be a path starting with "./", "../" or "/", or a file:, npm: or jsr: specifier: received "tools/x.ts"',
  );
  rejectsConfig(
    '{"plugins": "./x.ts"}',
    '"plugins" must be an array of strings: received "./x.ts"',
  );
});

Deno.test("dsh.schema.json is the committed output of `deno task schema`", async () => {
  const committed = await Deno.readTextFile(CONFIG_SCHEMA_FILE);
  equal(committed, configSchemaText(), "run `deno task schema` and commit dsh.schema.json");
});

Deno.test("the JSON Schema and parseConfig() agree on valid and invalid configs", () => {
  const validate = new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(
    configJsonSchema(),
  );
  const valid = [
    {},
    { $schema: "https://jsr.io/@dsh/harness/0.1.0/dsh.schema.json", toolMode: "code" },
    { model: { provider: "deepseek", model: "deepseek-v4-pro", baseUrl: "http://127.0.0.1:9" } },
    { permissions: [{ tool: "bash", decision: "deny", args: { command: "rm *" } }] },
    { permissions: [{ tool: "mcp__*", decision: "allow", reason: "trusted" }] },
    { sandbox: "read-only", hiddenPaths: ["~/.secrets", "!~/.docker"] },
    { env: { inherit: "core", include: ["GH_*"], exclude: ["AWS_*"], set: { CI: "1" } } },
    { model: { thinking: "disabled", reasoningEffort: "max" } },
    { tools: { allow: ["read", "bash"], deny: ["mcp__*"] } },
    { mcpServers: { a: { command: "node", args: ["x"] }, b: { url: "https://h/mcp" } } },
    { plugins: ["./a.ts", "../b.ts", "/c.ts", "npm:d", "jsr:@e/f"], roots: ["/x"] },
  ];
  const invalid = [
    { toolMode: "fast" },
    { extra: 1 },
    { model: { baseUrl: "ftp://x" } },
    { model: { unknown: 1 } },
    { permissions: [{ decision: "maybe" }] },
    { permissions: {} },
    { sessionsDir: "" },
    { roots: [1] },
    { mcpServers: { a: {} } },
    { plugins: ["x.ts"] },
    { permissions: [{ tool: "bash", decision: "deny", pattern: "^rm " }] },
    { sandbox: "none" },
    { hiddenPaths: ["relative/path"] },
    { env: { inherit: "most" } },
    { model: { thinking: true } },
    { tools: { hide: ["bash"] } },
    { model: { model: "deepseek-chat" } },
    { model: { model: "deepseek-reasoner" } },
  ];
  for (const config of valid) {
    equal(validate(config), true, JSON.stringify([config, validate.errors]));
    parseConfig(JSON.stringify(config), "c");
  }
  for (const config of invalid) {
    equal(validate(config), false, JSON.stringify(config));
    throws(() => parseConfig(JSON.stringify(config), "c"), SyntaxError, JSON.stringify(config));
  }
});
