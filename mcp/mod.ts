/**
 * MCP servers as tool sources under the same policy as native tools. {@linkcode mcpPlugin}
 * starts one fiber per configured server (stdio or streamable HTTP) and registers each server
 * tool as a raw JSON-Schema tool `mcp__<server>__<tool>` through `ctx.tools`, so pre-execute
 * policy, guards, around wrappers, post-execute (spill) and Code Mode apply unchanged.
 * Cancellation reaches the server as `notifications/cancelled`; progress restarts the call's
 * deadline and is streamed to `exec.output` and the `"mcp/progress"` event; `list_changed`
 * re-registers; a server that exits fails calls in flight and reconnects with backoff, while its
 * tools answer `MCP server "x" is restarting (attempt n, next try in t s)`. `connectTimeoutMs`
 * (10 s) bounds start plus `initialize`; a start-up failure quotes the server's stderr.
 * {@linkcode startAcpMcpServers} honours ACP's `session/new` `mcpServers`.
 *
 * @example Usage
 * ```ts
 * import { mcpToolName } from "./mod.ts";
 * import { equal } from "node:assert/strict";
 * equal(mcpToolName("everything", "echo"), "mcp__everything__echo");
 * ```
 *
 * @module
 */
export { mcpPlugin } from "./plugin.ts";
export { mcpServerPlugin } from "./server.ts";
export type { McpProgressEvent, McpServerPluginConfig, McpStatusEvent } from "./server.ts";
export { McpClient } from "./client.ts";
export type { McpCallOptions, McpClientOptions, McpProgress, McpToolInfo } from "./client.ts";
export { checkMcpServerConfig } from "./config.ts";
export type {
  McpHttpServerConfig,
  McpPluginConfig,
  McpReconnectOptions,
  McpServerConfig,
  McpStdioServerConfig,
} from "./config.ts";
export { mcpResultContent } from "./result.ts";
export type { McpCallResult } from "./result.ts";
export { mcpToolName } from "./tool_name.ts";
export { acpMcpServersToConfig, startAcpMcpServers } from "./acp.ts";
export type {
  AcpMcpServer,
  AcpMcpServerHttp,
  AcpMcpServersOptions,
  AcpMcpServerStdio,
  AcpNameValue,
} from "./acp.ts";
