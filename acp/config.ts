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
import {
  checkPermissionRules,
  compilePermissionRules,
  type PermissionMatcher,
  type PermissionRule,
  type RuleDecision,
} from "../registry/permission_rules.ts";
import { checkToolFilter, type ToolFilter } from "../registry/tool_filter.ts";

/** Which model the agent talks to. `auto` means DeepSeek when a key is set, else the demo model. */
export type ModelProvider = "auto" | "deepseek" | "demo";

/** Model settings. */
export interface ModelConfig {
  /** The provider. @default {"auto"} */
  readonly provider: ModelProvider;
  /** The model name. @default {"deepseek-chat"} */
  readonly model: string;
  /** The API base URL. @default {"https://api.deepseek.com"} */
  readonly baseUrl: string;
}

// One rule syntax (globs) for dsh.jsonc, the permission-gate example and tool masks.
export type { PermissionRule, RuleDecision } from "../registry/permission_rules.ts";

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
  /** OS sandbox for shell commands. @default {"off"} */
  readonly sandbox: "off" | "workspace-write";
  /** MCP servers by name (stdio `command` or HTTP `url`), as `mcpPlugin` takes them. @default {{}} */
  readonly mcpServers: Readonly<Record<string, McpServerConfig>>;
  /** Where session logs go (relative to the config file's folder). @default {".dsh/sessions"} */
  readonly sessionsDir: string;
  /** Extra workspace roots the agent may read and write. @default {[]} */
  readonly roots: readonly string[];
  /** Extra commands the agent may run (for example MCP servers an editor passes in `session/new`). @default {[]} */
  readonly allowRun: readonly string[];
  /** Tools hidden from the model: `allow`/`deny` tool-name globs (`ctx.tools.restrict`). @default {{}} */
  readonly tools: ToolFilter;
}

/** The configuration used when no file exists. */
export const DEFAULT_CONFIG: AgentConfig = {
  model: { provider: "auto", model: "deepseek-chat", baseUrl: "https://api.deepseek.com" },
  toolMode: "native",
  permissions: [],
  defaultDecision: "allow",
  sandbox: "off",
  mcpServers: {},
  sessionsDir: ".dsh/sessions",
  roots: [],
  allowRun: [],
  tools: {},
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
    "sandbox",
    "mcpServers",
    "sessionsDir",
    "roots",
    "allowRun",
    "tools",
  ]);
  for (const key of Object.keys(top)) {
    if (!known.has(key)) {
      fail(source, `unknown key "${key}": expected one of ${[...known].join(", ")}`);
    }
  }
  const model = record(source, "model", top.model);
  const d = DEFAULT_CONFIG;
  let permissions: readonly PermissionRule[] = [];
  try {
    permissions = checkPermissionRules(top.permissions ?? []);
  } catch (error) {
    fail(source, (error as Error).message);
  }
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
    model: {
      provider: oneOf(
        source,
        "model.provider",
        model.provider,
        ["auto", "deepseek", "demo"],
        d.model.provider,
      ),
      model: str(source, "model.model", model.model, d.model.model),
      baseUrl: httpUrl(
        source,
        "model.baseUrl",
        str(source, "model.baseUrl", model.baseUrl, d.model.baseUrl),
      ),
    },
    toolMode: oneOf(source, "toolMode", top.toolMode, ["native", "code", "both"], d.toolMode),
    permissions,
    defaultDecision: oneOf(
      source,
      "defaultDecision",
      top.defaultDecision,
      DECISIONS,
      d.defaultDecision,
    ),
    sandbox: oneOf(source, "sandbox", top.sandbox, ["off", "workspace-write"], d.sandbox),
    mcpServers,
    sessionsDir: str(source, "sessionsDir", top.sessionsDir, d.sessionsDir),
    roots: strings(source, "roots", top.roots),
    allowRun: strings(source, "allowRun", top.allowRun),
    tools: toolFilter(source, top.tools),
  };
}

function toolFilter(source: string, value: unknown): ToolFilter {
  try {
    return checkToolFilter(value);
  } catch (error) {
    return fail(source, (error as Error).message);
  }
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
