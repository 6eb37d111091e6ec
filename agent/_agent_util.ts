/** Private: content snapshots and error shapes of the agent loop. */
import { errorMessage } from "../core/error_message.ts";
import { type JsonObject, snapshotJson } from "../core/json.ts";
import { errorOutcome } from "../tools/outcome.ts";
import type { ContentBlock } from "../tools/content.ts";
import type { ToolOutcome } from "../registry/types.ts";
import type { ArgumentsProblem } from "./_tool_arguments.ts";

const INVALID_ARGS = "INVALID_ARGS";

export function textContent(content: string | readonly ContentBlock[]): ContentBlock[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : [...content];
}

/** Detached, frozen lossless-JSON copy (`snapshotJson`); throws TypeError for non-JSON content. */
export function snapshot(content: readonly ContentBlock[], what: string): ContentBlock[] {
  try {
    return snapshotJson(content) as unknown as ContentBlock[];
  } catch (error) {
    throw new TypeError(`Cannot ${what}: content is not JSON-serializable: ${errorMessage(error)}`);
  }
}

/** The INVALID_ARGS outcome of argument text that is not JSON or would not arrive unchanged. */
export function invalidArgs(name: string, raw: string, problem: ArgumentsProblem): ToolOutcome {
  const received = raw.length > 200 ? `${raw.slice(0, 200)}…` : raw;
  const message = problem.kind === "syntax"
    ? `invalid arguments: the arguments of tool "${name}" are not valid JSON (${problem.message}): received ${received}`
    : `invalid arguments: the arguments of tool "${name}" cannot be received exactly: ${problem.message}`;
  return errorOutcome(message, { code: INVALID_ARGS });
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
