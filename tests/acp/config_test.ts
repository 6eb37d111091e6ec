import { deepEqual, equal, rejects, throws } from "node:assert/strict";
import { decide, DEFAULT_CONFIG, loadConfig, parseConfig } from "../../acp/config.ts";
import { tempDir } from "../_helpers.ts";

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
      "tools": { "deny": ["mcp__*"] },
    }`,
    "dsh.jsonc",
  );
  deepEqual(config, {
    model: { provider: "demo", model: "m", baseUrl: "https://api.deepseek.com" },
    toolMode: "both",
    permissions: [{
      tool: "bash",
      decision: "ask",
      args: { command: "rm *" },
      reason: "destructive",
    }],
    defaultDecision: "deny",
    sandbox: "workspace-write",
    mcpServers: { everything: { command: "node", args: ["x.js", "stdio"], env: { A: "1" } } },
    sessionsDir: "logs",
    roots: ["/extra"],
    allowRun: ["npx"],
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
