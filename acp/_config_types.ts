/**
 * The types of the agent's configuration (`dsh.jsonc`), defaults applied: read by `config.ts`,
 * its layers and the model endpoint check without importing the reader.
 *
 * @module
 */
import type { ToolMode } from "../codemode/mod.ts";
import type { McpServerConfig } from "../mcp/mod.ts";
import type { EnvPolicy } from "../core/env_policy.ts";
import type { SandboxSetting } from "./_safety_config.ts";
import type { ExecutorConfig } from "./_config_executor.ts";
import type { PermissionRule, RuleDecision } from "../tools/permission_rules.ts";
import type { ToolFilter } from "../tools/tool_filter.ts";

/** Which model the agent talks to. `auto` means DeepSeek when a key is set, else a note on how to set it; `demo` is the scripted tour. */
export type ModelProvider = "auto" | "deepseek" | "demo";

/** Model settings. */
export interface ModelConfig {
  /** The provider. @default {"auto"} */
  readonly provider: ModelProvider;
  /** The model id: `deepseek-flash`, `deepseek-v4-pro` (or the alias `deepseek-v4-flash`). @default {"deepseek-flash"} */
  readonly model: string;
  /** The API base URL (`DEEPSEEK_BASE_URL` overrides it). @default {"https://api.deepseek.com"} */
  readonly baseUrl: string;
  /** DeepSeek's thinking mode. @default {"enabled"} */
  readonly thinking: "enabled" | "disabled";
  /** `reasoning_effort` in thinking mode; the API's default when unset. */
  readonly reasoningEffort?: "low" | "high" | "max";
  /** A file holding the API key, used when `DEEPSEEK_API_KEY` is unset (`~/` is `$HOME`). */
  readonly apiKeyFile?: string;
}

/** The whole configuration, defaults applied. */
export interface AgentConfig {
  /** Model settings. */
  readonly model: ModelConfig;
  /** How tools are presented to the model. @default {"native"} */
  readonly toolMode: ToolMode;
  /** Permission rules, first match wins. @default {[]} */
  readonly permissions: readonly PermissionRule[];
  /** The decision when no rule matches. @default {"allow"} */
  readonly defaultDecision: RuleDecision;
  /**
   * OS sandbox for bash: `"read-only"`, `"workspace-write"`, `"danger-full-access"` (alias
   * `"off"`) or `"auto"` (`workspace-write` where bubblewrap runs, else bash asks first).
   * @default {"auto"}
   */
  readonly sandbox: SandboxSetting;
  /**
   * Where tools run: `"local"` (this machine, in `sandbox`) or `"deno-sandbox"` (one Deno
   * Sandbox microVM per session, with `DENO_DEPLOY_TOKEN`). @default {{ provider: "local" }}
   */
  readonly executor: ExecutorConfig;
  /** Changes to the credential paths hidden in the sandbox (`"!~/.docker"` un-hides one). @default {[]} */
  readonly hiddenPaths: readonly string[];
  /** The environment of every process a tool starts (see `core/env_policy.ts`). @default {{}} */
  readonly env: EnvPolicy;
  /** MCP servers by name (stdio `command` or HTTP `url`), as `mcpPlugin` takes them. @default {{}} */
  readonly mcpServers: Readonly<Record<string, McpServerConfig>>;
  /** Where session logs go (relative to the config file's folder). @default {`$XDG_STATE_HOME/dsh/sessions/<workspace>`} */
  readonly sessionsDir?: string;
  /** Extra workspace roots the agent may read and write. @default {[]} */
  readonly roots: readonly string[];
  /** Extra commands the agent may run (for example MCP servers an editor passes in `session/new`). @default {[]} */
  readonly allowRun: readonly string[];
  /**
   * Plugin modules to load into the agent and reload on save: paths relative to the config
   * file, or `npm:`/`jsr:` specifiers. @default {[]}
   */
  readonly plugins: readonly string[];
  /** Tools hidden from the model: `allow`/`deny` tool-name globs (`ctx.tools.restrict`). @default {{}} */
  readonly tools: ToolFilter;
}
