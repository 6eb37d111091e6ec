/**
 * Tool masks for `ctx.tools.restrict()` and dsh.jsonc `"tools"`: `allow` and `deny` lists of
 * tool-name globs, the same globs as the permission rules.
 *
 * @module
 */
import { describeValue } from "../core/error_message.ts";
import { globToRegExp } from "./permission_rules.ts";

/**
 * Which global tools one view shows: with `allow`, only names matching one of its globs; minus
 * names matching a `deny` glob. An empty filter hides nothing.
 *
 * @example Usage
 * ```ts
 * import type { ToolFilter } from "./tool_filter.ts";
 * const readOnly: ToolFilter = { allow: ["read", "mcp__*"], deny: ["mcp__*__delete*"] };
 * ```
 */
export interface ToolFilter {
  /** Tool-name globs to keep; absent keeps every tool. @default {undefined} */
  readonly allow?: readonly string[];
  /** Tool-name globs to hide (wins over `allow`). @default {[]} */
  readonly deny?: readonly string[];
}

/**
 * Checks a filter (from code or JSON) and compiles it once into a visibility test.
 *
 * @param filter The filter.
 * @param key The name used in messages. @default {"tools"}
 * @returns `name => visible`.
 * @throws {TypeError} When `allow` or `deny` is not an array of non-empty strings, or the filter
 * has another key.
 *
 * @example Usage
 * ```ts
 * import { compileToolFilter } from "./tool_filter.ts";
 * import { equal, throws } from "node:assert/strict";
 * const visible = compileToolFilter({ deny: ["bash", "mcp__*"] });
 * equal(visible("read"), true);
 * equal(visible("mcp__github__search"), false);
 * throws(() => compileToolFilter({ deny: "bash" } as never), {
 *   message: '"tools.deny" must be an array of tool-name globs: received "bash"',
 * });
 * ```
 */
export function compileToolFilter(
  filter: ToolFilter,
  key = "tools",
): (name: string) => boolean {
  if (typeof filter !== "object" || filter === null || Array.isArray(filter)) {
    throw new TypeError(
      `"${key}" must be an object with "allow" and/or "deny": received ${describeValue(filter)}`,
    );
  }
  for (const name of Object.keys(filter)) {
    if (name !== "allow" && name !== "deny") {
      throw new TypeError(`"${key}" has an unknown key "${name}": expected "allow" and "deny"`);
    }
  }
  const allow = filter.allow === undefined ? undefined : globs(filter.allow, `${key}.allow`);
  const deny = globs(filter.deny ?? [], `${key}.deny`);
  return function isVisible(name: string): boolean {
    if (allow !== undefined && !allow.some((glob) => glob.test(name))) return false;
    return !deny.some((glob) => glob.test(name));
  };
}

/**
 * Checks a filter given as JSON (dsh.jsonc `"tools"`) and returns it typed and frozen.
 *
 * @param value The filter; `undefined` gives `{}` (nothing hidden).
 * @param key The config key, for messages. @default {"tools"}
 * @returns The filter.
 * @throws {TypeError} When it is malformed.
 *
 * @example Usage
 * ```ts
 * import { checkToolFilter } from "./tool_filter.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(checkToolFilter({ deny: ["bash"] }), { deny: ["bash"] });
 * deepEqual(checkToolFilter(undefined), {});
 * ```
 */
export function checkToolFilter(value: unknown, key = "tools"): ToolFilter {
  if (value === undefined) return Object.freeze({});
  compileToolFilter(value as ToolFilter, key);
  const { allow, deny } = value as ToolFilter;
  return Object.freeze({
    ...(allow !== undefined ? { allow: Object.freeze([...allow]) } : {}),
    ...(deny !== undefined ? { deny: Object.freeze([...deny]) } : {}),
  });
}

function globs(value: unknown, key: string): RegExp[] {
  if (!Array.isArray(value) || value.some((glob) => typeof glob !== "string" || glob === "")) {
    throw new TypeError(
      `"${key}" must be an array of tool-name globs: received ${describeValue(value)}`,
    );
  }
  return value.map(globToRegExp);
}
