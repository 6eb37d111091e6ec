/**
 * The agent binary's JSONC configuration (`dsh.jsonc`): model, tool mode, permission rules,
 * sandbox, MCP servers, the sessions directory and plugins. One field table drives both the
 * validator and the JSON Schema (`dsh.schema.json`).
 *
 * @module
 */
import { join, resolve } from "node:path";
import { parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import type { McpServerConfig } from "../mcp/mod.ts";
// The checker's own file: it imports nothing, while mcp/mod.ts would load the large MCP SDK at start-up.
import { checkMcpServerConfig } from "../mcp/config.ts";
import type { EnvPolicy } from "../core/env_policy.ts";
import { checkEnvPolicy } from "../core/env_policy.ts";
import { SANDBOX_MODES } from "../builtins/sandbox.ts";
import type { SandboxSetting } from "./_safety_config.ts";
import {
  asRecord,
  type ConfigSchema,
  customField,
  enumField,
  type Fail,
  mapField,
  objectField,
  optional,
  stringsField,
  textField,
} from "./_config_fields.ts";
import {
  checkPermissionRules,
  compilePermissionRules,
  type PermissionMatcher,
  type PermissionRule,
  type RuleDecision,
} from "../tools/permission_rules.ts";
import { checkToolFilter, type ToolFilter } from "../tools/tool_filter.ts";

export type { ConfigSchema } from "./_config_fields.ts";
export type { SandboxSetting } from "./_safety_config.ts";

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
}

// One rule syntax (globs) for dsh.jsonc, the permission-gate example and tool masks.
export type { PermissionRule, RuleDecision } from "../tools/permission_rules.ts";

/** The whole configuration, defaults applied. */
export interface AgentConfig {
  /** Model settings. */
  readonly model: ModelConfig;
  /** How tools are presented to the model. @default {"native"} */
  readonly toolMode: "native" | "code" | "both";
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
  /** Changes to the credential paths hidden in the sandbox (`"!~/.docker"` un-hides one). @default {[]} */
  readonly hiddenPaths: readonly string[];
  /** The environment of every process a tool starts (see `core/env_policy.ts`). @default {{}} */
  readonly env: EnvPolicy;
  /** MCP servers by name (stdio `command` or HTTP `url`), as `mcpPlugin` takes them. @default {{}} */
  readonly mcpServers: Readonly<Record<string, McpServerConfig>>;
  /** Where session logs go (relative to the config file's folder). @default {".dsh/sessions"} */
  readonly sessionsDir: string;
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

function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

function fail(source: string, message: string): never {
  throw new SyntaxError(`Cannot read config "${source}": ${message}`);
}

const DECISIONS = ["allow", "ask", "deny"] as const;

const PARSE_ERRORS: Record<string, string> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: "expected the end of the file",
  InvalidCommentToken: "invalid comment",
  UnexpectedEndOfComment: "unterminated comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unterminated number",
  InvalidUnicode: "invalid unicode escape",
  InvalidEscapeCharacter: "invalid escape character",
  InvalidCharacter: "invalid character",
};

function httpUrl(value: string, key: string, fail: Fail): void {
  const url = URL.parse(value);
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    fail(`"${key}" must be an http or https URL: received ${JSON.stringify(value)}`);
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
    return fail((error as Error).message);
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
    return fail((error as Error).message);
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
    return fail((error as Error).message);
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
      { schema: { examples: ["deepseek-flash", "deepseek-v4-pro"] } },
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
  hiddenPaths: stringsField(
    'Changes to the credential paths hidden in the sandbox: absolute or "~/" paths to hide, "!path" to un-hide a default.',
    { schema: { pattern: "^!?(~/|/)." }, check: hiddenPath },
  ),
  env: envPolicy,
  mcpServers: mapField(mcpServer, "MCP servers by name: a stdio `command` or an HTTP `url`."),
  sessionsDir: textField(
    ".dsh/sessions",
    "Where session logs go (relative to the config file's folder).",
  ),
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

const CONFIG_FIELD = objectField(CONFIG_FIELDS, "The dsh agent's configuration (dsh.jsonc).");

/** The configuration used when no file exists (every field's default). */
export const DEFAULT_CONFIG: AgentConfig = parseValue({}, "(defaults)");

function parseValue(raw: unknown, source: string): AgentConfig {
  const { $schema: _, ...config } = CONFIG_FIELD.parse(
    raw,
    "(top level)",
    (message) => fail(source, message),
  );
  return config;
}

/**
 * The JSON Schema (draft-07) of `dsh.jsonc`, generated from the same field table as
 * {@linkcode parseConfig}. `deno task schema` writes it to `dsh.schema.json`.
 *
 * @returns The schema object.
 *
 * @example Usage
 * ```ts
 * import { configJsonSchema } from "./config.ts";
 * import { equal } from "node:assert/strict";
 * const schema = configJsonSchema() as { properties: Record<string, unknown> };
 * equal(typeof schema.properties.plugins, "object");
 * ```
 */
export function configJsonSchema(): ConfigSchema {
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "dsh.jsonc",
    ...CONFIG_FIELD.schema,
  };
}

/**
 * Parses and validates JSONC configuration text (comments and trailing commas allowed).
 *
 * @param text The file text.
 * @param source The file name used in error messages.
 * @returns The configuration with defaults applied.
 * @throws {SyntaxError} On a parse error (with line and column) or an invalid value.
 *
 * @example Usage
 * ```ts
 * import { parseConfig } from "./config.ts";
 * import { equal, throws } from "node:assert/strict";
 * const config = parseConfig('{ "toolMode": "code", // comment\n }', "dsh.jsonc");
 * equal(config.toolMode, "code");
 * throws(() => parseConfig('{ "a": 1 "b": 2 }', "dsh.jsonc"), /line 1, column 10/);
 * ```
 */
export function parseConfig(text: string, source: string): AgentConfig {
  const errors: ParseError[] = [];
  const raw: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  // A file with only comments (or nothing) is an empty config.
  const blank = raw === undefined && errors.length === 1 &&
    printParseErrorCode(first!.error) === "ValueExpected";
  if (first !== undefined && !blank) {
    fail(
      source,
      `syntax error at ${lineCol(text, first.offset)}: ${
        PARSE_ERRORS[printParseErrorCode(first.error)] ?? printParseErrorCode(first.error)
      }`,
    );
  }
  return parseValue(raw ?? {}, source);
}

const matchers = new WeakMap<readonly PermissionRule[], PermissionMatcher>();

/**
 * Decides a call from the rules: the first rule whose tool glob and argument globs match wins.
 * The rules are compiled once per configuration.
 *
 * @param config The configuration.
 * @param name The tool name.
 * @param args The call's arguments.
 * @returns The decision and the rule's reason.
 *
 * @example Usage
 * ```ts
 * import { DEFAULT_CONFIG, decide } from "./config.ts";
 * import { equal } from "node:assert/strict";
 * const config = { ...DEFAULT_CONFIG, permissions: [{ tool: "bash", decision: "ask" as const, args: { command: "rm *" } }] };
 * equal(decide(config, "bash", { command: "rm -rf x" }).decision, "ask");
 * equal(decide(config, "bash", { command: "ls" }).decision, "allow");
 * ```
 */
export function decide(
  config: AgentConfig,
  name: string,
  args: unknown,
): { readonly decision: RuleDecision; readonly reason?: string } {
  let match = matchers.get(config.permissions);
  if (match === undefined) {
    match = compilePermissionRules(config.permissions);
    matchers.set(config.permissions, match);
  }
  const rule = match(name, args)?.rule;
  if (rule === undefined) return { decision: config.defaultDecision };
  return {
    decision: rule.decision,
    ...(rule.reason !== undefined ? { reason: rule.reason } : {}),
  };
}

/**
 * Reads the configuration: `path` when given, else `dsh.jsonc` in `cwd` when it exists, else defaults.
 *
 * @param cwd The directory to look in.
 * @param path An explicit config path (`--config`).
 * @returns The configuration and the file it came from (`undefined` for defaults).
 * @throws {Deno.errors.NotFound} When an explicit `path` does not exist.
 * @throws {SyntaxError} When the file is invalid.
 *
 * @example Usage
 * ```ts ignore
 * import { loadConfig } from "./config.ts";
 * const { config, file } = await loadConfig(Deno.cwd());
 * ```
 */
export async function loadConfig(
  cwd: string,
  path?: string,
): Promise<{ readonly config: AgentConfig; readonly file?: string }> {
  const file = path === undefined ? join(cwd, "dsh.jsonc") : resolve(cwd, path);
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      if (path === undefined) return { config: DEFAULT_CONFIG };
      throw new Deno.errors.NotFound(`Cannot read config "${file}": the file does not exist`);
    }
    throw error;
  }
  return { config: parseConfig(text, file), file };
}
