/**
 * The ACP bridge: dsh agents over the Agent Client Protocol (SDK 2.x app API inside), with tool
 * cards. Its signatures use only dsh's own types: the `…Wire` types describe exactly the frames
 * dsh sends and are structural subsets of the ACP schema.
 *
 * - {@linkcode createAcpServer}: the {@linkcode AcpServer} — initialize,
 *   session/new|load|prompt|cancel, live cards from `session/event`, `agent/delta` and
 *   `tool/output`, and `ctx.approval` (`ask` → `session/request_permission`).
 * - {@linkcode callToWire} / {@linkcode resultToWire}: the pure card → wire mapping
 *   (docs/contracts.md §4); {@linkcode CardPresenter} adds presenters, the generic fallback and the
 *   orphan guard; {@linkcode AcpSession} adds coalesced streaming and replay.
 * - The agent binary: `main.ts` (entry), {@linkcode parseConfig} (`dsh.jsonc`),
 *   {@linkcode permissionFlags} (its explicit Deno permission profile), `launch.ts`
 *   (`deno task agent`).
 *
 * @example Usage
 * ```ts
 * import { callToWire } from "./mod.ts";
 * import { equal } from "node:assert/strict";
 * const update = callToWire({ card: "diff", title: "Write /w/a.md", diffs: [{ path: "/w/a.md", oldText: null, newText: "x" }] }, {
 *   toolCallId: "c1",
 *   cwd: "/w",
 *   terminalOutput: false,
 * });
 * equal(update.title, "Write a.md");
 * ```
 *
 * @module
 */
export { callToWire, fenceConsole, resultToWire, textItems } from "./wire.ts";
export type { ResultWireOptions, WireOptions } from "./wire.ts";
export type {
  MessageChunkWire,
  SessionUpdateWire,
  TextContentWire,
  ToolCallCardWire,
  ToolCallContentWire,
  ToolCallLocationWire,
  ToolCallUpdateWire,
  ToolCallWire,
  ToolWireUpdate,
} from "./session_update_wire.ts";
export { relativizeTitle } from "./relativize_title.ts";
export { CardPresenter } from "./card_presenter.ts";
export type { CardPresenterOptions, PresenterArgs, PresenterLogger } from "./card_presenter.ts";
export { AcpSession } from "./acp_session.ts";
export type { AcpSessionOptions, BridgeEvent } from "./acp_session.ts";
export { PERMISSION_OPTIONS, SessionPermissions } from "./session_permissions.ts";
export type {
  PermissionOptionWire,
  PermissionRequester,
  PermissionRequestWire,
  PermissionResponseWire,
} from "./session_permissions.ts";
export { createAcpServer } from "./server.ts";
export type { AcpServer, AcpServerConnection, AcpServerOptions } from "./server.ts";
export {
  ACP_PROTOCOL_VERSION,
  DSH_AGENT_INFO,
  hasTerminalOutput,
  initializeResponse,
} from "./initialize.ts";
export type { AgentInfo, InitializeRequestWire, InitializeResponseWire } from "./initialize.ts";
export { decide, DEFAULT_CONFIG, loadConfig, parseConfig } from "./config.ts";
export type {
  AgentConfig,
  ConfigTrust,
  ExecutorConfig,
  ExecutorProvider,
  ExecutorSecret,
  LoadConfigOptions,
  LoadedConfig,
  ModelConfig,
  ModelProvider,
  PermissionRule,
  RuleDecision,
  SandboxSetting,
  TrustItem,
} from "./config.ts";
export { AGENT_ENV_VARS, envFlag, permissionFlags } from "./permissions.ts";
export type { PermissionFlagsOptions } from "./permissions.ts";
export { configJsonSchema } from "./config.ts";
export type { ConfigSchema } from "./config.ts";
export {
  checkPluginPermissions,
  mergePluginPermissions,
  missingPermissions,
  probePluginPermissions,
  resolvePlugins,
} from "./plugin_permissions.ts";
export type { PluginPermissions, ResolvedPlugin } from "./plugin_permissions.ts";
export { loadScriptModel, scriptEntries } from "./script_model.ts";
export type { ScriptEntry } from "./script_model.ts";
export { createDemoModel, DEMO_FILE } from "./demo_model.ts";
export { main, parseAgentArgs, usesDeepSeek } from "./main.ts";
export type { AgentArgs } from "./main.ts";
export { agentCommand } from "./launch.ts";
export type { AgentCommand } from "./launch.ts";

// Types the signatures above use, re-exported so this entry point documents itself.
export type * from "../registry/doc_types.ts";
export type { MockAdapter, MockEntry } from "../agent/mock_adapter.ts";
export type { SessionEvent, SessionEventEnvelope } from "../agent/session_event.ts";
export type * from "../agent/model.ts";
export type { LogLevel } from "../core/logger.ts";
export type { McpHttpServerConfig, McpServerConfig, McpStdioServerConfig } from "../mcp/config.ts";
export type { ToolsContext } from "../registry/tools_plugin.ts";
export type { EnvInherit, EnvPolicy } from "../core/env_policy.ts";
export type { SandboxLevel, SandboxMode } from "../builtins/sandbox.ts";
