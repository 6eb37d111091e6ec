import { deepEqual, equal, ok, rejects, throws } from "node:assert/strict";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { ACP_PROTOCOL_VERSION, initializeResponse } from "../../acp/initialize.ts";
import { parseAgentArgs, usesDeepSeek } from "../../acp/main.ts";
import { DEFAULT_CONFIG, parseConfig } from "../../acp/config.ts";
import { loadScriptModel, scriptEntries } from "../../acp/script_model.ts";
import { createDemoModel } from "../../acp/demo_model.ts";
import { agentCommand } from "../../acp/launch.ts";
import type { ModelMessage, StreamChunk } from "../../agent/mod.ts";
import { tempDir } from "../_helpers.ts";
import { trustFolder } from "./_trust_fixture.ts";

Deno.test("initializeResponse() speaks the SDK's protocol version and advertises loadSession", () => {
  equal(ACP_PROTOCOL_VERSION, PROTOCOL_VERSION);
  const response = initializeResponse();
  equal(response.agentCapabilities?.loadSession, true);
  deepEqual(response.agentCapabilities?.promptCapabilities, {
    image: true,
    audio: false,
    embeddedContext: true,
  });
});

Deno.test("parseAgentArgs() reads flags and rejects bad values", () => {
  deepEqual(parseAgentArgs(["--script", "s.json", "--sessions-dir", "d", "--config", "c"]), {
    config: "c",
    script: "s.json",
    sessionsDir: "d",
    flushMs: 50,
    logLevel: "info",
  });
  throws(() => parseAgentArgs(["--flush-ms=-1"]), {
    message:
      "Cannot start the agent as '--flush-ms' must be a non-negative number: current value is \"-1\"",
  });
  throws(() => parseAgentArgs(["--log-level", "loud"]), TypeError);
  throws(() => parseAgentArgs(["--nope"]), {
    name: "TypeError",
    message:
      "Cannot start the agent: unknown option '--nope': expected --config <value>, --script <value>, --sessions-dir <value>, --flush-ms <value>, --log-level <value>, --help, --version; received [\"--nope\"]",
  });
});

Deno.test("usesDeepSeek() follows the provider and the key", () => {
  equal(usesDeepSeek(parseConfig('{"model": {"provider": "demo"}}', "c"), "sk"), false);
  equal(usesDeepSeek(parseConfig('{"model": {"provider": "deepseek"}}', "c"), undefined), true);
  equal(usesDeepSeek(DEFAULT_CONFIG, ""), false);
});

Deno.test("scriptEntries() expands shorthands and rejects unknown shapes", () => {
  const [text, calls, hang] = scriptEntries([{ text: "hi", reasoning: "r" }, {
    toolCalls: [{ id: "a", name: "t", args: { x: 1 } }],
  }, "hang"], "s");
  equal((text as StreamChunk[])[0]?.type, "reasoning");
  ok((calls as StreamChunk[]).some((c) => c.type === "tool-call" && c.arguments === '{"x":1}'));
  equal(hang, "hang");
  throws(() => scriptEntries([42], "s.json"), {
    message:
      'Cannot read script "s.json": entry 0 must be a chunk array, "hang", {hangAfter}, {text} or {toolCalls}: received 42',
  });
  throws(() => scriptEntries({}, "s.json"), TypeError);
});

Deno.test("loadScriptModel() reports invalid JSON", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/s.json`, "[");
  await rejects(() => loadScriptModel(`${dir.path}/s.json`), SyntaxError);
});

Deno.test("loadScriptModel() says a missing file does not exist", async () => {
  await using dir = await tempDir();
  await rejects(() => loadScriptModel(`${dir.path}/none.json`), {
    name: "NotFound",
    message: `Cannot read script "${dir.path}/none.json": the file does not exist`,
  });
});

Deno.test("createDemoModel() runs bash, write, edit, then sums up", async () => {
  const model = createDemoModel();
  const messages: ModelMessage[] = [{ role: "user", content: [{ type: "text", text: "go" }] }];
  const names: string[] = [];
  for (let step = 0; step < 4; step++) {
    const chunks: StreamChunk[] = [];
    for await (
      const c of model.stream({
        model: "demo",
        system: "",
        messages,
        tools: [],
        signal: new AbortController().signal,
      })
    ) chunks.push(c);
    const call = chunks.find((c) => c.type === "tool-call");
    if (call?.type !== "tool-call") {
      names.push(chunks.find((c) => c.type === "text")?.type ?? "");
      break;
    }
    names.push(call.name);
    messages.push({
      role: "assistant",
      content: [{ type: "tool-call", id: call.id, name: call.name, arguments: call.arguments }],
    });
    messages.push({ role: "tool", callId: call.id, content: [], isError: false });
  }
  deepEqual(names, ["bash", "write", "edit", "text"]);
});

Deno.test("agentCommand() runs main.ts under the derived profile in the workspace", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(
    `${dir.path}/dsh.jsonc`,
    '{ "sessionsDir": "logs", "model": { "provider": "demo" } }',
  );
  // sessionsDir needs the folder's trust (HOME is the temp dir): untrusted, logs go to the
  // user's state folder.
  const home = (name: string) => name === "HOME" ? dir.path : undefined;
  const untrusted = await agentCommand(dir.path, [], home);
  ok(
    untrusted.args.some((a) => a.startsWith("--allow-write=") && a.includes("/dsh/sessions/")),
  );
  ok(!untrusted.args.some((a) => a.startsWith("--allow-write=") && a.includes(`${dir.path}/logs`)));
  await trustFolder(dir.path, dir.path);
  const { args, cwd } = await agentCommand(dir.path, ["--log-level", "warn"], home);
  equal(cwd, dir.path);
  equal(args[0], "run");
  ok(!args.includes("-A") && !args.includes("--allow-all"));
  ok(args.some((a) => a.startsWith("--allow-write=") && a.includes(`${dir.path}/logs`)));
  ok(!args.some((a) => a.startsWith("--allow-net")));
  deepEqual(args.slice(-2), ["--log-level", "warn"]);
});
