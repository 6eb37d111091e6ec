/**
 * The `sandbox` setting and the built-in permission defaults: work inside the sandbox is
 * allowed, anything that leaves it asks (unsandboxed bash, MCP tools).
 *
 * @module
 */
import type { SandboxMode } from "../builtins/sandbox.ts";

/** The `sandbox` setting: `"auto"` is `workspace-write` where bubblewrap runs, else ask-first. */
export type SandboxSetting = "auto" | SandboxMode;

/** What the agent learned when it loaded bash. */
export interface SafetyState {
  /** True once bash runs inside bubblewrap; false when it runs on the host. */
  bashSandboxed: boolean | undefined;
  /** Said once per session at its first prompt (bubblewrap missing under `"auto"`). */
  notice: string | undefined;
  /** Probes the sandbox once (acp/_lazy_bash.ts); each session's first prompt awaits it. */
  probe?: () => Promise<unknown>;
}

/** A rule of the built-in defaults (same shape as a config permission rule). */
export interface DefaultRule {
  /** Tool name, or a prefix ending in `*`. */
  readonly tool: string;
  /** Always `"ask"`. */
  readonly decision: "ask";
  /** Shown with the prompt. */
  readonly reason: string;
}

/** The notice (stderr and session) when bubblewrap is missing under `"sandbox": "auto"`. */
export function missingSandboxNotice(reason: string): string {
  return `bubblewrap is not available here (${reason}), so bash cannot run in the workspace-write sandbox: dsh asks before every bash command instead of running it unconfined. Install it with \`apt-get install bubblewrap\` (or your system's package manager) and restart the agent.`;
}

/**
 * The built-in rules checked after the user's own (`permissions` in `dsh.jsonc`): MCP tools ask
 * until the user allows them, bash asks whenever it runs outside the sandbox. Writes outside the
 * workspace ask through the workspace policy.
 *
 * @param state What the agent learned when it loaded bash.
 * @returns The rules.
 *
 * @example Usage
 * ```ts
 * import { defaultRules } from "./_safety_config.ts";
 * import { equal } from "node:assert/strict";
 * equal(defaultRules({ bashSandboxed: false, notice: undefined }).length, 2);
 * ```
 */
export function defaultRules(state: SafetyState): DefaultRule[] {
  const rules: DefaultRule[] = [{
    tool: "mcp__*",
    decision: "ask",
    reason: "MCP tools run outside the sandbox; allow this one once or always",
  }];
  // Not probed yet (a call before any prompt awaited the probe): ask, the safe side.
  if (state.bashSandboxed !== true) {
    rules.push({
      tool: "bash",
      decision: "ask",
      reason: "bash runs without a sandbox (unconfined on this machine)",
    });
  }
  return rules;
}
