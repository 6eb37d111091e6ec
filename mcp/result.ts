/**
 * Maps an MCP `tools/call` result onto dsh content blocks.
 *
 * @module
 */
import type { ContentBlock } from "../tools/content.ts";

/** The parts of an MCP `CallToolResult` this mapping reads (structural, SDK-independent). */
export interface McpCallResult {
  /** Content items (`text`, `image`, `audio`, `resource_link`, `resource`, …). */
  readonly content?: readonly { readonly type: string; readonly [key: string]: unknown }[];
  /** Structured output (tools with an `outputSchema`). */
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  /** True when the tool reports a failure. */
  readonly isError?: boolean;
}

/**
 * Converts an MCP tool result into content blocks:
 * - `text` → text; `image` → image; `audio` → a text placeholder (dsh has no audio block);
 * - `resource` with text → resource with inline text; with an image blob → image; other blobs
 *   → a resource reference; `resource_link` → a resource reference;
 * - `structuredContent` → its JSON text, added only when there is no text block;
 * - unknown item types → a `[<type> content]` text placeholder.
 *
 * `isError` is not read here: the plugin throws for it so the model sees `Error: <text>`.
 *
 * @param result The server's result.
 * @returns The model-facing blocks.
 *
 * @example Usage
 * ```ts
 * import { mcpResultContent } from "./result.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(mcpResultContent({ content: [{ type: "text", text: "hi" }] }), [{ type: "text", text: "hi" }]);
 * deepEqual(mcpResultContent({ content: [], structuredContent: { t: 1 } }), [{ type: "text", text: '{"t":1}' }]);
 * ```
 */
export function mcpResultContent(result: McpCallResult): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const item of result.content ?? []) blocks.push(mapItem(item));
  if (result.structuredContent !== undefined && !blocks.some((block) => block.type === "text")) {
    blocks.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  }
  return blocks;
}

function mapItem(item: { readonly type: string; readonly [key: string]: unknown }): ContentBlock {
  const str = (value: unknown): string | undefined => typeof value === "string" ? value : undefined;
  switch (item.type) {
    case "text":
      return { type: "text", text: str(item.text) ?? "" };
    case "image":
      return {
        type: "image",
        mimeType: str(item.mimeType) ?? "image/png",
        data: str(item.data) ?? "",
      };
    case "audio":
      return { type: "text", text: `[audio: ${str(item.mimeType) ?? "unknown type"}]` };
    case "resource_link":
      return withMime({ type: "resource", uri: str(item.uri) ?? "" }, str(item.mimeType));
    case "resource": {
      const resource = (item.resource ?? {}) as Record<string, unknown>;
      const uri = str(resource.uri) ?? "";
      const mimeType = str(resource.mimeType);
      const text = str(resource.text);
      const blob = str(resource.blob);
      if (text !== undefined) {
        return mimeType === undefined
          ? { type: "resource", uri, text }
          : { type: "resource", uri, mimeType, text };
      }
      if (blob !== undefined && mimeType?.startsWith("image/")) {
        return { type: "image", mimeType, data: blob };
      }
      return withMime({ type: "resource", uri }, mimeType);
    }
    default:
      return { type: "text", text: `[${item.type} content]` };
  }
}

function withMime(
  block: { readonly type: "resource"; readonly uri: string },
  mimeType: string | undefined,
): ContentBlock {
  return mimeType === undefined ? block : { ...block, mimeType };
}
