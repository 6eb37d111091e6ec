/**
 * Model-facing names of MCP tools: `mcp__<server>__<tool>`, sanitized to `^[a-zA-Z0-9_-]{1,64}$`.
 *
 * @module
 */

const UNSAFE_REGEXP = /[^a-zA-Z0-9_-]/g;
const MAX_LENGTH = 64;

/**
 * Builds the registry name of an MCP tool. Characters outside `[a-zA-Z0-9_-]` become `_`,
 * and names longer than 64 characters are cut and end in a short hash of the full name so that
 * distinct long names stay distinct.
 *
 * @param server The configured server name.
 * @param tool The tool name the server reported.
 * @returns A name matching `^[a-zA-Z0-9_-]{1,64}$`.
 *
 * @example Usage
 * ```ts
 * import { mcpToolName } from "./tool_name.ts";
 * import { equal } from "node:assert/strict";
 * equal(mcpToolName("everything", "get-sum"), "mcp__everything__get-sum");
 * equal(mcpToolName("my server", "a.b/c"), "mcp__my_server__a_b_c");
 * equal(mcpToolName("s", "x".repeat(100)).length, 64);
 * ```
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `mcp__${server.replace(UNSAFE_REGEXP, "_")}__${tool.replace(UNSAFE_REGEXP, "_")}`;
  if (full.length <= MAX_LENGTH) return full;
  const hash = fnv1a(`${server}\u0000${tool}`);
  return `${full.slice(0, MAX_LENGTH - hash.length - 1)}_${hash}`;
}

/** 32-bit FNV-1a as 8 hex digits: stable, short, no crypto needed. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}
