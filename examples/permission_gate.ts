/**
 * A permission gate plugin: rules of tool-name glob + argument patterns → allow / ask / deny,
 * applied on `tools/pre-execute`.
 *
 * ```ts ignore
 * import * as permissionGate from "./examples/permission_gate.ts";
 * ctx.plugin(permissionGate, {
 *   rules: [
 *     { tool: "bash", args: { command: "rm *" }, decision: "deny", reason: "no rm, ever" },
 *     { tool: "fs_write", decision: "ask" },
 *     { tool: "fs_*", decision: "allow" },
 *   ],
 * });
 * ```
 *
 * The first matching rule wins. The gate only tightens: it never turns an earlier `deny` into
 * `ask`/`allow`, nor an `ask` into `allow` (allow < ask < deny). Without a match the decision is
 * left as it is (or set to `fallback`).
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import type { JsonValue } from "../core/json.ts";
import type { PreExecuteDecision, PreExecuteListener } from "../registry/types.ts";
import type { ToolExecution } from "../tools/definition.ts";

/** One rule. */
export interface PermissionRule {
  /** Tool name glob: `*` matches any run of characters, `?` one character. */
  readonly tool: string;
  /**
   * Argument globs by dotted path (`command`, `options.mode`, `paths.0`). Strings are matched
   * as they are, other values as their JSON text; a missing argument never matches.
   */
  readonly args?: Readonly<Record<string, string>>;
  /** What a match decides. */
  readonly decision: "allow" | "ask" | "deny";
  /** The reason the model (deny) or the user (ask) sees. */
  readonly reason?: string;
}

/** The gate's config. */
export interface PermissionGateConfig {
  /** Rules, first match wins. */
  readonly rules: readonly PermissionRule[];
  /** Decision when no rule matches; `undefined` keeps the current one. @default {undefined} */
  readonly fallback?: "allow" | "ask" | "deny";
}

/**
 * Plugin name (the fiber's name in logs).
 *
 * @example Usage
 * ```ts
 * import { name } from "./permission_gate.ts";
 * import { equal } from "node:assert/strict";
 * equal(name, "permission-gate");
 * ```
 */
export const name: string = "permission-gate";
/**
 * The gate needs the registry: it applies once `ctx.tools` is provided.
 *
 * @example Usage
 * ```ts
 * import { inject } from "./permission_gate.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(inject, ["tools"]);
 * ```
 */
export const inject: readonly string[] = ["tools"];

const SEVERITY = { allow: 0, ask: 1, deny: 2 } as const;

/**
 * Installs the gate as a `tools/pre-execute` listener of this plugin's fiber.
 *
 * @param ctx The plugin context.
 * @param config The rules.
 * @throws {TypeError} When a rule is malformed.
 *
 * @example Usage
 * ```ts
 * import * as permissionGate from "./permission_gate.ts";
 * import { createHarness } from "../registry/mod.ts";
 * import { equal } from "node:assert/strict";
 * const ctx = await createHarness();
 * ctx.plugin(permissionGate, { rules: [{ tool: "*", decision: "deny", reason: "read-only session" }] });
 * ctx.tools.register({ name: "touch", description: "", parameters: {}, execute: () => [] });
 * const outcome = await ctx.tools.execute({ callId: "1", name: "touch", arguments: {} });
 * equal(outcome.error?.message, "read-only session");
 * await ctx.fiber.dispose();
 * ```
 */
export function apply(ctx: Context, config: PermissionGateConfig): void {
  ctx.on("tools/pre-execute", createPermissionGate(config));
}

/**
 * Builds the `tools/pre-execute` listener for `config` (rules are compiled once).
 *
 * @param config The rules.
 * @returns The listener.
 * @throws {TypeError} When a rule is malformed.
 *
 * @example Usage
 * ```ts
 * import { createPermissionGate } from "./permission_gate.ts";
 * import { deepEqual } from "node:assert/strict";
 * const gate = createPermissionGate({ rules: [{ tool: "bash", args: { command: "git *" }, decision: "allow" }], fallback: "ask" });
 * const exec = { name: "bash", arguments: { command: "rm -rf /" } } as never;
 * deepEqual(gate({ kind: "allow" }, exec), { kind: "ask", reason: 'tool "bash" needs approval (no permission rule allows it)' });
 * ```
 */
export function createPermissionGate(config: PermissionGateConfig): PreExecuteListener {
  const rules = compile(config);
  const fallback = config.fallback;
  return function permissionGate(
    current: PreExecuteDecision,
    exec: ToolExecution,
  ): PreExecuteDecision | undefined {
    const index = rules.findIndex((rule) => rule.matches(exec));
    const rule = config.rules[index];
    const kind = rule?.decision ?? fallback;
    if (kind === undefined || SEVERITY[kind] <= SEVERITY[current.kind]) return undefined;
    if (kind === "allow") return { kind: "allow" };
    const reason = rule?.reason ??
      (rule === undefined
        ? `tool "${exec.name}" ${
          kind === "ask" ? "needs approval" : "is denied"
        } (no permission rule allows it)`
        : `tool "${exec.name}" ${
          kind === "ask" ? "needs approval" : "is denied"
        } by permission rule ${index + 1} (${JSON.stringify(rule.tool)})`);
    return kind === "ask" ? { kind: "ask", reason } : { kind: "deny", reason };
  };
}

/**
 * Whether `text` matches `glob` (`*` any run, `?` one character, everything else literal).
 *
 * @param glob The pattern.
 * @param text The text.
 * @returns `true` on a full match.
 *
 * @example Usage
 * ```ts
 * import { matchGlob } from "./permission_gate.ts";
 * import { equal } from "node:assert/strict";
 * equal(matchGlob("fs_*", "fs_read"), true);
 * equal(matchGlob("fs_?", "fs_read"), false);
 * ```
 */
export function matchGlob(glob: string, text: string): boolean {
  return globToRegExp(glob).test(text);
}

function globToRegExp(glob: string): RegExp {
  const source = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^]*").replace(
    /\?/g,
    "[^]",
  );
  return new RegExp(`^${source}$`);
}

function compile(config: PermissionGateConfig): { matches(exec: ToolExecution): boolean }[] {
  if (!Array.isArray(config?.rules)) {
    throw new TypeError(
      `Cannot create a permission gate: rules must be an array, received ${typeof config?.rules}`,
    );
  }
  if (config.fallback !== undefined && !(config.fallback in SEVERITY)) {
    throw new TypeError(
      `Cannot create a permission gate: fallback is ${
        JSON.stringify(config.fallback)
      }, expected "allow", "ask" or "deny"`,
    );
  }
  return config.rules.map((rule, i) => {
    if (typeof rule?.tool !== "string" || !(rule.decision in SEVERITY)) {
      throw new TypeError(
        `Cannot create a permission gate: rule ${
          i + 1
        } must have a string tool glob and a decision of "allow", "ask" or "deny", received ${
          JSON.stringify(rule)
        }`,
      );
    }
    const tool = globToRegExp(rule.tool);
    const args = Object.entries(rule.args ?? {}).map(([path, glob]) => {
      if (typeof glob !== "string") {
        throw new TypeError(
          `Cannot create a permission gate: rule ${i + 1} argument "${path}" must be a glob string`,
        );
      }
      return { path: path.split("."), pattern: globToRegExp(glob) };
    });
    return {
      matches(exec: ToolExecution): boolean {
        if (!tool.test(exec.name)) return false;
        return args.every(({ path, pattern }) => {
          const value = lookup(exec.arguments, path);
          if (value === undefined) return false;
          return pattern.test(typeof value === "string" ? value : JSON.stringify(value));
        });
      },
    };
  });
}

function lookup(value: JsonValue, path: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, key)) {
      return undefined;
    }
    current = (current as Readonly<Record<string, JsonValue>>)[key];
  }
  return current;
}
