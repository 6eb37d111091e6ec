/**
 * Private: the agent's protected paths. One {@linkcode ProtectedPaths} per agent: the defaults
 * of each workspace root, the config files (`"config"`) and the user's own dsh folders
 * (`"user"`, decision `deny`: the user-level config, the trust records, session state). The
 * bash sandbox and the fs tools read it; {@linkcode protectedWriteGate} also denies an fs-tool
 * read or write of a `deny` entry before any prompt, so no answer of the model or "always allow" reaches
 * the trust records.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { ProtectedPaths } from "../builtins/protected_paths.ts";
import { userConfigDir, userStateDir } from "../core/user_dirs.ts";
import type { PreExecuteDecision } from "../registry/mod.ts";
import type { ToolExecution } from "../tools/mod.ts";

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

/** The path as the OS would reach it: the deepest existing ancestor's links resolved. */
function resolvedPath(path: string): string {
  let head = path;
  let tail = "";
  for (;;) {
    try {
      return resolve(Deno.realPathSync(head), tail);
    } catch {
      const parent = dirname(head);
      if (parent === head) return path;
      tail = tail === ""
        ? head.slice(parent.length + 1)
        : `${head.slice(parent.length + 1)}/${tail}`;
      head = parent;
    }
  }
}

// Reads too: the user folders hold the API key file and the key that signs session logs.
const FS_TOOLS = new Set(["read", "write", "edit"]);

/**
 * A `tools/pre-execute` listener: `read`, `write` and `edit` of a path under a `deny` entry are denied,
 * naming why (checked on the path as written and with its links resolved).
 *
 * @param paths The protected set.
 * @param workspace The base of relative paths when the call has no agent.
 */
export function protectedWriteGate(
  paths: ProtectedPaths,
  workspace: string,
): (decision: PreExecuteDecision, exec: ToolExecution) => PreExecuteDecision | undefined {
  return (decision, exec) => {
    if (decision.kind === "deny" || !FS_TOOLS.has(exec.name)) return undefined;
    const file = (exec.arguments as { file_path?: unknown } | null)?.file_path;
    if (typeof file !== "string" || file === "") return undefined;
    const path = resolve(exec.agent?.cwd ?? workspace, file);
    for (const candidate of [path, resolvedPath(path)]) {
      const entry = paths.find(candidate);
      if (entry?.decision === "deny") {
        return {
          kind: "deny",
          reason: `${exec.name} may not ${
            exec.name === "read" ? "read" : "change"
          } ${candidate}: it is ${entry.reason} (only the user reads and edits it, outside the agent)`,
        };
      }
    }
    return undefined;
  };
}
