/**
 * Path helpers for the fs tools and their policies (POSIX, lexical).
 *
 * @module
 */
import type { ToolExecution } from "../tools/definition.ts";

/**
 * The directory relative fs paths resolve against: the agent's session cwd, else `fallback`,
 * else the process cwd.
 *
 * @param agentCwd The agent's cwd.
 * @param fallback The configured cwd.
 * @returns The base directory.
 */
export function baseDir(agentCwd: string | undefined, fallback: string | undefined): string {
  return agentCwd ?? fallback ?? Deno.cwd();
}

/**
 * The `file_path` of a call an fs policy should judge: `undefined` when the tool is not one of
 * `tools`, or the argument is absent or not a non-empty string.
 *
 * @param exec The execution.
 * @param tools The tool names the policy covers.
 * @returns The raw `file_path`, or `undefined`.
 */
export function policyFilePath(
  exec: ToolExecution,
  tools: ReadonlySet<string>,
): string | undefined {
  if (!tools.has(exec.name)) return undefined;
  const args = exec.arguments;
  if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
  const filePath = (args as { file_path?: unknown }).file_path;
  return typeof filePath === "string" && filePath !== "" ? filePath : undefined;
}

/** Most symlinks followed while resolving one path (Linux's own limit). */
const MAX_SYMLINK_HOPS = 40;

/**
 * Resolves `path` the way the kernel will when a tool opens or creates it: every symlink is
 * followed, dangling ones and chains included, and a `..` inside a link target applies to the
 * link's real directory. Components that do not exist yet (a file or directories a write would
 * create) are appended as they are.
 *
 * @param path An absolute, lexically normalized path.
 * Components the agent may not inspect (Deno permissions) are taken as plain directories.
 *
 * @returns The real target path, or `undefined` when it cannot be known (a symlink loop, an
 *   unreadable link): callers must then treat the path as outside any root.
 */
export async function resolveTarget(path: string): Promise<string | undefined> {
  const todo = path.split("/").filter((part) => part !== "" && part !== ".");
  let resolved = "/";
  let exists = true;
  let hops = 0;
  let retries = 0;
  while (todo.length > 0) {
    const part = todo.shift()!;
    if (part === ".") continue;
    if (part === "..") {
      // `resolved` never contains a symlink, so its lexical parent is its real parent.
      resolved = resolved.slice(0, resolved.lastIndexOf("/")) || "/";
      continue;
    }
    const next = resolved === "/" ? `/${part}` : `${resolved}/${part}`;
    if (!exists) {
      resolved = next;
      continue;
    }
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(next);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        exists = false;
        resolved = next;
        continue;
      }
      // Not inspectable under the agent's Deno permissions (an ancestor of the workspace, a
      // path outside it): taken as a plain directory. The agent cannot create links there.
      resolved = next;
      continue;
    }
    if (!info.isSymlink) {
      resolved = next;
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS) return undefined;
    let target: string;
    try {
      target = await Deno.readLink(next);
    } catch {
      // Replaced since its lstat (no longer a link): look at the component again, a few times.
      if (++retries > MAX_SYMLINK_HOPS) return undefined;
      hops--;
      todo.unshift(part);
      continue;
    }
    if (target.startsWith("/")) resolved = "/";
    todo.unshift(...target.split("/").filter((p) => p !== "" && p !== "."));
  }
  return resolved;
}
