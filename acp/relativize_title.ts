/**
 * Title relativization: display paths in card titles relative to the session cwd.
 *
 * @module
 */
import { isAbsolute, relative } from "node:path";

/**
 * Replaces every occurrence of `path` in `title` with the path relative to `cwd`.
 *
 * Applies only when both `path` and `cwd` are absolute and the relative path stays inside
 * the workspace (it is not `..` and does not start with `../`; a name like `..cache/x` is
 * inside). Otherwise the title is returned unchanged (docs/contracts.md §4).
 *
 * @param title The card title.
 * @param path The raw (absolute) path the title may mention.
 * @param cwd The session working directory.
 * @returns The relativized title.
 *
 * @example Usage
 * ```ts
 * import { relativizeTitle } from "./relativize_title.ts";
 * import { equal } from "node:assert/strict";
 * equal(relativizeTitle("Edit /w/src/a.ts", "/w/src/a.ts", "/w"), "Edit src/a.ts");
 * equal(relativizeTitle("Edit /etc/hosts", "/etc/hosts", "/w"), "Edit /etc/hosts");
 * ```
 */
export function relativizeTitle(title: string, path: string, cwd: string): string {
  if (!isAbsolute(path) || !isAbsolute(cwd) || path === "") return title;
  const rel = relative(cwd, path);
  if (rel === ".." || rel.startsWith("../") || isAbsolute(rel)) return title;
  return title.split(path).join(rel === "" ? "." : rel);
}
