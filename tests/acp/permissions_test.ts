import { deepEqual } from "node:assert/strict";
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
      "--allow-run=bash,sh,setsid,ps,kill,unshare,setpriv,bwrap,deno,/bin/deno,node",
      `--allow-env=${AGENT_ENV_VARS.join(",")}`,
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
    "--allow-run=bash,sh,setsid,ps,kill,unshare,setpriv,deno,/bin/deno",
    `--allow-env=${AGENT_ENV_VARS.join(",")}`,
  ]);
});
