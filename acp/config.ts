/**
 * The agent binary's JSONC configuration (`dsh.jsonc`): model, tool mode, permission rules,
 * sandbox, MCP servers and the sessions directory.
 *
 * @module
 */
import { join, resolve } from "node:path";
import { parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import type { McpServerConfig } from "../mcp/mod.ts";
// The checker's own file: it imports nothing, while mcp/mod.ts would load the large MCP SDK at start-up.
import { checkMcpServerConfig } from "../mcp/config.ts";
import type { EnvPolicy } from "../core/env_policy.ts";
import { DEFAULT_SAFETY, parseSafety, SAFETY_KEYS, type SandboxSetting } from "./_safety_config.ts";

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

/** A permission decision. */
export type RuleDecision = "allow" | "ask" | "deny";

/** One permission rule: the first matching rule decides. */
export interface PermissionRule {
  /** Tool name, `*` for every tool, or a prefix ending in `*` (`mcp__*`). */
  readonly tool: string;
  /** The decision. */
  readonly decision: RuleDecision;
  /** Optional regular expression tested against one string argument (`arg`). */
  readonly pattern?: string;
  /** The argument `pattern` is tested against. @default {"command"} */
  readonly arg?: string;
  /** The reason shown to the user or the model. */
  readonly reason?: string;
}

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
}

/** The configuration used when no file exists. */
export const DEFAULT_CONFIG: AgentConfig = {
  model: {
    provider: "auto",
    model: "deepseek-flash",
    baseUrl: "https://api.deepseek.com",
    thinking: "enabled",
  },
  toolMode: "native",
  permissions: [],
  defaultDecision: "allow",
  ...DEFAULT_SAFETY,
  mcpServers: {},
  sessionsDir: ".dsh/sessions",
  roots: [],
  allowRun: [],
};

function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

function fail(source: string, message: string): never {
  throw new SyntaxError(`Cannot read config "${source}": ${message}`);
}

function oneOf<T extends string>(
  source: string,
  key: string,
  value: unknown,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) {
    return value as T;
  }
  return fail(
    source,
    `"${key}" must be one of ${allowed.map((a) => `"${a}"`).join(", ")}: received ${
      JSON.stringify(value)
    }`,
  );
}

function str(source: string, key: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value === "string" && value !== "") return value;
  return fail(source, `"${key}" must be a non-empty string: received ${JSON.stringify(value)}`);
}

function record(source: string, key: string, value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  return fail(source, `"${key}" must be an object: received ${JSON.stringify(value)}`);
}

function strings(source: string, key: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value;
  return fail(source, `"${key}" must be an array of strings: received ${JSON.stringify(value)}`);
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

function httpUrl(source: string, key: string, value: string): string {
  const url = URL.parse(value);
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    fail(source, `"${key}" must be an http or https URL: received ${JSON.stringify(value)}`);
  }
  return value;
}

const MODEL_KEYS = ["provider", "model", "baseUrl", "thinking", "reasoningEffort"];

/** The `model` section. */
function parseModel(source: string, value: unknown): ModelConfig {
  const model = record(source, "model", value);
  const d = DEFAULT_CONFIG.model;
  for (const key of Object.keys(model)) {
    if (!MODEL_KEYS.includes(key)) {
      fail(source, `unknown key "model.${key}": expected one of ${MODEL_KEYS.join(", ")}`);
    }
  }
  const effort = model.reasoningEffort === undefined ? undefined : oneOf(
    source,
    "model.reasoningEffort",
    model.reasoningEffort,
    ["low", "high", "max"],
    "high",
  );
  return {
    provider: oneOf(
      source,
      "model.provider",
      model.provider,
      ["auto", "deepseek", "demo"],
      d.provider,
    ),
    model: str(source, "model.model", model.model, d.model),
    baseUrl: httpUrl(
      source,
      "model.baseUrl",
      str(source, "model.baseUrl", model.baseUrl, d.baseUrl),
    ),
    thinking: oneOf(source, "model.thinking", model.thinking, ["enabled", "disabled"], d.thinking),
    ...(effort === undefined ? {} : { reasoningEffort: effort }),
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
  const top = record(source, "(top level)", raw ?? {});
  const known = new Set([
    "$schema",
    "model",
    "toolMode",
    "permissions",
    "defaultDecision",
    ...SAFETY_KEYS,
    "mcpServers",
    "sessionsDir",
    "roots",
    "allowRun",
  ]);
  for (const key of Object.keys(top)) {
    if (!known.has(key)) {
      fail(source, `unknown key "${key}": expected one of ${[...known].join(", ")}`);
    }
  }
  const d = DEFAULT_CONFIG;
  const rules = top.permissions === undefined ? [] : top.permissions;
  if (!Array.isArray(rules)) {
    fail(source, `"permissions" must be an array of rules: received ${JSON.stringify(rules)}`);
  }
  const permissions = rules.map((rule, i): PermissionRule => {
    const r = record(source, `permissions[${i}]`, rule);
    const pattern = r.pattern === undefined
      ? undefined
      : str(source, `permissions[${i}].pattern`, r.pattern, "");
    if (pattern !== undefined) {
      try {
        new RegExp(pattern);
      } catch {
        fail(
          source,
          `"permissions[${i}].pattern" is not a valid regular expression: received ${
            JSON.stringify(pattern)
          }`,
        );
      }
    }
    return {
      tool: str(source, `permissions[${i}].tool`, r.tool, "*"),
      decision: oneOf(source, `permissions[${i}].decision`, r.decision, DECISIONS, "ask"),
      ...(pattern !== undefined ? { pattern } : {}),
      ...(r.arg !== undefined
        ? { arg: str(source, `permissions[${i}].arg`, r.arg, "command") }
        : {}),
      ...(r.reason !== undefined
        ? { reason: str(source, `permissions[${i}].reason`, r.reason, "") }
        : {}),
    };
  });
  const servers = record(source, "mcpServers", top.mcpServers);
  const mcpServers: Record<string, McpServerConfig> = {};
  for (const [name, value] of Object.entries(servers)) {
    const server = record(source, `mcpServers.${name}`, value);
    const hasCommand = typeof server.command === "string" && server.command !== "";
    const hasUrl = typeof server.url === "string" && server.url !== "";
    if (hasCommand === hasUrl) {
      fail(
        source,
        `"mcpServers.${name}" must have exactly one of a non-empty "command" or "url": received ${
          JSON.stringify(value).slice(0, 200)
        }`,
      );
    }
    try {
      mcpServers[name] = checkMcpServerConfig(name, server);
    } catch (error) {
      const detail = (error as Error).message.replace(/^Cannot configure MCP server "[^"]*": /, "");
      fail(source, `"mcpServers.${name}" is invalid: ${detail}`);
    }
  }
  return {
    model: parseModel(source, top.model),
    toolMode: oneOf(source, "toolMode", top.toolMode, ["native", "code", "both"], d.toolMode),
    permissions,
    defaultDecision: oneOf(
      source,
      "defaultDecision",
      top.defaultDecision,
      DECISIONS,
      d.defaultDecision,
    ),
    ...parseSafety(top, (message) => fail(source, message)),
    mcpServers,
    sessionsDir: str(source, "sessionsDir", top.sessionsDir, d.sessionsDir),
    roots: strings(source, "roots", top.roots),
    allowRun: strings(source, "allowRun", top.allowRun),
  };
}

/**
 * Decides a call from the rules: the first rule whose tool (or `*`) and pattern match wins.
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
 * const config = { ...DEFAULT_CONFIG, permissions: [{ tool: "bash", decision: "ask" as const, pattern: "^rm " }] };
 * equal(decide(config, "bash", { command: "rm -rf x" }).decision, "ask");
 * equal(decide(config, "bash", { command: "ls" }).decision, "allow");
 * ```
 */
export function decide(
  config: AgentConfig,
  name: string,
  args: unknown,
): { readonly decision: RuleDecision; readonly reason?: string } {
  for (const rule of config.permissions) {
    const prefix = rule.tool.endsWith("*") ? rule.tool.slice(0, -1) : undefined;
    if (rule.tool !== name && !(prefix !== undefined && name.startsWith(prefix))) continue;
    if (rule.pattern !== undefined) {
      const value = typeof args === "object" && args !== null
        ? (args as Record<string, unknown>)[rule.arg ?? "command"]
        : undefined;
      if (typeof value !== "string" || !new RegExp(rule.pattern).test(value)) continue;
    }
    return {
      decision: rule.decision,
      ...(rule.reason !== undefined ? { reason: rule.reason } : {}),
    };
  }
  return { decision: config.defaultDecision };
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
