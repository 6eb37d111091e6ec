/**
 * Private: the field table of `dsh.jsonc`: each field's schema fragment, check and default,
 * which drive both the validator and the JSON Schema (`dsh.schema.json`).
 *
 * @module
 */
import type { McpServerConfig } from "../mcp/mod.ts";
// The checker's own file: it imports nothing, while mcp/mod.ts would load the large MCP SDK at start-up.
import { checkMcpServerConfig } from "../mcp/config.ts";
import type { EnvPolicy } from "../core/env_policy.ts";
import { checkEnvPolicy } from "../core/env_policy.ts";
import { SANDBOX_MODES } from "../builtins/sandbox.ts";
// Dependency-free: the adapter itself is loaded only when a session needs it.
import { DEEPSEEK_RETIRED_MODELS, retiredModelProblem } from "../agent/deepseek_models.ts";
import {
  asRecord,
  type ConfigSchema,
  customField,
  didYouMean,
  enumField,
  type Fail,
  mapField,
  objectField,
  optional,
  stringsField,
  textField,
} from "./_config_fields.ts";
import { checkPermissionRules, type PermissionRule } from "../tools/permission_rules.ts";
import { checkToolFilter, type ToolFilter } from "../tools/tool_filter.ts";
import { executorField } from "./_config_executor.ts";

const DECISIONS = ["allow", "ask", "deny"] as const;

function httpUrl(value: string, key: string, fail: Fail): void {
  const url = URL.parse(value);
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    fail(`"${key}" must be an http or https URL: received ${JSON.stringify(value)}`);
  }
}

/** A retired DeepSeek id fails at start-up, not on the first prompt. */
function currentModel(value: string, key: string, fail: Fail): void {
  const problem = retiredModelProblem(value);
  if (problem !== undefined) {
    fail(`"${key}": ${problem} (DEEPSEEK_MODEL, when set, overrides it)`);
  }
}

const PLUGIN_SPECIFIER = /^(\.{1,2}\/|\/|file:|npm:|jsr:)/;

function pluginSpecifier(value: string, key: string, fail: Fail): void {
  if (!PLUGIN_SPECIFIER.test(value)) {
    fail(
      `"${key}" must be a path starting with "./", "../" or "/", or a file:, npm: or jsr: specifier: received ${
        JSON.stringify(value)
      }`,
    );
  }
}

const MCP_SERVER_SCHEMA: ConfigSchema = {
  description: "A stdio server (`command`) or an HTTP server (`url`).",
  oneOf: [{
    type: "object",
    required: ["command"],
    properties: {
      command: { type: "string", minLength: 1, description: "The executable (on PATH)." },
      args: { type: "array", items: { type: "string" } },
      env: { type: "object", additionalProperties: { type: "string" } },
      cwd: { type: "string" },
      timeoutMs: { type: "number", exclusiveMinimum: 0 },
    },
  }, {
    type: "object",
    required: ["url"],
    properties: {
      url: { type: "string", pattern: "^https?://" },
      headers: { type: "object", additionalProperties: { type: "string" } },
      transport: { type: "string", enum: ["http", "sse"] },
      timeoutMs: { type: "number", exclusiveMinimum: 0 },
    },
  }],
};

function hiddenPath(value: string, key: string, fail: Fail): void {
  if (!/^!?(~\/|\/)./.test(value)) {
    fail(
      `"${key}" must be an absolute or "~/" path (prefix "!" to un-hide a default): received ${
        JSON.stringify(value)
      }`,
    );
  }
}

/**
 * Adds a "did you mean" to a checker's message about an unknown key or a value outside a list
 * (the env policy, permission rules and tool filter word their own errors).
 */
function withSuggestion(message: string): string {
  const key = /unknown key "([^"]+)": expected (.+)$/.exec(message);
  const value = /must be one of (.+): received "([^"]*)"$/.exec(message);
  const [typed, list] = key !== null
    ? [key[1]!.split(".").at(-1)!, key[2]!]
    : value !== null
    ? [value[2]!, value[1]!]
    : [undefined, undefined];
  if (typed === undefined || list === undefined || message.includes("did you mean")) {
    return message;
  }
  const candidates = [...list.matchAll(/"([^"]+)"|([A-Za-z_$][\w$]*)/g)]
    .map((m) => m[1] ?? m[2]!).filter((word) => word !== "and");
  const hint = didYouMean(typed, candidates);
  return hint === "" ? message : `${message};${hint}`;
}

const ENV_GLOBS: ConfigSchema = { type: "array", items: { type: "string", minLength: 1 } };

const envPolicy = customField<EnvPolicy>({
  type: "object",
  description:
    "The environment of every process a tool starts: inherit all, core or none; include and exclude are case-insensitive globs (exclude wins); set is applied last. DEEPSEEK_API_KEY is never passed.",
  additionalProperties: false,
  default: {},
  properties: {
    inherit: { type: "string", enum: ["all", "core", "none"], default: "all" },
    include: ENV_GLOBS,
    exclude: ENV_GLOBS,
    set: { type: "object", additionalProperties: { type: "string" } },
  },
}, (value, key, fail) => {
  try {
    return checkEnvPolicy(value, key);
  } catch (error) {
    return fail(withSuggestion((error as Error).message));
  }
});

const GLOBS: ConfigSchema = { type: "array", items: { type: "string", minLength: 1 } };

const permissionRules = customField<readonly PermissionRule[]>({
  type: "array",
  description:
    "Permission rules; the first matching rule decides. Tool names and argument values are globs (* any run, ? one character).",
  default: [],
  items: {
    type: "object",
    required: ["tool", "decision"],
    additionalProperties: false,
    properties: {
      tool: { type: "string", minLength: 1, description: "Tool name glob: bash, mcp__*, *." },
      args: {
        type: "object",
        description: "Argument globs by dotted path (command, options.mode); all must match.",
        additionalProperties: { type: "string" },
      },
      decision: { type: "string", enum: DECISIONS, description: "What a match decides." },
      reason: { type: "string", description: "Shown to the user (ask) or the model (deny)." },
    },
  },
}, (value, key, fail) => {
  try {
    return checkPermissionRules(value ?? [], key);
  } catch (error) {
    return fail(withSuggestion((error as Error).message));
  }
});

const toolFilter = customField<ToolFilter>({
  type: "object",
  description:
    "Tools hidden from the model (ctx.tools.restrict): allow keeps only matching names, deny hides matching ones (tool-name globs).",
  default: {},
  additionalProperties: false,
  properties: { allow: GLOBS, deny: GLOBS },
}, (value, key, fail) => {
  try {
    return checkToolFilter(value, key);
  } catch (error) {
    return fail(withSuggestion((error as Error).message));
  }
});

const mcpServer = customField<McpServerConfig>(MCP_SERVER_SCHEMA, (value, key, fail) => {
  const server = asRecord(value, key, fail);
  const hasCommand = typeof server.command === "string" && server.command !== "";
  const hasUrl = typeof server.url === "string" && server.url !== "";
  if (hasCommand === hasUrl) {
    fail(
      `"${key}" must have exactly one of a non-empty "command" or "url": received ${
        JSON.stringify(value).slice(0, 200)
      }`,
    );
  }
  try {
    return checkMcpServerConfig(key.slice("mcpServers.".length), server);
  } catch (error) {
    const detail = (error as Error).message.replace(/^Cannot configure MCP server "[^"]*": /, "");
    return fail(`"${key}" is invalid: ${detail}`);
  }
});

/**
 * Every `dsh.jsonc` key: its JSON Schema fragment, default and check in one entry. The validator
 * ({@linkcode parseConfig}) and the JSON Schema ({@linkcode configJsonSchema}, `dsh.schema.json`)
 * both come from this table.
 */
const CONFIG_FIELDS = {
  $schema: optional(textField("", "The JSON Schema of this file (editor completion only).")),
  model: objectField({
    provider: enumField(
      ["auto", "deepseek", "demo"],
      "auto",
      "The provider: auto means DeepSeek when DEEPSEEK_API_KEY is set, else a note on how to set it; demo is the scripted tour.",
    ),
    model: textField(
      "deepseek-flash",
      "The model id: deepseek-flash (recommended) or deepseek-v4-pro (DEEPSEEK_MODEL overrides it).",
      {
        schema: {
          examples: ["deepseek-flash", "deepseek-v4-pro"],
          not: { enum: DEEPSEEK_RETIRED_MODELS },
        },
        check: currentModel,
      },
    ),
    baseUrl: textField(
      "https://api.deepseek.com",
      "The API base URL (DEEPSEEK_BASE_URL overrides it).",
      {
        schema: { pattern: "^https?://" },
        check: httpUrl,
      },
    ),
    thinking: enumField(
      ["enabled", "disabled"],
      "enabled",
      "DeepSeek's thinking mode (the API's default is enabled).",
    ),
    reasoningEffort: optional(
      enumField(["low", "high", "max"], "high", "reasoning_effort in thinking mode."),
    ),
    apiKeyFile: optional(textField(
      "",
      'A file holding the API key (absolute, "~/" or relative to this config), used when DEEPSEEK_API_KEY is unset; keep it in the user-level config folder (~/.config/dsh), which tools cannot reach.',
    )),
  }, "Model settings."),
  toolMode: enumField(
    ["native", "code", "both"],
    "native",
    "How tools are presented to the model: native calls, code (only run_code) or both.",
  ),
  permissions: permissionRules,
  defaultDecision: enumField(DECISIONS, "allow", "The decision when no rule matches."),
  sandbox: enumField(
    ["auto", ...SANDBOX_MODES],
    "auto",
    "OS sandbox for bash: auto is workspace-write where bubblewrap runs, else bash asks before every call; off is an alias of danger-full-access.",
  ),
  executor: executorField,
  hiddenPaths: stringsField(
    'Changes to the credential paths hidden in the sandbox: absolute or "~/" paths to hide, "!path" to un-hide a default.',
    { schema: { pattern: "^!?(~/|/)." }, check: hiddenPath },
  ),
  env: envPolicy,
  mcpServers: mapField(mcpServer, "MCP servers by name: a stdio `command` or an HTTP `url`."),
  sessionsDir: optional(textField(
    ".dsh/sessions",
    "Where session logs go (relative to the config file's folder); by default the user's state directory, $XDG_STATE_HOME/dsh/sessions/<workspace>.",
  )),
  roots: stringsField("Extra workspace roots the agent may read and write."),
  allowRun: stringsField(
    "Extra commands the agent may run (for example MCP servers an editor passes in session/new).",
  ),
  tools: toolFilter,
  plugins: stringsField(
    "Plugin modules ({ name, inject, apply }) to load, reloaded on save: paths relative to this file, or npm:/jsr: specifiers.",
    { schema: { pattern: PLUGIN_SPECIFIER.source }, check: pluginSpecifier },
  ),
} as const;

/** The whole configuration's field: `parse` validates, `schema` is the JSON Schema. */
export const CONFIG_FIELD = objectField(
  CONFIG_FIELDS,
  "The dsh agent's configuration (dsh.jsonc).",
);
