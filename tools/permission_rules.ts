/**
 * Permission rules: the one rule syntax of `dsh.jsonc` `"permissions"`, the permission-gate
 * example and tool masks. Tool names and argument values are matched with globs (`*` any run of
 * characters, `?` one character, everything else literal), compiled once.
 *
 * @module
 */
import { describeValue } from "../core/error_message.ts";

/** A permission decision. */
export type RuleDecision = "allow" | "ask" | "deny";

/**
 * One permission rule; the first rule that matches a call decides.
 *
 * @example Usage
 * ```ts
 * import type { PermissionRule } from "./permission_rules.ts";
 * const rules: PermissionRule[] = [
 *   { tool: "bash", args: { command: "rm *" }, decision: "deny", reason: "no rm" },
 *   { tool: "write", decision: "ask" },
 *   { tool: "mcp__*", decision: "allow" },
 * ];
 * ```
 */
export interface PermissionRule {
  /** Tool name glob, such as `bash`, `mcp__github__*` or `*`. */
  readonly tool: string;
  /**
   * Argument globs by dotted path (`command`, `options.mode`, `paths.0`): every one must match.
   * Strings are matched as they are, other values as their JSON text; a missing argument never
   * matches. @default {{}}
   */
  readonly args?: Readonly<Record<string, string>>;
  /** What a match decides. */
  readonly decision: RuleDecision;
  /** The reason the model (deny) or the user (ask) sees. @default {undefined} */
  readonly reason?: string;
}

/** The rule a call matched and its 0-based position. */
export interface RuleMatch {
  /** The rule. */
  readonly rule: PermissionRule;
  /** Its index in the list. */
  readonly index: number;
}

/**
 * Compiled rules: the first rule matching a tool name and its arguments, or `undefined`.
 *
 * @param name The tool name.
 * @param args The call's arguments.
 * @returns The match.
 */
export type PermissionMatcher = (name: string, args: unknown) => RuleMatch | undefined;

const DECISIONS: readonly string[] = ["allow", "ask", "deny"];
const RULE_KEYS = new Set(["tool", "args", "decision", "reason"]);
const GLOB_SPECIAL_REGEXP = /[.+^${}()|[\]\\]/g;

/**
 * Compiles a glob (`*` any run of characters, `?` one character) to an anchored RegExp.
 *
 * @param glob The pattern.
 * @returns The RegExp.
 *
 * @example Usage
 * ```ts
 * import { globToRegExp } from "./permission_rules.ts";
 * import { equal } from "node:assert/strict";
 * equal(globToRegExp("git *").test("git status --short"), true);
 * equal(globToRegExp("mcp__*").test("bash"), false);
 * ```
 */
export function globToRegExp(glob: string): RegExp {
  const source = glob.replace(GLOB_SPECIAL_REGEXP, "\\$&").replace(/\*/g, "[^]*")
    .replace(/\?/g, "[^]");
  return new RegExp(`^${source}$`);
}

/**
 * Whether `text` matches `glob` in full. Compiles the glob on every call: compile rules once with
 * {@linkcode compilePermissionRules} or {@linkcode globToRegExp} on hot paths.
 *
 * @param glob The pattern.
 * @param text The text.
 * @returns `true` on a full match.
 *
 * @example Usage
 * ```ts
 * import { matchGlob } from "./permission_rules.ts";
 * import { equal } from "node:assert/strict";
 * equal(matchGlob("mcp__*", "mcp__github__search"), true);
 * equal(matchGlob("rea?", "read"), true);
 * ```
 */
export function matchGlob(glob: string, text: string): boolean {
  return globToRegExp(glob).test(text);
}

/**
 * Checks permission rules given as JSON (a config file) and returns them typed and frozen.
 *
 * @param value The rules.
 * @param key The config key, for messages. @default {"permissions"}
 * @returns The rules.
 * @throws {TypeError} On a malformed rule, naming the key path, the value and what is expected.
 *
 * @example Usage
 * ```ts
 * import { checkPermissionRules } from "./permission_rules.ts";
 * import { throws } from "node:assert/strict";
 * checkPermissionRules([{ tool: "bash", args: { command: "rm *" }, decision: "ask" }]);
 * throws(() => checkPermissionRules([{ tool: "bash", decision: "maybe" }]), {
 *   message: '"permissions[0].decision" must be one of "allow", "ask", "deny": received "maybe"',
 * });
 * ```
 */
export function checkPermissionRules(
  value: unknown,
  key = "permissions",
): readonly PermissionRule[] {
  if (!Array.isArray(value)) {
    throw new TypeError(
      `"${key}" must be an array of rules: received ${describeValue(value)}`,
    );
  }
  return Object.freeze(value.map((rule, i) => checkRule(rule, `${key}[${i}]`)));
}

function checkRule(rule: unknown, at: string): PermissionRule {
  if (typeof rule !== "object" || rule === null || Array.isArray(rule)) {
    throw new TypeError(`"${at}" must be an object: received ${describeValue(rule)}`);
  }
  const r = rule as Record<string, unknown>;
  for (const name of Object.keys(r)) {
    if (name === "pattern" || name === "arg") {
      throw new TypeError(
        `"${at}.${name}" is not supported: rules match arguments with globs in "args", for example {"tool": "bash", "args": {"command": "rm *"}, "decision": "ask"}`,
      );
    }
    if (!RULE_KEYS.has(name)) {
      throw new TypeError(
        `"${at}" has an unknown key "${name}": expected "tool", "args", "decision" and "reason"`,
      );
    }
  }
  if (typeof r.tool !== "string" || r.tool === "") {
    throw new TypeError(
      `"${at}.tool" must be a non-empty tool name glob (such as "bash" or "mcp__*"): received ${
        describeValue(r.tool)
      }`,
    );
  }
  if (typeof r.decision !== "string" || !DECISIONS.includes(r.decision)) {
    throw new TypeError(
      `"${at}.decision" must be one of "allow", "ask", "deny": received ${
        describeValue(r.decision)
      }`,
    );
  }
  if (r.reason !== undefined && typeof r.reason !== "string") {
    throw new TypeError(`"${at}.reason" must be a string: received ${describeValue(r.reason)}`);
  }
  let args: Record<string, string> | undefined;
  if (r.args !== undefined) {
    if (typeof r.args !== "object" || r.args === null || Array.isArray(r.args)) {
      throw new TypeError(
        `"${at}.args" must be an object of argument globs: received ${describeValue(r.args)}`,
      );
    }
    args = {};
    for (const [path, glob] of Object.entries(r.args)) {
      if (typeof glob !== "string") {
        throw new TypeError(
          `"${at}.args.${path}" must be a glob string: received ${describeValue(glob)}`,
        );
      }
      args[path] = glob;
    }
  }
  return Object.freeze({
    tool: r.tool,
    decision: r.decision as RuleDecision,
    ...(args !== undefined ? { args: Object.freeze(args) } : {}),
    ...(r.reason !== undefined ? { reason: r.reason as string } : {}),
  });
}

/**
 * Checks and compiles rules once into a {@linkcode PermissionMatcher}.
 *
 * @param rules The rules, first match wins.
 * @returns The matcher.
 * @throws {TypeError} On a malformed rule.
 *
 * @example Usage
 * ```ts
 * import { compilePermissionRules } from "./permission_rules.ts";
 * import { equal } from "node:assert/strict";
 * const match = compilePermissionRules([
 *   { tool: "bash", args: { command: "git *" }, decision: "allow" },
 *   { tool: "*", decision: "ask" },
 * ]);
 * equal(match("bash", { command: "git status" })?.index, 0);
 * equal(match("bash", { command: "rm -rf /" })?.rule.decision, "ask");
 * ```
 */
export function compilePermissionRules(rules: readonly PermissionRule[]): PermissionMatcher {
  const compiled = checkPermissionRules(rules).map((rule, index) => ({
    rule,
    index,
    tool: globToRegExp(rule.tool),
    args: Object.entries(rule.args ?? {}).map(([path, glob]) => ({
      path: path.split("."),
      pattern: globToRegExp(glob),
    })),
  }));
  return function matchRule(name: string, args: unknown): RuleMatch | undefined {
    for (const entry of compiled) {
      if (!entry.tool.test(name)) continue;
      const matches = entry.args.every(({ path, pattern }) => {
        const value = lookup(args, path);
        if (value === undefined) return false;
        return pattern.test(typeof value === "string" ? value : JSON.stringify(value));
      });
      if (matches) return { rule: entry.rule, index: entry.index };
    }
    return undefined;
  };
}

function lookup(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, key)) {
      return undefined;
    }
    current = (current as Readonly<Record<string, unknown>>)[key];
  }
  return current;
}
