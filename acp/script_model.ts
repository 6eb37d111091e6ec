/**
 * Scripted models for the agent binary (`--script <file.json>`): a JSON list of answers turned
 * into a {@linkcode MockAdapter}.
 *
 * @module
 */
import type { JsonValue } from "../core/json.ts";
import {
  MockAdapter,
  type MockEntry,
  multiCall,
  type StreamChunk,
  textResponse,
} from "../agent/mod.ts";

/**
 * One scripted answer in a script file:
 * - a chunk array (`[{type: "text", text}, …, {type: "finish", reason}]`),
 * - `"hang"` (waits for the abort), `{hangAfter: chunks}`,
 * - `{text, reasoning?}` (a plain answer),
 * - `{toolCalls: [{id, name, args}], text?, reasoning?}` (one message with tool calls).
 */
export type ScriptEntry =
  | readonly StreamChunk[]
  | "hang"
  | { readonly hangAfter: readonly StreamChunk[] }
  | { readonly text: string; readonly reasoning?: string }
  | {
    readonly toolCalls: readonly {
      readonly id: string;
      readonly name: string;
      readonly args: JsonValue | { readonly raw: string };
    }[];
    readonly text?: string;
    readonly reasoning?: string;
  };

function withReasoning(
  chunks: readonly StreamChunk[],
  reasoning: string | undefined,
): StreamChunk[] {
  return reasoning === undefined
    ? [...chunks]
    : [{ type: "reasoning", text: reasoning }, ...chunks];
}

/**
 * Converts script entries into mock entries.
 *
 * @param entries The parsed script file.
 * @param source The file name, for errors.
 * @returns The mock entries.
 * @throws {TypeError} When an entry has an unknown shape.
 *
 * @example Usage
 * ```ts
 * import { scriptEntries } from "./script_model.ts";
 * import { equal } from "node:assert/strict";
 * const [entry] = scriptEntries([{ text: "hi" }], "s.json");
 * equal(Array.isArray(entry), true);
 * ```
 */
export function scriptEntries(entries: unknown, source: string): MockEntry[] {
  if (!Array.isArray(entries)) {
    throw new TypeError(`Cannot read script "${source}": expected a JSON array of answers`);
  }
  return entries.map((entry, i): MockEntry => {
    if (entry === "hang") return "hang";
    if (Array.isArray(entry)) return entry as StreamChunk[];
    if (typeof entry === "object" && entry !== null) {
      const e = entry as Record<string, unknown>;
      const reasoning = typeof e.reasoning === "string" ? e.reasoning : undefined;
      if (Array.isArray(e.hangAfter)) return { hangAfter: e.hangAfter as StreamChunk[] };
      if (Array.isArray(e.toolCalls)) {
        const text = typeof e.text === "string" ? e.text : undefined;
        return withReasoning(
          multiCall(
            e.toolCalls as Parameters<typeof multiCall>[0],
            ...(text === undefined ? [] : [text]),
          ),
          reasoning,
        );
      }
      if (typeof e.text === "string") return withReasoning(textResponse(e.text), reasoning);
    }
    throw new TypeError(
      `Cannot read script "${source}": entry ${i} must be a chunk array, "hang", {hangAfter}, {text} or {toolCalls}: received ${
        JSON.stringify(entry).slice(0, 200)
      }`,
    );
  });
}

/**
 * Reads a script file into a {@linkcode MockAdapter}.
 *
 * @param path The JSON file.
 * @returns The adapter.
 * @throws {Deno.errors.NotFound} When the file does not exist.
 * @throws {SyntaxError} When the file is not JSON.
 * @throws {TypeError} When an entry has an unknown shape.
 *
 * @example Usage
 * ```ts ignore
 * import { loadScriptModel } from "./script_model.ts";
 * const adapter = await loadScriptModel("script.json");
 * ```
 */
export async function loadScriptModel(path: string): Promise<MockAdapter> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Deno.errors.NotFound(`Cannot read script "${path}": the file does not exist`);
    }
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(`Cannot read script "${path}": ${(error as Error).message}`);
  }
  return new MockAdapter(scriptEntries(parsed, path));
}
