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
import { dirname, resolve } from "node:path";
import type { ConfigTrust } from "./config.ts";
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
  /**
   * The project config's trust: the local plugin files it asks to run are protected even before
   * the folder is trusted, so nothing a tool writes now runs once the user trusts it.
   */
  readonly trust?: ConfigTrust | undefined;
}

/** The local plugin files a project config asks for (`plugin:<specifier>` items). */
function askedPluginFiles(trust: ConfigTrust): string[] {
  return trust.asked.flatMap(({ key }) => {
    const specifier = key.startsWith("plugin:") ? key.slice("plugin:".length) : "";
    return /^\.{0,2}\//.test(specifier) ? [resolve(dirname(trust.file), specifier)] : [];
  });
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
  if (options.trust !== undefined) {
    paths.set(
      "asked-plugins",
      askedPluginFiles(options.trust).map((path) => ({
        path,
        reason: "a plugin file this folder's config asks to run in the agent",
      })),
    );
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
