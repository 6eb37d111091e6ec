/**
 * The model used when no model is configured (`"provider": "auto"` and no `DEEPSEEK_API_KEY`):
 * it answers every prompt with how to set the key and calls no tool.
 *
 * @module
 */
import type { ModelAdapter, StreamChunk } from "../agent/mod.ts";

/** The answer to every prompt. */
export const NO_KEY_MESSAGE: string = [
  "No model is configured, so dsh cannot act on this prompt (no tool was run).",
  "",
  "- Set `DEEPSEEK_API_KEY` in the environment the editor starts the agent with",
  '  (for example `export DEEPSEEK_API_KEY=sk-...`), or set `"model": {"provider": "deepseek"}`',
  "  in `dsh.jsonc` with the key in the environment, then restart the agent.",
  "- To see dsh work offline, run `deno task demo` (a scripted tour in a temporary folder).",
].join("\n");

/**
 * Creates the adapter.
 *
 * @returns An adapter whose every answer is {@linkcode NO_KEY_MESSAGE}.
 *
 * @example Usage
 * ```ts
 * import { createNoKeyModel } from "./_no_key_model.ts";
 * import { equal } from "node:assert/strict";
 * const chunks = [];
 * for await (const chunk of createNoKeyModel().stream({ messages: [], tools: [] } as never)) chunks.push(chunk);
 * equal(chunks.some((c) => c.type === "tool-call"), false);
 * ```
 */
export function createNoKeyModel(): ModelAdapter {
  return {
    async *stream(): AsyncIterable<StreamChunk> {
      yield { type: "text", text: NO_KEY_MESSAGE };
      yield { type: "usage", usage: { inputTokens: 0, outputTokens: 0 } };
      yield { type: "finish", reason: "stop" };
    },
  };
}
