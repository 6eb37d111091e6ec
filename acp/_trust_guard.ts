/**
 * Private: the agent's protected paths. One {@linkcode ProtectedPaths} per agent: the defaults
 * of each workspace root, the config files (`"config"`) and the user's own dsh folders
 * (`"user"`, decision `deny`: the user-level config, the trust records, session state). The
 * bash sandbox binds it read-only and the workspace policy asks before an fs-tool write to it,
 * and denies reads and writes of a `deny` entry outright (no answer or "always allow" reaches the
 * trust records or the keys).
 *
 * @module
 */
import { resolve } from "node:path";
import { ProtectedPaths } from "../builtins/protected_paths.ts";
import { userConfigDir, userStateDir } from "../core/user_dirs.ts";

/** What the protected set is built from. */
export interface AgentProtectedOptions {
  /** The workspace roots (absolute). */
  readonly roots: readonly string[];
  /** The project (or `--config`) file. */
  readonly configFile?: string | undefined;
  /** Reads the environment (`HOME`, `XDG_CONFIG_HOME`, `XDG_STATE_HOME`). @default {Deno.env.get} */
  readonly env?: (name: string) => string | undefined;
}

function tryDir(dir: () => string): string | undefined {
  try {
    return dir();
  } catch {
    return undefined;
  }
}

/** Builds the agent's protected set. */
export function agentProtectedPaths(options: AgentProtectedOptions): ProtectedPaths {
  const env = options.env ?? Deno.env.get;
  const paths = new ProtectedPaths(options.roots);
  if (options.configFile !== undefined) {
    paths.set("config", [{ path: resolve(options.configFile), reason: "the agent's config" }]);
  }
  const config = tryDir(() => userConfigDir(env));
  const state = tryDir(() => userStateDir(env));
  paths.set("user", [
    ...(config === undefined ? [] : [{
      path: config,
      reason: "the user's dsh config and workspace trust records",
      decision: "deny" as const,
    }]),
    ...(state === undefined ? [] : [{
      path: state,
      reason: "the user's dsh state (session logs and locks)",
      decision: "deny" as const,
    }]),
  ]);
  return paths;
}
