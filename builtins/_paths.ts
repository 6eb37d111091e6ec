/**
 * Path helpers for the fs tools and their policies (POSIX, lexical).
 *
 * @module
 */
import type { ToolExecution } from "../tools/definition.ts";
import type { PreExecuteDecision } from "../registry/types.ts";

/**
 * Resolves `path` against `base` and normalizes `.`, `..` and repeated slashes.
 *
 * @param path An absolute or relative path.
 * @param base The absolute directory relative paths start from.
 * @returns The absolute path.
 */
export function resolvePath(path: string, base: string): string {
  const joined = path.startsWith("/") ? path : `${base}/${path}`;
  const parts: string[] = [];
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

/**
 * Whether `path` is `root` or inside it (both absolute and normalized).
 *
 * @param path The path.
 * @param root The directory.
 * @returns True when inside.
 */
export function isInside(path: string, root: string): boolean {
  return root === "/" || path === root || path.startsWith(`${root}/`);
}

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
 * The `file_path` of a call an fs policy should judge: `undefined` when the decision is already
 * a deny, the tool is not one of `tools`, or the argument is absent or not a non-empty string.
 *
 * @param decision The pre-execute decision so far.
 * @param exec The execution.
 * @param tools The tool names the policy covers.
 * @returns The raw `file_path`, or `undefined`.
 */
export function policyFilePath(
  decision: PreExecuteDecision,
  exec: ToolExecution,
  tools: ReadonlySet<string>,
): string | undefined {
  if (decision.kind === "deny" || !tools.has(exec.name)) return undefined;
  const args = exec.arguments;
  if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
  const filePath = (args as { file_path?: unknown }).file_path;
  return typeof filePath === "string" && filePath !== "" ? filePath : undefined;
}
