/**
 * The agent loop, the durable session log and the model adapters.
 *
 * - {@linkcode createAgent} builds an {@linkcode Agent} (implements the tools' `AgentHandle`):
 *   `prompt()` runs a turn of model steps and tool batches, `inject()` adds durable context.
 * - {@linkcode SessionLog} appends JSONL events; {@linkcode readSessionLog} loads them (a torn
 *   last line becomes a warning); {@linkcode deriveMessages} rebuilds the model conversation.
 * - {@linkcode ModelAdapter} is the provider seam: {@linkcode DeepSeekAdapter} for the
 *   OpenAI-compatible DeepSeek API, {@linkcode MockAdapter} for scripted answers (the agent
 *   binary's `--script`; `@dsh/harness/testing` re-exports it for tests).
 *
 * @example Usage
 * ```ts
 * import { deriveMessages, parseSessionLog } from "./mod.ts";
 * import { equal } from "node:assert/strict";
 * const log = parseSessionLog(
 *   '{"type":"session","version":1,"id":"s","createdAt":"t","cwd":"/"}\n' +
 *     '{"seq":1,"time":"t","type":"user/message","turn":1,"content":[{"type":"text","text":"hi"}]}\n',
 *   "s.jsonl",
 * );
 * equal(deriveMessages(log.events)[0]?.role, "user");
 * ```
 *
 * @module
 */
export { SYSTEM_PROMPT_HOOK } from "./agent.ts";
export type { AgentContext, PromptOptions, PromptResult } from "./agent_options.ts";
export { DEEPSEEK_MODELS, DeepSeekAdapter } from "./deepseek.ts";
export type { DeepSeekAdapterOptions, ReasoningEffort, ThinkingMode } from "./deepseek.ts";
export {
  maxTokensResponse,
  MockAdapter,
  multiCall,
  textResponse,
  toolCallResponse,
} from "./mock_adapter.ts";
export type { MockEntry, MockToolCall } from "./mock_adapter.ts";
export { ModelRequestError } from "./model_request_error.ts";
export { deriveMessages } from "./derive_messages.ts";
export type {
  AssistantBlock,
  AssistantMessage,
  AssistantReasoningBlock,
  AssistantTextBlock,
  FinishReason,
  ModelAdapter,
  ModelMessage,
  ModelRequest,
  RetryNotice,
  StreamChunk,
  ToolCallBlock,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "./model.ts";
export { onAgentEvent } from "./agent_events.ts";
export type {
  AgentDelta,
  AgentEventMap,
  AgentEventType,
  LiveEventData,
  ToolOutputEvent,
} from "./agent_events.ts";
export { parseSessionLog, readSessionLog } from "./read_session_log.ts";
export type { LoadedSessionLog, SessionLogWarning } from "./read_session_log.ts";
export { isEventType } from "./session_event.ts";
export type {
  ContextSource,
  SessionEvent,
  SessionEventData,
  SessionEventEnvelope,
  SessionEventMap,
  SessionEventOf,
  SessionEventType,
  SessionHeader,
  StopReason,
} from "./session_event.ts";
export { SessionLog } from "./session_log.ts";
export type { OpenedSessionLog } from "./session_log.ts";
export type { CreateSessionLogOptions, OpenSessionLogOptions } from "./session_log_options.ts";
export { loadSessionKey, SESSION_KEY_FILE, sessionKeyDir } from "./session_key.ts";
export { importSessionLog } from "./import_session_log.ts";
export type { ImportedSessionLog } from "./import_session_log.ts";
export { prepareSessionsDir, UnsafePathError } from "./sessions_dir.ts";
export type { SessionsDir } from "./sessions_dir.ts";
