/** Private: consuming one streamed model answer, and the stop a finish reason means. */
import type { PromptResult } from "./agent_options.ts";
import type {
  AssistantBlock,
  FinishReason,
  ModelAdapter,
  ModelRequest,
  RetryNotice,
  Usage,
} from "./model.ts";

/** What one answer streamed; `failure` is set when the stream threw (abort included). */
export interface StreamedAnswer {
  readonly content: AssistantBlock[];
  readonly finish: FinishReason | undefined;
  readonly finishMessage: string | undefined;
  readonly usage: Usage | undefined;
  readonly failure: { readonly error: unknown } | undefined;
}

/**
 * Streams one answer: merges consecutive text (and reasoning) chunks into one block, reporting
 * each chunk through `onDelta` (and each retry notice through `onRetry`), and keeps complete tool
 * calls, usage and the finish reason.
 */
export async function streamAnswer(
  adapter: ModelAdapter,
  request: ModelRequest,
  onDelta: (kind: "text" | "reasoning", text: string) => void,
  onRetry: (notice: RetryNotice) => void = () => {},
): Promise<StreamedAnswer> {
  const content: AssistantBlock[] = [];
  let finish: FinishReason | undefined;
  let finishMessage: string | undefined;
  let usage: Usage | undefined;
  try {
    for await (const chunk of adapter.stream(request)) {
      switch (chunk.type) {
        case "text":
        case "reasoning": {
          const last = content.at(-1);
          if (last?.type === chunk.type) {
            content[content.length - 1] = { type: chunk.type, text: last.text + chunk.text };
          } else content.push({ type: chunk.type, text: chunk.text });
          onDelta(chunk.type, chunk.text);
          break;
        }
        case "tool-call":
          content.push({
            type: "tool-call",
            id: chunk.id,
            name: chunk.name,
            arguments: chunk.arguments,
          });
          break;
        case "retry":
          onRetry(chunk);
          break;
        case "usage":
          usage = chunk.usage;
          break;
        case "finish":
          finish = chunk.reason;
          finishMessage = chunk.message;
          break;
      }
    }
  } catch (error) {
    return { content, finish, finishMessage, usage, failure: { error } };
  }
  return { content, finish, finishMessage, usage, failure: undefined };
}

/** The turn stop a finish reason forces, or `undefined` when the loop may go on. */
export function stopFor(
  finish: FinishReason,
  message: string | undefined,
): PromptResult | undefined {
  switch (finish) {
    case "max-tokens":
      return { stopReason: "max_tokens" };
    case "error":
      return {
        stopReason: "error",
        error: { message: message ?? "the model reported an error" },
      };
    case "content-filter":
      return {
        stopReason: "error",
        error: {
          message: message ?? "the model provider stopped the answer with its content filter",
          code: "CONTENT_FILTER",
        },
      };
  }
  return undefined;
}
