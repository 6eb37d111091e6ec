/**
 * Workspace policy: a `tools/pre-execute` listener that asks about (or denies) fs tool calls
 * whose `file_path` lies outside the workspace. The decision is made on the complete target the
 * kernel will reach: every symlink is followed, dangling links and chains included (a write
 * through a dangling link creates its target), and `..` inside a link target is applied to the
 * link's real directory. A path whose target cannot be determined (a symlink loop, an
 * unreadable component) counts as outside.
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import type { ToolExecution } from "../tools/definition.ts";
import type { PreExecuteDecision } from "../registry/types.ts";
import { baseDir, isInside, policyFilePath, resolvePath, resolveTarget } from "./_paths.ts";

/** Config of {@linkcode workspacePolicyPlugin}. */
export interface WorkspacePolicyConfig {
  /** The workspace root (absolute). @default {the call's agent cwd, else Deno.cwd()} */
  readonly root?: string;
  /** The decision for a path outside the workspace. @default {"ask"} */
  readonly outside?: "ask" | "deny";
  /** Tools whose `file_path` is checked. @default {["read", "write", "edit"]} */
  readonly tools?: readonly string[];
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
  apply(ctx: Context, config?: WorkspacePolicyConfig): void;
} = {
  name: "workspace-policy",
  apply(ctx: Context, config: WorkspacePolicyConfig = {}): void {
    const { outside = "ask" } = config;
    if (outside !== "ask" && outside !== "deny") {
      throw new TypeError(
        `Cannot apply the workspace policy as 'outside' must be "ask" or "deny": current value is ${
          JSON.stringify(outside)
        }`,
      );
    }
    const tools = new Set(config.tools ?? ["read", "write", "edit"]);
    ctx.on(
      "tools/pre-execute",
      async function workspacePolicy(
        decision: PreExecuteDecision,
        exec: ToolExecution,
      ): Promise<PreExecuteDecision | undefined> {
        const filePath = policyFilePath(decision, exec, tools);
        if (filePath === undefined) return undefined;
        const rootPath = resolvePath(config.root ?? baseDir(exec.agent?.cwd, undefined), "/");
        const rootDir = await resolveTarget(rootPath) ?? rootPath;
        const lexical = resolvePath(filePath, baseDir(exec.agent?.cwd, config.root));
        const target = await resolveTarget(lexical);
        if (target !== undefined && isInside(target, rootDir)) return undefined;
        const path = target ?? lexical;
        if (decision.kind === "ask" && outside === "ask") return undefined;
        return { kind: outside, reason: outsideWorkspaceReason(exec.name, path, rootDir) };
      },
    );
  },
};
