/**
 * Lexical POSIX path helpers for tools that take file paths: resolve a model's path against the
 * session's directory, and check that it stays inside a root. Lexical only: symlinks are the
 * caller's to resolve (the fs tools do, on the executor).
 *
 * @module
 */

/**
 * Resolves `path` against `base` and normalizes `.`, `..` and repeated slashes (`..` stops at `/`).
 *
 * @param path An absolute or relative path.
 * @param base The absolute directory relative paths start from.
 * @returns The absolute, normalized path.
 *
 * @example Usage
 * ```ts
 * import { resolvePath } from "./paths.ts";
 * import { equal } from "node:assert/strict";
 * equal(resolvePath("src/../README.md", "/work/app"), "/work/app/README.md");
 * equal(resolvePath("//etc/./passwd", "/work"), "/etc/passwd");
 * ```
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
 *
 * @example Usage
 * ```ts
 * import { isInside } from "./paths.ts";
 * import { equal } from "node:assert/strict";
 * equal(isInside("/work/app/src", "/work/app"), true);
 * equal(isInside("/work/application", "/work/app"), false);
 * ```
 */
export function isInside(path: string, root: string): boolean {
  return root === "/" || path === root || path.startsWith(`${root}/`);
}
