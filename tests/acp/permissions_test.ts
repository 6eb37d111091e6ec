import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { DEFAULT_CONFIG, parseConfig } from "../../acp/config.ts";
import { AGENT_ENV_VARS, permissionFlags } from "../../acp/permissions.ts";
import { deepSeekOptions, modelBaseUrl } from "../../acp/_model_endpoint.ts";

Deno.test("permissionFlags() derives an explicit profile from the config", () => {
  const config = parseConfig(
    '{"sandbox": "workspace-write", "model": {"baseUrl": "https://llm.example:8443/v1"}, "mcpServers": {"e": {"command": "node"}}}',
    "c",
  );
  deepEqual(
    permissionFlags(config, {
      roots: ["/w", "/w"],
      sessionsDir: "/s",
      readOnly: ["/w/dsh.jsonc"],
      useDeepSeek: true,
      denoPath: "/bin/deno",
      keyDir: "/k",
    }),
    [
      "--allow-read=/w,/s,/k,/tmp,/w/dsh.jsonc",
      "--allow-write=/w,/s,/k,/tmp",
      "--allow-run=bash,sh,setsid,ps,kill,unshare,setpriv,bwrap,deno,/bin/deno,node",
      "--allow-env",
      "--allow-net=llm.example:8443",
    ],
  );
});

Deno.test("permissionFlags() grants no net to the demo model", () => {
  const flags = permissionFlags(DEFAULT_CONFIG, {
    roots: ["/w"],
    sessionsDir: "/s",
    tmpDir: "/t",
    useDeepSeek: false,
    denoPath: "/bin/deno",
    keyDir: "/k",
  });
  deepEqual(flags, [
    "--allow-read=/w,/s,/k,/t",
    "--allow-write=/w,/s,/k,/t",
    "--allow-run=bash,sh,setsid,ps,kill,unshare,setpriv,bwrap,deno,/bin/deno",
    "--allow-env",
  ]);
});

Deno.test("permissionFlags() grants exactly the model endpoint's host:port", () => {
  const net = (modelBaseUrl?: string, text = "{}") =>
    permissionFlags(parseConfig(text, "c"), {
      roots: ["/w"],
      sessionsDir: "/s",
      useDeepSeek: true,
      denoPath: "/bin/deno",
      ...(modelBaseUrl === undefined ? {} : { modelBaseUrl }),
    }).find((flag) => flag.startsWith("--allow-net="));
  equal(net(), "--allow-net=api.deepseek.com:443");
  equal(
    net(undefined, '{"model": {"baseUrl": "http://localhost/v1"}}'),
    "--allow-net=localhost:80",
  );
  // DEEPSEEK_BASE_URL (as launch.ts passes it) wins over model.baseUrl.
  equal(
    net("http://127.0.0.1:5123", '{"model": {"baseUrl": "https://llm.example:8443"}}'),
    "--allow-net=127.0.0.1:5123",
  );
});

Deno.test("modelBaseUrl() and deepSeekOptions() read DEEPSEEK_BASE_URL and DEEPSEEK_MODEL over the config", () => {
  const config = parseConfig(
    '{"model": {"baseUrl": "https://llm.example", "thinking": "disabled", "reasoningEffort": "low"}}',
    "c",
  );
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  equal(modelBaseUrl(config, env({})), "https://llm.example");
  equal(
    modelBaseUrl(config, env({ DEEPSEEK_BASE_URL: "http://127.0.0.1:9" })),
    "http://127.0.0.1:9",
  );
  deepEqual(
    deepSeekOptions(
      config,
      env({ DEEPSEEK_API_KEY: "sk", DEEPSEEK_MODEL: "deepseek-v4-pro" }),
    ),
    {
      apiKey: "sk",
      baseUrl: "https://llm.example",
      model: "deepseek-v4-pro",
      thinking: "disabled",
      reasoningEffort: "low",
    },
  );
  throws(() => modelBaseUrl(config, env({ DEEPSEEK_BASE_URL: "127.0.0.1:9" })), {
    name: "TypeError",
    message:
      'Cannot start the agent as DEEPSEEK_BASE_URL must be an https URL, or http on loopback (localhost, 127.0.0.0/8, ::1), since it receives the API key and the conversation: current value is "127.0.0.1:9"',
  });
});

Deno.test("permissionFlags() reads only named variables when tools inherit the core set", () => {
  const config = parseConfig(
    '{"sandbox": "off", "env": {"inherit": "core", "include": ["GH_TOKEN"]}}',
    "c",
  );
  const flags = permissionFlags(config, {
    roots: ["/w"],
    sessionsDir: "/s",
    tmpDir: "/t",
    useDeepSeek: false,
    denoPath: "/bin/deno",
  });
  const env = flags.find((f) => f.startsWith("--allow-env"))!;
  ok(
    env.startsWith("--allow-env=") && env.includes("GH_TOKEN") && env.includes(AGENT_ENV_VARS[0]!),
  );
  ok(!flags.some((f) => f.includes("bwrap")));
});
