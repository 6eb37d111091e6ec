/**
 * A permission gate plugin: rules of tool-name glob + argument globs → allow / ask / deny,
 * applied on `tools/pre-execute`. The rules are dsh.jsonc's `"permissions"` syntax, matched by
 * the same compiled matcher (`compilePermissionRules` from `@dsh/harness/registry`).
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
 * The first matching rule wins. The gate only tightens: it never turns an earlier `deny` into
 * `ask`/`allow`, nor an `ask` into `allow` (allow < ask < deny). Without a match the decision is
 * left as it is (or set to `fallback`).
 *
 * @module
 */
import {
  compilePermissionRules,
  type PermissionRule,
  type PreExecuteDecision,
  type PreExecuteListener,
  type RuleDecision,
} from "@dsh/harness/tools";
import type { Context } from "@dsh/harness/core";
import type { ToolExecution } from "@dsh/harness/tools";

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
  const { rules, fallback } = config ?? {};
  if (fallback !== undefined && !(fallback in SEVERITY)) {
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
  return function permissionGate(
    current: PreExecuteDecision,
    exec: ToolExecution,
  ): PreExecuteDecision | undefined {
    const found = match(exec.name, exec.arguments);
    const kind = found?.rule.decision ?? fallback;
    if (kind === undefined || SEVERITY[kind] <= SEVERITY[current.kind]) return undefined;
    if (kind === "allow") return { kind: "allow" };
    const verb = kind === "ask" ? "needs approval" : "is denied";
    const reason = found?.rule.reason ??
      (found === undefined
        ? `tool "${exec.name}" ${verb} (no permission rule allows it)`
        : `tool "${exec.name}" ${verb} by permission rule ${found.index + 1} (${
          JSON.stringify(found.rule.tool)
        })`);
    return kind === "ask" ? { kind: "ask", reason } : { kind: "deny", reason };
  };
}
