/** Shared launch config of the real MCP server used by the tests (server-everything, pinned in test_deps). */
import { createHarness, type ToolsContext } from "../../mod.ts";
import type { McpStdioServerConfig } from "../../mcp/config.ts";

/** Path of server-everything's entry point. */
export const EVERYTHING_BIN: string = new URL(
  "../../test_deps/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
  import.meta.url,
).pathname;

/** Stdio launch of server-everything through node directly (no npx). */
export const EVERYTHING: McpStdioServerConfig = {
  command: "node",
  args: [EVERYTHING_BIN, "stdio"],
};

/** Resolves true once the process is gone (no `/proc/<pid>`). */
export async function isGone(pid: number): Promise<boolean> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    return /^State:\s+Z/m.test(status); // a zombie is dead, only not yet reaped
  } catch {
    return true;
  }
}

/** Launch config of the test-only dynamic server (its tool list changes at runtime). */
export const DYNAMIC: McpStdioServerConfig = {
  command: Deno.execPath(),
  args: ["run", "-A", "--quiet", new URL("./_dynamic_server.ts", import.meta.url).pathname],
};

/** Resolves with the first `event` payload that `match` accepts. */
export function nextEvent<T>(
  ctx: { on(event: string, listener: (payload: T) => void): () => void },
  event: string,
  match: (payload: T) => boolean = () => true,
): Promise<T> {
  const { promise, resolve } = Promise.withResolvers<T>();
  const off = ctx.on(event, (payload: T) => {
    if (!match(payload)) return;
    off();
    resolve(payload);
  });
  return promise;
}

/** A fresh harness (`ctx.tools` provided) that disposes its root fiber with `await using`. */
export async function harness(): Promise<ToolsContext & AsyncDisposable> {
  const ctx = await createHarness({ logLevel: "error" });
  return Object.assign(ctx, { [Symbol.asyncDispose]: () => ctx.fiber.dispose() });
}
