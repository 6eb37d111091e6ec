import { equal } from "node:assert/strict";
import { createHarness } from "../../mod.ts";
import { mcpPlugin, type McpStatusEvent } from "../../mcp/mod.ts";
import type { EnvPolicy } from "../../core/env_policy.ts";
import { EVERYTHING, nextEvent } from "./_server.ts";

/** Starts server-everything in its own harness under `envPolicy`; returns its process environment. */
async function serverEnv(envPolicy: EnvPolicy | undefined, perServer?: EnvPolicy) {
  const ctx = await createHarness({ logLevel: "error" });
  try {
    const connected = nextEvent<McpStatusEvent>(ctx, "mcp/status", (e) => e.state === "connected");
    const server = perServer === undefined ? EVERYTHING : { ...EVERYTHING, envPolicy: perServer };
    const fiber = ctx.plugin(mcpPlugin, {
      servers: { everything: server },
      ...(envPolicy === undefined ? {} : { envPolicy }),
    });
    await fiber.ready;
    const { pid } = await connected;
    const environ = await Deno.readTextFile(`/proc/${pid}/environ`);
    return new Map(
      environ.split("\0").filter(Boolean).map((kv) => {
        const at = kv.indexOf("=");
        return [kv.slice(0, at), kv.slice(at + 1)] as const;
      }),
    );
  } finally {
    await ctx.fiber.dispose();
  }
}

Deno.test("each MCP plugin passes its own env policy to its stdio servers: no process-wide policy", async () => {
  Deno.env.set("DSH_MCP_ENV_PLAIN", "p");
  try {
    const path = Deno.env.get("PATH") ?? "/usr/bin:/bin";
    const strict: EnvPolicy = { inherit: "none", set: { PATH: path, DSH_MCP_ENV_MARK: "a" } };
    const [a, b, c] = await Promise.all([
      serverEnv(strict),
      serverEnv(undefined),
      serverEnv(strict, { inherit: "none", set: { PATH: path, DSH_MCP_ENV_MARK: "own" } }),
    ]);
    equal(a.get("DSH_MCP_ENV_MARK"), "a");
    equal(a.has("DSH_MCP_ENV_PLAIN"), false);
    equal(b.get("DSH_MCP_ENV_PLAIN"), "p");
    equal(b.has("DSH_MCP_ENV_MARK"), false);
    equal(c.get("DSH_MCP_ENV_MARK"), "own", "a server's own policy wins over the plugin's");
  } finally {
    Deno.env.delete("DSH_MCP_ENV_PLAIN");
  }
});
