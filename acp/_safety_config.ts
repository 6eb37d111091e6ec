/**
 * The safety keys of `dsh.jsonc` (`sandbox`, `hiddenPaths`, `env`) and the built-in permission
 * defaults: work inside the sandbox is allowed, anything that leaves it asks (unsandboxed bash,
 * MCP tools). Parsed apart from the rest of the config so the keys stay in one place.
 *
 * @module
 */
import { checkEnvPolicy, type EnvPolicy } from "../core/env_policy.ts";
import { SANDBOX_MODES, type SandboxMode } from "../builtins/sandbox.ts";

/** The `sandbox` setting: `"auto"` is `workspace-write` where bubblewrap runs, else ask-first. */
export type SandboxSetting = "auto" | SandboxMode;

/** The parsed safety keys. */
export interface SafetyConfig {
  /** OS sandbox for bash. @default {"auto"} */
  readonly sandbox: SandboxSetting;
  /** Changes to the hidden credential paths (`"!path"` removes a default). @default {[]} */
  readonly hiddenPaths: readonly string[];
  /** The environment policy of every process a tool starts. @default {{}} */
  readonly env: EnvPolicy;
}

/** The keys this file parses. */
export const SAFETY_KEYS: readonly string[] = ["sandbox", "hiddenPaths", "env"];

/** The defaults. */
export const DEFAULT_SAFETY: SafetyConfig = { sandbox: "auto", hiddenPaths: [], env: {} };

/**
 * Parses the safety keys of a config object.
 *
 * @param top The parsed top-level object.
 * @param fail Reports an invalid value (throws).
 * @returns The safety config.
 */
export function parseSafety(
  top: Record<string, unknown>,
  fail: (message: string) => never,
): SafetyConfig {
  const settings = ["auto", ...SANDBOX_MODES];
  const sandbox = top.sandbox ?? DEFAULT_SAFETY.sandbox;
  if (typeof sandbox !== "string" || !settings.includes(sandbox)) {
    fail(
      `"sandbox" must be one of ${settings.map((s) => `"${s}"`).join(", ")}: received ${
        JSON.stringify(sandbox)
      }`,
    );
  }
  const hidden = top.hiddenPaths ?? [];
  if (
    !Array.isArray(hidden) ||
    !hidden.every((p) => typeof p === "string" && /^!?(~\/|\/)./.test(p))
  ) {
    fail(
      `"hiddenPaths" must be an array of absolute or "~/" paths (prefix "!" to un-hide a default): received ${
        JSON.stringify(hidden)
      }`,
    );
  }
  let env: EnvPolicy;
  try {
    env = checkEnvPolicy(top.env);
  } catch (error) {
    return fail((error as Error).message);
  }
  return { sandbox: sandbox as SandboxSetting, hiddenPaths: hidden as string[], env };
}

/** What the agent learned when it loaded bash. */
export interface SafetyState {
  /** True once bash runs inside bubblewrap; false when it runs on the host. */
  bashSandboxed: boolean | undefined;
  /** Said once per session at its first prompt (bubblewrap missing under `"auto"`). */
  notice: string | undefined;
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
  if (state.bashSandboxed === false) {
    rules.push({
      tool: "bash",
      decision: "ask",
      reason: "bash runs without a sandbox (unconfined on this machine)",
    });
  }
  return rules;
}
