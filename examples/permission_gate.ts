/**
 * A permission gate plugin: rules of tool-name glob + argument globs → allow / ask / deny,
 * installed as `tools/pre-execute` middleware with `ctx.tools.use()`. The rules are dsh.jsonc's
 * `"permissions"` syntax, matched by the same compiled matcher (`compilePermissionRules` from
 * `@dsh/harness/tools`).
 *
 * ```ts
 * import * as permissionGate from "./permission_gate.ts";
 * import { createHarness } from "@dsh/harness";
 * const ctx = await createHarness();
 * await ctx.plugin(permissionGate, {
 *   rules: [
 *     { tool: "bash", args: { command: "rm *" }, decision: "deny", reason: "no rm, ever" },
 *     { tool: "write", decision: "ask" },
 *     { tool: "read", decision: "allow" },
 *     { tool: "mcp__*", decision: "ask" },
 *   ],
 * }).ready;
 * await ctx.fiber.dispose();
 * ```
 *
 * The first matching rule wins. A `deny` or `ask` is the gate's decision; an `allow` passes the
 * call on (`next()`), so the gate only tightens: the chain lets a deny win over any ask, and no
 * middleware can undo another's deny (allow < ask < deny). Without a match the call passes on (or
 * gets `fallback`).
 *
 * @module
 */
import { compilePermissionRules, type PermissionRule, type RuleDecision } from "@dsh/harness/tools";
import type { PreExecuteMiddleware } from "@dsh/harness/registry";
import type { ToolsContext } from "@dsh/harness";

export type { PermissionRule };

/** The gate's config. */
export interface PermissionGateConfig {
  /** Rules, first match wins. */
  readonly rules: readonly PermissionRule[];
  /** Decision when no rule matches; `undefined` keeps the current one. @default {undefined} */
  readonly fallback?: RuleDecision;
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

const DECISIONS: readonly string[] = ["allow", "ask", "deny"];

/**
 * Installs the gate as `tools/pre-execute` middleware of this plugin's fiber (disposing the
 * plugin removes it).
 *
 * @param ctx The plugin context.
 * @param config The rules.
 * @throws {TypeError} When a rule is malformed.
 *
 * @example Usage
 * ```ts
 * import * as permissionGate from "./permission_gate.ts";
 * import { createHarness } from "@dsh/harness";
 * import { equal } from "node:assert/strict";
 * const ctx = await createHarness();
 * ctx.plugin(permissionGate, { rules: [{ tool: "*", decision: "deny", reason: "read-only session" }] });
 * ctx.tools.register({ name: "touch", description: "", parameters: {}, execute: () => [] });
 * const outcome = await ctx.tools.execute({ callId: "1", name: "touch", arguments: {} });
 * equal(outcome.error?.message, "read-only session");
 * await ctx.fiber.dispose();
 * ```
 */
export function apply(ctx: ToolsContext, config: PermissionGateConfig): void {
  ctx.tools.use("tools/pre-execute", createPermissionGate(config));
}

/**
 * Builds the `tools/pre-execute` middleware for `config` (rules are compiled once).
 *
 * @param config The rules.
 * @returns The middleware: a `deny` or `ask` decision, or `next()`.
 * @throws {TypeError} When a rule is malformed.
 *
 * @example Usage
 * ```ts
 * import { createPermissionGate } from "./permission_gate.ts";
 * import { deepEqual } from "node:assert/strict";
 * const gate = createPermissionGate({ rules: [{ tool: "bash", args: { command: "git *" }, decision: "allow" }], fallback: "ask" });
 * const call = { name: "bash", arguments: { command: "rm -rf /" } } as never;
 * const next = () => Promise.resolve({ isError: false, content: [] });
 * deepEqual(gate(call, next), { kind: "ask", reason: 'tool "bash" needs approval (no permission rule allows it)' });
 * ```
 */
export function createPermissionGate(config: PermissionGateConfig): PreExecuteMiddleware {
  const { rules, fallback } = config ?? {};
  if (fallback !== undefined && !DECISIONS.includes(fallback)) {
    throw new TypeError(
      `Cannot create a permission gate: fallback is ${
        JSON.stringify(fallback)
      }, expected "allow", "ask" or "deny"`,
    );
  }
  let match: ReturnType<typeof compilePermissionRules>;
  try {
    match = compilePermissionRules(rules);
  } catch (error) {
    throw new TypeError(`Cannot create a permission gate: ${(error as Error).message}`);
  }
  return function permissionGate(call, next) {
    const found = match(call.name, call.arguments);
    const kind = found?.rule.decision ?? fallback;
    if (kind === undefined || kind === "allow") return next();
    const verb = kind === "ask" ? "needs approval" : "is denied";
    const reason = found?.rule.reason ??
      (found === undefined
        ? `tool "${call.name}" ${verb} (no permission rule allows it)`
        : `tool "${call.name}" ${verb} by permission rule ${found.index + 1} (${
          JSON.stringify(found.rule.tool)
        })`);
    return kind === "ask" ? { kind: "ask", reason } : { kind: "deny", reason };
  };
}
