/**
 * The MCP plugin: every configured server becomes a child fiber whose tools are registered as
 * raw JSON-Schema tools `mcp__<server>__<tool>`.
 *
 * @module
 */
import type { Context, Plugin } from "../core/context.ts";
import type { EnvPolicy } from "../core/env_policy.ts";
import { checkMcpServerConfig, type McpPluginConfig, type McpServerConfig } from "./config.ts";
import { mcpServerPlugin } from "./server.ts";

/**
 * Starts one {@linkcode mcpServerPlugin} fiber per configured server. Every entry is checked
 * before any server starts; `apply` resolves once each server's first connection attempt has
 * settled, which `connectTimeoutMs` (10 s by default) bounds; callers that must not wait at
 * all (agent start-up, ACP `session/new`) do not await `fiber.ready`, and the tools register
 * when each server answers. Disposing the plugin closes every server process (about 1.5 s at
 * most: stdin EOF, then the server's process tree is killed).
 *
 * MCP tools go through the same registry pipeline (pre-execute policy, guards, around wrappers,
 * post-execute, spill) as native tools; the harness does not validate their arguments.
 *
 * @example Usage
 * ```ts ignore
 * import { mcpPlugin } from "./plugin.ts";
 * const fiber = ctx.plugin(mcpPlugin, {
 *   servers: {
 *     everything: { command: "node", args: ["server-everything/dist/index.js", "stdio"] },
 *     remote: { url: "https://example.com/mcp", headers: { Authorization: "Bearer …" } },
 *   },
 * });
 * await fiber.ready; // tools such as `mcp__everything__echo` are registered
 * await fiber.dispose(); // server processes are gone
 * ```
 */
export const mcpPlugin: Plugin<McpPluginConfig> = {
  name: "mcp",
  inject: ["tools"],
  apply: applyMcp,
};

async function applyMcp(ctx: Context, config: McpPluginConfig): Promise<void> {
  if (typeof config !== "object" || config === null || typeof config.servers !== "object") {
    throw new TypeError(
      `Cannot apply the MCP plugin: expected a config of the form { servers: { <name>: … } }, received ${
        JSON.stringify(config)
      }`,
    );
  }
  const entries = Object.entries(config.servers);
  for (const [name, server] of entries) checkMcpServerConfig(name, server);
  const shared = {
    ...(config.reconnect === undefined ? {} : { reconnect: config.reconnect }),
    ...(config.scope === undefined ? {} : { scope: config.scope }),
    ...(config.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: config.connectTimeoutMs }),
  };
  const fibers = entries.map(([name, server]) =>
    ctx.plugin(mcpServerPlugin, { name, server: withPolicy(server, config.envPolicy), ...shared })
  );
  // Runs before the child fibers' own (sequential) disposal: every server closes at once, so
  // disposing the plugin takes one server's close time (about 1.5 s at most), not the sum.
  ctx.effect(() => async () => {
    await Promise.all(fibers.map((fiber) => fiber.dispose()));
  });
  await Promise.all(fibers.map((fiber) => fiber.ready));
}

/** A stdio server that sets no environment policy gets the plugin's. */
function withPolicy(server: McpServerConfig, policy: EnvPolicy | undefined): McpServerConfig {
  if (policy === undefined || !("command" in server) || server.envPolicy !== undefined) {
    return server;
  }
  return { ...server, envPolicy: policy };
}
