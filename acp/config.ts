/**
 * The agent binary's JSONC configuration (`dsh.jsonc`): model, tool mode, permission rules,
 * sandbox, MCP servers, the sessions directory and plugins. One field table drives both the
 * validator and the JSON Schema (`dsh.schema.json`).
 *
 * @module
 */
import { parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import type { ConfigSchema } from "./_config_fields.ts";
import { compilePermissionRules, type RuleDecision } from "../tools/permission_rules.ts";
import { CONFIG_FIELD } from "./_config_table.ts";
import { type ConfigTrust, loadLayers } from "./_config_layers.ts";
import type { AgentConfig } from "./_config_types.ts";
import { checkModelEndpoint } from "./_model_endpoint.ts";

export type { ConfigSchema } from "./_config_fields.ts";
export type { SandboxSetting } from "./_safety_config.ts";
export type { ExecutorConfig, ExecutorProvider, ExecutorSecret } from "./_config_executor.ts";
export type { ConfigTrust } from "./_config_layers.ts";
export type { TrustItem } from "./_trust.ts";

// One rule syntax (globs) for dsh.jsonc, the permission-gate example and tool masks.
export type { PermissionRule, RuleDecision } from "../tools/permission_rules.ts";

export type { AgentConfig, ModelConfig, ModelProvider } from "./_config_types.ts";

function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

function fail(source: string, message: string): never {
  throw new SyntaxError(`Cannot read config "${source}": ${message}`);
}

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

/**
 * The configuration used when no file exists (every field's default). Frozen, all the way down:
 * every harness of the process reads the same object, so none may change it.
 */
export const DEFAULT_CONFIG: AgentConfig = frozen(parseValue({}, "(defaults)"));

function frozen<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  for (const item of Object.values(value)) frozen(item);
  return Object.freeze(value);
}

function parseValue(raw: unknown, source: string): AgentConfig {
  const { $schema: _, ...config } = CONFIG_FIELD.parse(
    raw,
    "(top level)",
    (message) => fail(source, message),
  );
  checkModelEndpoint(config.model.baseUrl, source);
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
  return parseValue(parseRawConfig(text, source), source);
}

/**
 * Parses JSONC text to its raw value (syntax only; {@linkcode parseConfig} also validates).
 *
 * @param text The file text.
 * @param source The file name used in error messages.
 * @returns The raw object (`{}` for a blank file).
 * @throws {SyntaxError} On a parse error (with line and column).
 */
function parseRawConfig(text: string, source: string): Record<string, unknown> {
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
  return (raw ?? {}) as Record<string, unknown>;
}

/**
 * Decides a call from the rules: the first rule whose tool glob and argument globs match wins.
 * The rules are compiled on each call (nothing is cached per configuration in the module): the
 * agent's permission gate compiles its rules once and holds the matcher itself.
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
  const rule = compilePermissionRules(config.permissions)(name, args)?.rule;
  if (rule === undefined) return { decision: config.defaultDecision };
  return {
    decision: rule.decision,
    ...(rule.reason !== undefined ? { reason: rule.reason } : {}),
  };
}

/** What {@linkcode loadConfig} read. */
export interface LoadedConfig {
  /** The configuration that applies (user-level, then the project's, subject to trust). */
  readonly config: AgentConfig;
  /** The project's (or `--config`) file, when one exists. */
  readonly file?: string;
  /** The user-level config file (`~/.config/dsh/dsh.jsonc`), when it exists. */
  readonly userFile?: string;
  /** The workspace trust of a project config (`undefined` when none is inside the workspace). */
  readonly trust?: ConfigTrust;
}

/** Options of {@linkcode loadConfig}. */
export interface LoadConfigOptions {
  /** Reads the environment (`XDG_CONFIG_HOME`, `HOME`). @default {Deno.env.get} */
  readonly env?: (name: string) => string | undefined;
}

/**
 * Reads the configuration: the user-level `dsh.jsonc` in the user's config folder (trusted),
 * with the project's on top: `path` when given, else `dsh.jsonc` in `cwd` when it exists. A
 * project config inside `cwd` gives no authority until the user trusts the folder (see
 * `trust` in the README): until then what it asks for is left out and listed in `trust`.
 *
 * @param cwd The workspace.
 * @param path An explicit config path (`--config`).
 * @param options Where the environment comes from.
 * @returns The configuration, the files it came from and the project's trust.
 * @throws {Deno.errors.NotFound} When an explicit `path` does not exist.
 * @throws {SyntaxError} When a file is invalid.
 *
 * @example Usage
 * ```ts ignore
 * import { loadConfig } from "./config.ts";
 * const { config, file, trust } = await loadConfig(Deno.cwd());
 * ```
 */
export function loadConfig(
  cwd: string,
  path?: string,
  options: LoadConfigOptions = {},
): Promise<LoadedConfig> {
  return loadLayers(cwd, path, options.env ?? Deno.env.get, {
    parseRaw: parseRawConfig,
    parseValue,
  });
}
