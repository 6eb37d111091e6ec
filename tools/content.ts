/**
 * Content blocks: the model-facing payload of tool results and injected context.
 *
 * @module
 */

/** A plain text block. */
export interface TextBlock {
  /** Discriminant. */
  readonly type: "text";
  /** The text. */
  readonly text: string;
}

/** An image, base64-encoded. Code Mode programs see it as `[image: <mimeType>]`. */
export interface ImageBlock {
  /** Discriminant. */
  readonly type: "image";
  /** MIME type such as `image/png`. */
  readonly mimeType: string;
  /** Base64 data. */
  readonly data: string;
}

/** A resource reference (for example from an MCP server), with optional inline text. */
export interface ResourceBlock {
  /** Discriminant. */
  readonly type: "resource";
  /** The resource URI. */
  readonly uri: string;
  /** MIME type, when known. */
  readonly mimeType?: string;
  /** Inline text content, when the resource is textual. */
  readonly text?: string;
}

/**
 * One block of model-facing content.
 *
 * @example Usage
 * ```ts
 * import type { ContentBlock } from "./content.ts";
 * const blocks: ContentBlock[] = [{ type: "text", text: "hello" }];
 * ```
 */
export type ContentBlock = TextBlock | ImageBlock | ResourceBlock;

/**
 * Joins the text of content blocks; non-text blocks become placeholders such as `[image: image/png]`.
 *
 * @param content The blocks.
 * @returns The joined text.
 *
 * @example Usage
 * ```ts
 * import { contentText } from "./content.ts";
 * import { equal } from "node:assert/strict";
 * equal(contentText([{ type: "text", text: "a" }, { type: "image", mimeType: "image/png", data: "" }]), "a\n[image: image/png]");
 * ```
 */
export function contentText(content: readonly ContentBlock[]): string {
  return content.map((block) => {
    switch (block.type) {
      case "text":
        return block.text;
      case "image":
        return `[image: ${block.mimeType}]`;
      case "resource":
        return block.text ?? `[resource: ${block.uri}]`;
    }
  }).join("\n");
}
