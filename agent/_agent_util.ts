/** Private: content snapshots and error shapes of the agent loop. */
import type { JsonObject } from "../core/json.ts";
import { errorOutcome, materializeContent } from "../tools/outcome.ts";
import type { ContentBlock } from "../tools/content.ts";
import type { ToolOutcome } from "../tools/outcome.ts";
import type { ArgumentsProblem } from "./_tool_arguments.ts";

const INVALID_ARGS = "INVALID_ARGS";

export function textContent(content: string | readonly ContentBlock[]): ContentBlock[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : [...content];
}

/** Detached, frozen lossless-JSON copy of content blocks; throws TypeError for non-JSON content. */
export function snapshot(content: readonly ContentBlock[], what: string): ContentBlock[] {
  // Frozen, as before: the same blocks go to the log, the model and the presenters.
  return materializeContent(
    content,
    `Cannot ${what}: content is not JSON-serializable`,
  ) as ContentBlock[];
}

/** The INVALID_ARGS outcome of argument text that is not JSON or would not arrive unchanged. */
export function invalidArgs(_name: string, _raw: string, problem: ArgumentsProblem): ToolOutcome {
  // The problem is one argument error naming the position and token; the text is not echoed.
  return errorOutcome(`invalid arguments: ${problem.message}`, { code: INVALID_ARGS });
}

export function errorData(
  error: { readonly message: string; readonly code?: string; readonly name?: string } | undefined,
): JsonObject {
  if (error === undefined) return {};
  return {
    error: {
      message: error.message,
      ...(error.code === undefined ? {} : { code: error.code }),
      ...(error.name === undefined ? {} : { name: error.name }),
    },
  };
}
