/**
 * Workspace policy: a `tools/pre-execute` listener that asks about (or denies) fs tool calls
 * whose `file_path` lies outside the workspace. Symlinks are resolved for the existing part of
 * the path, so a link inside the workspace pointing out of it counts as outside.
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import type { ToolExecution } from "../tools/definition.ts";
import type { PreExecuteDecision } from "../registry/types.ts";
import { baseDir, isInside, policyFilePath, resolvePath } from "./_paths.ts";

/** Config of {@linkcode workspacePolicyPlugin}. */
export interface WorkspacePolicyConfig {
  /** The workspace root (absolute). @default {the call's agent cwd, else Deno.cwd()} */
  readonly root?: string;
  /** The decision for a path outside the workspace. @default {"ask"} */
  readonly outside?: "ask" | "deny";
  /** Tools whose `file_path` is checked. @default {["read", "write", "edit"]} */
  readonly tools?: readonly string[];
}

/** Resolves symlinks in the longest existing prefix of `path`. */
async function realish(path: string): Promise<string> {
  const tail: string[] = [];
  let head = path;
  while (head !== "/") {
    try {
      const real = await Deno.realPath(head);
      return tail.length === 0 ? real : resolvePath(tail.reverse().join("/"), real);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) return path;
      const slash = head.lastIndexOf("/");
      tail.push(head.slice(slash + 1));
      head = slash === 0 ? "/" : head.slice(0, slash);
    }
  }
  return path;
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
        const rootDir = await realish(
          resolvePath(config.root ?? baseDir(exec.agent?.cwd, undefined), "/"),
        );
        const path = await realish(resolvePath(filePath, baseDir(exec.agent?.cwd, config.root)));
        if (isInside(path, rootDir)) return undefined;
        if (decision.kind === "ask" && outside === "ask") return undefined;
        return { kind: outside, reason: outsideWorkspaceReason(exec.name, path, rootDir) };
      },
    );
  },
};
