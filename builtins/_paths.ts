/**
 * Path helpers for the fs tools and their policies (POSIX, lexical).
 *
 * @module
 */

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
