/**
 * Private: the untrusted text of a card (titles, raw input, the model's `description`, a
 * policy's reason) as it goes on the wire: escaped by `safeText` (core/safe_text.ts), and the
 * model's words labelled so that they never read like dsh's own.
 *
 * @module
 */
import { safeText } from "../core/safe_text.ts";
import type { ToolCallContentWire } from "./session_update_wire.ts";

/** The longest title; a longer one keeps its head and tail. */
const TITLE_CHARS = 400;
/** The longest string inside raw input. */
const RAW_CHARS = 4000;

/** A card title: one line, escaped, head and tail kept. */
export function cardTitle(title: string): string {
  return safeText(title, { maxChars: TITLE_CHARS });
}

/** Raw input: every string (and key) escaped, line breaks kept, long strings shortened. */
export function safeRawInput(value: unknown): unknown {
  if (typeof value === "string") return safeText(value, { multiline: true, maxChars: RAW_CHARS });
  if (Array.isArray(value)) return value.map(safeRawInput);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [cardTitle(key), safeRawInput(item)]),
  );
}

/**
 * The model's `description` of a call: quoted and labelled, on one line, so it reads as the
 * model's claim and cannot pass for dsh's reason (which {@linkcode reasonItem} writes).
 */
export function descriptionItem(description: string): ToolCallContentWire {
  const quoted = cardTitle(description).replaceAll('"', '\\"');
  return { type: "content", content: { type: "text", text: `model says: "${quoted}"` } };
}

/** Why dsh asks (a policy rule's reason), on its own line, labelled as dsh's. */
export function reasonItem(reason: string): ToolCallContentWire {
  return {
    type: "content",
    content: { type: "text", text: `dsh asks because: ${cardTitle(reason)}` },
  };
}
