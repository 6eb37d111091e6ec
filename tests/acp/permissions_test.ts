import { deepEqual, ok } from "node:assert/strict";
import { DEFAULT_CONFIG, parseConfig } from "../../acp/config.ts";
import { AGENT_ENV_VARS, permissionFlags } from "../../acp/permissions.ts";

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
    }),
    [
      "--allow-read=/w,/s,/tmp,/w/dsh.jsonc",
      "--allow-write=/w,/s,/tmp",
      "--allow-run=bash,sh,setsid,ps,kill,bwrap,deno,/bin/deno,node",
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
  });
  deepEqual(flags, [
    "--allow-read=/w,/s,/t",
    "--allow-write=/w,/s,/t",
    "--allow-run=bash,sh,setsid,ps,kill,bwrap,deno,/bin/deno",
    "--allow-env",
  ]);
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
