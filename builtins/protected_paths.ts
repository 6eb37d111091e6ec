/**
 * Protected paths: the files the agent itself trusts or executes (its config, plugin files and
 * the local modules they import, its own state folder, `.git/`, editor settings). The sandbox
 * binds them read-only and the fs tools ask (or deny) before writing them, naming why. One
 * instance per harness, filled by whoever knows a path: the defaults per workspace root, the
 * config loader, the plugin loader on each (re)load.
 *
 * @module
 */
import { isInside } from "../tools/paths.ts";

/** What a write to a protected path gets from the fs tools. */
export type ProtectedDecision = "ask" | "deny";

/** One protected path and why. */
export interface ProtectedPath {
  /** Absolute, normalized path (a file or a folder: everything inside a folder is covered). */
  readonly path: string;
  /** Why it is protected, shown to the user: `"the agent's config"`, `"a plugin file"`. */
  readonly reason: string;
  /** What an fs-tool write gets. @default {"ask"} */
  readonly decision?: ProtectedDecision;
}

/** Names protected in every workspace root, with their reasons. */
export const WORKSPACE_PROTECTED_NAMES: readonly (readonly [string, string])[] = [
  ["dsh.jsonc", "the agent's project config"],
  [".dsh", "the agent's state folder"],
  [".git", "git runs its config and hooks on the host"],
  [".zed", "editor settings the editor acts on"],
  [".vscode", "editor settings the editor acts on"],
];

/**
 * The defaults for one workspace root: {@linkcode WORKSPACE_PROTECTED_NAMES} inside it.
 *
 * @param root An absolute, normalized workspace root.
 * @returns The protected paths.
 *
 * @example Usage
 * ```ts
 * import { workspaceProtectedPaths } from "./protected_paths.ts";
 * import { equal } from "node:assert/strict";
 * equal(workspaceProtectedPaths("/w")[0]?.path, "/w/dsh.jsonc");
 * ```
 */
export function workspaceProtectedPaths(root: string): ProtectedPath[] {
  const base = root === "/" ? "" : root;
  return WORKSPACE_PROTECTED_NAMES.map(([name, reason]) => ({ path: `${base}/${name}`, reason }));
}

/**
 * The protected set of one harness. Sources (`"defaults"`, `"config"`, `"plugin:<name>"`) each
 * own a list that {@linkcode ProtectedPaths.set} replaces, so a reloaded plugin's new imports
 * replace its old ones.
 *
 * @example Usage
 * ```ts
 * import { ProtectedPaths } from "./protected_paths.ts";
 * import { equal } from "node:assert/strict";
 * const paths = new ProtectedPaths(["/w"]);
 * paths.set("plugin:x", [{ path: "/w/tools/x.ts", reason: "a plugin file" }]);
 * equal(paths.find("/w/.git/config")?.path, "/w/.git");
 * equal(paths.find("/w/tools/x.ts")?.reason, "a plugin file");
 * equal(paths.find("/w/src/a.ts"), undefined);
 * ```
 */
export class ProtectedPaths {
  readonly #sources = new Map<string, readonly ProtectedPath[]>();

  /**
   * Creates the set with the defaults of each workspace root.
   *
   * @param roots Workspace roots whose {@linkcode workspaceProtectedPaths} are the `"defaults"`.
   */
  constructor(roots: readonly string[] = []) {
    this.#sources.set("defaults", roots.flatMap(workspaceProtectedPaths));
  }

  /**
   * Replaces the paths of one source.
   *
   * @param source Who knows these paths.
   * @param paths The paths (absolute, normalized).
   */
  set(source: string, paths: readonly ProtectedPath[]): void {
    this.#sources.set(source, [...paths]);
  }

  /**
   * Every protected path, in source order.
   *
   * @returns The list.
   */
  list(): readonly ProtectedPath[] {
    return [...this.#sources.values()].flat();
  }

  /**
   * The protected path that covers `path` (it or a folder above it); a `deny` entry wins over
   * an `ask` one.
   *
   * @param path An absolute, normalized (and, for a decision, fully resolved) path.
   * @returns The covering entry, or `undefined`.
   */
  find(path: string): ProtectedPath | undefined {
    let found: ProtectedPath | undefined;
    for (const entry of this.list()) {
      if (!isInside(path, entry.path)) continue;
      if (entry.decision === "deny") return entry;
      found ??= entry;
    }
    return found;
  }
}
