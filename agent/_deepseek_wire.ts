/**
 * Private to `deepseek.ts`: the request body of DeepSeek's `/chat/completions` (OpenAI format,
 * thinking mode) and the wording of its failures.
 *
 * @module
 */
import { contentText } from "../tools/content.ts";
import type { ModelMessage, ModelRequest } from "./model.ts";

import { DEEPSEEK_CURRENT_MODELS } from "./deepseek_models.ts";

/** The model ids DeepSeek serves today (`deepseek-v4-flash` is an alias of `deepseek-flash`). */
export const CURRENT_MODELS: readonly string[] = DEEPSEEK_CURRENT_MODELS;

/** What the body needs besides the request. */
export interface BodyOptions {
  readonly model: string;
  readonly thinking: "enabled" | "disabled";
  readonly reasoningEffort: string | undefined;
  readonly temperature: number | undefined;
}

/**
 * The JSON body. In thinking mode `temperature` is left out (the API ignores it there) and the
 * reasoning of every assistant message that made tool calls is passed back as
 * `reasoning_content`; assistant messages without tool calls never carry it (the API ignores it
 * there, and leaving it out keeps requests small and the prompt cache stable).
 */
export function requestBody(request: ModelRequest, options: BodyOptions): string {
  const thinking = options.thinking === "enabled";
  return JSON.stringify({
    model: options.model,
    messages: wireMessages(request.system, request.messages, thinking),
    ...(request.tools.length > 0
      ? {
        tools: request.tools.map((tool) => ({
          type: "function",
          function: { name: tool.name, description: tool.description, parameters: tool.parameters },
        })),
      }
      : {}),
    thinking: { type: options.thinking },
    ...(thinking && options.reasoningEffort !== undefined
      ? { reasoning_effort: options.reasoningEffort }
      : {}),
    ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
    ...(thinking || options.temperature === undefined ? {} : { temperature: options.temperature }),
    stream: true,
    stream_options: { include_usage: true },
  });
}

/** Converts messages to the OpenAI wire shape. */
function wireMessages(
  system: string,
  messages: readonly ModelMessage[],
  thinking: boolean,
): unknown[] {
  const out: unknown[] = [];
  if (system !== "") out.push({ role: "system", content: system });
  for (const message of messages) {
    switch (message.role) {
      case "user":
        out.push({ role: "user", content: contentText(message.content) });
        break;
      case "tool":
        out.push({
          role: "tool",
          tool_call_id: message.callId,
          content: contentText(message.content),
        });
        break;
      case "assistant": {
        let text = "";
        let reasoning = "";
        const calls: unknown[] = [];
        for (const block of message.content) {
          if (block.type === "text") text += block.text;
          else if (block.type === "reasoning") reasoning += block.text;
          else {
            calls.push({
              id: block.id,
              type: "function",
              function: { name: block.name, arguments: block.arguments },
            });
          }
        }
        if (calls.length === 0) out.push({ role: "assistant", content: text });
        else {
          out.push({
            role: "assistant",
            content: text === "" ? null : text,
            // Every later request of the session carries it: the rule of DeepSeek's thinking
            // mode for assistant messages that made tool calls (an empty string when none
            // was recorded, for example a step taken with thinking disabled).
            ...(thinking ? { reasoning_content: reasoning } : {}),
            tool_calls: calls,
          });
        }
        break;
      }
    }
  }
  return out;
}

/** Formats a wait for people: `800 ms`, `2 s`, `1.5 s`. */
export function formatDelay(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** The hint added to a 400/404/422 whose message is about the model id. */
export function modelHint(status: number, message: string, model: string): string {
  if (![400, 404, 422].includes(status) || !/model/i.test(message)) return "";
  return `; the model id ${JSON.stringify(model)} was rejected: current DeepSeek models are ${
    CURRENT_MODELS.map((id) => JSON.stringify(id)).join(", ")
  } ("deepseek-flash" is recommended, "deepseek-v4-flash" is its alias; "deepseek-chat" and "deepseek-reasoner" were retired on 2026-07-24); set model.model in dsh.jsonc or DEEPSEEK_MODEL`;
}

/** Where the model id is set, for messages. */
export const MODEL_SETTING =
  "set model.model in dsh.jsonc or DEEPSEEK_MODEL (which overrides it), or the adapter's 'model' option";

/** The message of a retired model id (`problem` from `retiredModelProblem`), before any request. */
export function retiredModelMessage(what: string, problem: string): string {
  return `${what}: the model ${problem}; ${MODEL_SETTING}`;
}

/** True for the errors Deno throws when the permission profile does not allow the request. */
export function isPermissionError(error: unknown): boolean {
  return error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied;
}
