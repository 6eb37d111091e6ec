/**
 * Workspace policy: a `tools/pre-execute` listener that asks about (or denies) fs tool calls
 * whose `file_path` lies outside the workspace, and writes to a protected path (the agent's
 * config, `.git/`, editor settings, plugin files: {@linkcode ProtectedPaths}) even inside it.
 *
 * Every decision is made on the complete target the kernel will reach: every symlink is
 * followed, dangling links and chains included (a write through a dangling link creates its
 * target), and `..` inside a link target is applied to the link's real directory. A path that
 * reaches outside through a symlink is outside; a path whose target cannot be determined (a
 * symlink loop, an unreadable component) counts as outside. A protected path is matched both as
 * named and as resolved, so a workspace symlink to `.git` is protected too.
 *
 * Its asks are scoped: an "Always allow" for a path outside covers that tool in that real
 * folder only (the folder's own files, not its subfolders; in a hidden folder such as `~/.ssh`,
 * that file only), and one for a protected path covers that exact path; another outside path asks again. Such an ask replaces an earlier, unscoped
 * one (a permission rule's), so a tool-wide "always" never covers it.
 *
 * The tools open the real path themselves and ask this policy again (`fs/target`) with what they
 * are about to open: a call judged on another real path (a folder or symlink swapped while the
 * user was asked) is refused with `FS_CHANGED` before any I/O.
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import type { ToolExecution } from "../tools/definition.ts";
import type { ToolRegistry } from "../registry/types.ts";
import type { ApprovalScope } from "../registry/hooks.ts";
import { baseDir, policyFilePath, resolveTarget } from "./_paths.ts";
import { isInside, resolvePath } from "../tools/paths.ts";
import { ProtectedPaths } from "./protected_paths.ts";
import { FS_TARGET_EVENT } from "./fs_plugin.ts";
import type { FsTarget } from "./_fs_types.ts";
import { fsChanged } from "./_safe_fs.ts";

/** Config of {@linkcode workspacePolicyPlugin}. */
export interface WorkspacePolicyConfig {
  /** The workspace root (absolute). @default {the call's agent cwd, else Deno.cwd()} */
  readonly root?: string;
  /** The decision for a path outside the workspace. @default {"ask"} */
  readonly outside?: "ask" | "deny";
  /** Tools whose `file_path` is checked. @default {["read", "write", "edit"]} */
  readonly tools?: readonly string[];
  /** Of those, the tools that write (checked against the protected paths). @default {["write", "edit"]} */
  readonly writeTools?: readonly string[];
  /**
   * Paths whose writes ask (or deny, per entry) even inside the workspace. The defaults of the
   * call's workspace root (`dsh.jsonc`, `.dsh`, `.git`, `.zed`, `.vscode`) are always checked too.
   * @default {new ProtectedPaths([root])}
   */
  readonly protectedPaths?: ProtectedPaths;
}

/**
 * The reason given for a path outside the workspace.
 *
 * @param tool The tool name.
 * @param path The absolute path.
 * @param root The workspace root.
 * @returns The reason text.
 *
 * @example Usage
 * ```ts
 * import { outsideWorkspaceReason } from "./workspace_policy.ts";
 * import { equal } from "node:assert/strict";
 * equal(outsideWorkspaceReason("read", "/etc/x", "/w"), 'read of "/etc/x" is outside the workspace "/w"');
 * ```
 */
export function outsideWorkspaceReason(tool: string, path: string, root: string): string {
  return `${tool} of "${path}" is outside the workspace "${root}"`;
}

/**
 * The reason given for a write to a protected path.
 *
 * @param tool The tool name.
 * @param path The resolved path.
 * @param why The protected entry's reason.
 * @param decision `ask` or `deny`.
 * @returns The reason text.
 *
 * @example Usage
 * ```ts
 * import { protectedPathReason } from "./workspace_policy.ts";
 * import { equal } from "node:assert/strict";
 * equal(
 *   protectedPathReason("write", "/w/.git/config", "git runs its config and hooks on the host", "ask"),
 *   'write of "/w/.git/config" needs your approval: git runs its config and hooks on the host',
 * );
 * ```
 */
export function protectedPathReason(
  tool: string,
  path: string,
  why: string,
  decision: "ask" | "deny",
): string {
  const verdict = decision === "deny" ? "is denied" : "needs your approval";
  return `${tool} of "${path}" ${verdict}: ${why}`;
}

/** What the policy says about one real target (`undefined`: nothing to ask). */
interface Verdict {
  readonly kind: "ask" | "deny";
  readonly reason: string;
  readonly scope: ApprovalScope;
}

function folderOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}

/**
 * The scope of an outside ask: the tool in that real folder, or only that file when the folder is
 * a hidden one (a component starting with a dot: `~/.ssh`, `~/.aws`, `~/.config/gh` hold keys).
 */
function outsideScope(tool: string, path: string): ApprovalScope {
  const folder = folderOf(path);
  if (folder.split("/").some((part) => part.startsWith("."))) {
    return { key: `outside-file:${path}`, label: `${tool} of "${path}" (this file only)` };
  }
  return { key: `outside:${folder}`, label: `${tool} in "${folder}" (this folder only)` };
}

/** The policy's verdicts: on `lexical` reaching `target` (`undefined`: unresolvable). */
function createJudge(
  config: WorkspacePolicyConfig,
  outside: "ask" | "deny",
  writeTools: ReadonlySet<string>,
): {
  rootOf(exec: ToolExecution): Promise<string>;
  judge(exec: ToolExecution, lexical: string, target: string | undefined, root: string):
    | Verdict
    | undefined;
} {
  // The defaults of each workspace root a call had, made once.
  const defaults = new Map<string, ProtectedPaths>();

  async function rootOf(exec: ToolExecution): Promise<string> {
    const rootPath = resolvePath(config.root ?? baseDir(exec.agent?.cwd, undefined), "/");
    return await resolveTarget(rootPath) ?? rootPath;
  }

  function protectedEntry(root: string, paths: readonly string[]) {
    let own = defaults.get(root);
    if (own === undefined) defaults.set(root, own = new ProtectedPaths([root]));
    for (const set of config.protectedPaths ? [config.protectedPaths, own] : [own]) {
      for (const path of paths) {
        const entry = set.find(path);
        if (entry !== undefined) return entry;
      }
    }
    return undefined;
  }

  function judge(
    exec: ToolExecution,
    lexical: string,
    target: string | undefined,
    root: string,
  ): Verdict | undefined {
    const path = target ?? lexical;
    const entry = protectedEntry(root, target === undefined ? [lexical] : [target, lexical]);
    // A write of a protected path asks (or is denied); a read only where the entry denies (the
    // user's own folders hold the API key file and the key that signs session logs).
    if (entry !== undefined && (writeTools.has(exec.name) || entry.decision === "deny")) {
      const kind = entry.decision ?? "ask";
      return {
        kind,
        reason: protectedPathReason(exec.name, path, entry.reason, kind),
        scope: { key: `protected:${path}`, label: `${exec.name} of "${path}"` },
      };
    }
    if (target !== undefined && isInside(target, root)) return undefined;
    return {
      kind: outside,
      reason: outsideWorkspaceReason(exec.name, path, root),
      scope: outsideScope(exec.name, path),
    };
  }
  return { rootOf, judge };
}

/**
 * The plugin.
 *
 * @example Usage
 * ```ts ignore
 * import { workspacePolicyPlugin } from "./workspace_policy.ts";
 * ctx.plugin(workspacePolicyPlugin, { root: "/work", outside: "deny" });
 * ```
 */
export const workspacePolicyPlugin: {
  readonly name: string;
  readonly inject: readonly string[];
  apply(ctx: Context, config?: WorkspacePolicyConfig): void;
} = {
  name: "workspace-policy",
  // Its check is tools/pre-execute middleware: it applies once ctx.tools is provided.
  inject: ["tools"],
  apply(ctx: Context, config: WorkspacePolicyConfig = {}): void {
    const registry = ctx.get<ToolRegistry>("tools");
    if (registry === undefined) {
      throw new TypeError("Cannot apply the workspace policy: ctx.tools is not provided");
    }
    const { outside = "ask" } = config;
    if (outside !== "ask" && outside !== "deny") {
      throw new TypeError(
        `Cannot apply the workspace policy as 'outside' must be "ask" or "deny": current value is ${
          JSON.stringify(outside)
        }`,
      );
    }
    const tools = new Set(config.tools ?? ["read", "write", "edit"]);
    const writeTools = new Set(config.writeTools ?? ["write", "edit"]);
    const { rootOf, judge } = createJudge(config, outside, writeTools);
    // The real target each asked call was judged on (by execution token).
    const judged = new WeakMap<symbol, string>();

    registry.use("tools/pre-execute", async function workspacePolicy(call, next) {
      const { exec } = call;
      const filePath = policyFilePath(exec, tools);
      if (filePath === undefined) return await next();
      const root = await rootOf(exec);
      const lexical = resolvePath(filePath, baseDir(exec.agent?.cwd, config.root));
      const target = await resolveTarget(lexical);
      const verdict = judge(exec, lexical, target, root);
      if (verdict === undefined) return await next();
      if (verdict.kind === "deny") return { kind: "deny", reason: verdict.reason };
      judged.set(exec.token, target ?? lexical);
      // Replaces an earlier unscoped ask: a tool-wide "always" must not cover this one.
      return { kind: "ask", reason: verdict.reason, scope: verdict.scope };
    });

    ctx.on(
      FS_TARGET_EVENT,
      async function workspaceTarget(
        refusal: string | undefined,
        exec: ToolExecution,
        target: FsTarget,
      ): Promise<string | undefined> {
        if (refusal !== undefined || !tools.has(exec.name)) return undefined;
        if (judged.get(exec.token) === target.real) return undefined;
        const verdict = judge(exec, target.path, target.real, await rootOf(exec));
        if (verdict === undefined) return undefined;
        const operation = exec.name === "read" || !writeTools.has(exec.name) ? "read" : "write";
        const detail = `it now reaches "${target.real}": ${verdict.reason}, which was not approved`;
        return fsChanged(operation, target.path, detail).message;
      },
    );
  },
};
