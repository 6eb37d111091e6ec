/**
 * The built-in demo model used when no API key is set (with one, the agent talks to DeepSeek's
 * `deepseek-flash`): an offline, scripted tour that opens with a thought and runs a
 * shell command (terminal card), creates a file (diff card) and edits it (diff card behind a
 * permission prompt when the rules ask for `edit`), then sums up. Every prompt replays the tour.
 *
 * @module
 */
import type { ModelAdapter, ModelRequest, StreamChunk } from "../agent/mod.ts";

/** The file the demo creates and edits (relative to the session cwd). */
export const DEMO_FILE = "notes.md";

function call(id: string, name: string, args: unknown, text: string): StreamChunk[] {
  return [
    { type: "text", text },
    { type: "tool-call", id, name, arguments: JSON.stringify(args) },
    { type: "usage", usage: { inputTokens: 10, outputTokens: 5 } },
    { type: "finish", reason: "tool-calls" },
  ];
}

function answer(request: ModelRequest): StreamChunk[] {
  const messages = request.messages;
  let lastUser = -1;
  let turn = 0;
  messages.forEach((m, i) => {
    if (m.role === "user" && m.source === undefined) {
      lastUser = i;
      turn++;
    }
  });
  const results = messages.slice(lastUser + 1).filter((m) => m.role === "tool");
  const id = (n: number) => `demo_${turn}_${n}`;
  switch (results.length) {
    case 0:
      return [
        { type: "reasoning", text: "Start by looking at the workspace." },
        ...call(
          id(1),
          "bash",
          { command: "echo 'hello from dsh' && ls -1", description: "Look at the workspace" },
          "Let me look at the workspace first.",
        ),
      ];
    case 1:
      return call(
        id(2),
        "write",
        { file_path: DEMO_FILE, content: "# Notes\n\n- dsh runs tools\n- cards show them\n" },
        "Now I'll write a notes file.",
      );
    case 2:
      return call(
        id(3),
        "edit",
        {
          file_path: DEMO_FILE,
          old_string: "- cards show them",
          new_string: "- editors show them as cards",
        },
        "And improve one line.",
      );
    default: {
      const last = results.at(-1);
      const rejected = last?.role === "tool" && last.isError;
      const text = rejected
        ? `The edit was not applied, so ${DEMO_FILE} keeps its first version. Ask again any time.`
        : `Done: I ran a command, created ${DEMO_FILE} and edited it. Set DEEPSEEK_API_KEY to talk to DeepSeek (deepseek-flash in thinking mode; its reasoning shows as thoughts like the one above).`;
      return [
        { type: "text", text },
        { type: "usage", usage: { inputTokens: 10, outputTokens: text.length } },
        { type: "finish", reason: "stop" },
      ];
    }
  }
}

/**
 * Creates the demo model.
 *
 * @returns A model adapter that needs no network.
 *
 * @example Usage
 * ```ts
 * import { createDemoModel } from "./demo_model.ts";
 * import { equal } from "node:assert/strict";
 * const model = createDemoModel();
 * const request = {
 *   model: "demo",
 *   system: "",
 *   messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }],
 *   tools: [],
 *   signal: new AbortController().signal,
 * };
 * const names: string[] = [];
 * for await (const chunk of model.stream(request)) if (chunk.type === "tool-call") names.push(chunk.name);
 * equal(names[0], "bash");
 * ```
 */
export function createDemoModel(): ModelAdapter {
  return {
    async *stream(request: ModelRequest): AsyncIterable<StreamChunk> {
      for (const chunk of answer(request)) {
        request.signal.throwIfAborted();
        yield chunk;
        await Promise.resolve();
      }
    },
  };
}
