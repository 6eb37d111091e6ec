/**
 * dsh: a Deno-first tool harness for coding agents. This door names the embedder API: define a
 * tool, build a harness, run an agent. Everything else lives behind the folder doors
 * (`@dsh/harness/registry`, `/jobs`, `/agent`, `/testing`, `/codemode`, `/acp`, `/mcp`, `/builtins`).
 *
 * @example Usage
 * ```ts
 * import { createHarness, defineTool } from "./mod.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const ctx = await createHarness();
 * ctx.tools.register(defineTool({
 *   name: "echo",
 *   description: "Echo the text back.",
 *   parameters: { text: { type: "string", required: true } },
 *   execute: (args) => [{ type: "text", text: args.text }],
 * }));
 * const outcome = await ctx.tools.execute({ callId: "c1", name: "echo", arguments: { text: "hi" } });
 * deepEqual(outcome.content, [{ type: "text", text: "hi" }]);
 * await ctx.fiber.dispose();
 * ```
 *
 * @module
 */
import type { Context as CoreContext } from "./core/context.ts";
import type { JobService } from "./jobs/job_service.ts";
import type { ApprovalService, ToolRegistry } from "./registry/types.ts";

/**
 * The context a plugin's `apply(ctx)` receives: the core Context plus the harness services.
 * `ctx.tools` is there once the `tools` plugin is loaded (every harness has it; list `"tools"` in
 * `inject`). `ctx.jobs` and `ctx.approval` exist only when their plugins are loaded, so they are
 * typed optional: check them, or list them in `inject` and narrow with `ctx.jobs!`.
 *
 * @example Usage
 * ```ts
 * import type { Context } from "./mod.ts";
 * export const inject = ["tools"];
 * export function apply(ctx: Context): void {
 *   if (ctx.jobs === undefined) ctx.logger.info("no jobs plugin: background runs are off");
 * }
 * ```
 */
export type Context = CoreContext<{
  /** The tool registry. */
  readonly tools: ToolRegistry;
  /** Long-running work; `undefined` unless the jobs plugin is loaded. */
  readonly jobs?: JobService;
  /** Where `ask` decisions go (present when an approval channel such as the ACP bridge is loaded). */
  readonly approval?: ApprovalService;
}>;
export { defineTool } from "./tools/define_tool.ts";
export type {
  DefinedTool,
  DefineToolOptions,
  ToolArgs,
  ToolParameters,
} from "./tools/define_tool.ts";
export type { InferStandardOutput, StandardSchemaV1 } from "./tools/standard_schema.ts";
export type { ParameterSpec, ParametersSpec, SchemaSpec } from "./tools/schema.ts";
export type { InferArgs, InferValue } from "./tools/infer.ts";
export { ToolArgsError } from "./tools/tool_args_error.ts";
export { argError, checkLength, checkRange } from "./tools/arg_error.ts";
export type { ArgErrorParts, CheckLengthOptions, CheckRangeOptions } from "./tools/arg_error.ts";
export { contentText } from "./tools/content.ts";
export type { ContentBlock, ImageBlock, ResourceBlock, TextBlock } from "./tools/content.ts";
export type {
  DiffCallView,
  DiffResultView,
  FileDiff,
  GenericCallView,
  GenericResultView,
  TerminalCallView,
  TerminalResultView,
  ToolCallView,
  ToolKind,
  ToolLocation,
  ToolResultView,
} from "./tools/views.ts";
export type {
  AgentHandle,
  AnyToolDefinition,
  ArgsValidation,
  BackgroundJob,
  ExecuteReturn,
  InjectOptions,
  InjectSource,
  OutputSink,
  ToolDefinition,
  ToolExecution,
  ToolResult,
  ValidatedTool,
} from "./tools/definition.ts";
export { Fiber } from "./core/context.ts";
export type { Disposer, Plugin, PluginFunction } from "./core/context.ts";
export { HarnessError } from "./core/errors.ts";
export type { JsonValue } from "./core/json.ts";
export { createHarness } from "./registry/tools_plugin.ts";
export type { CreateHarnessOptions } from "./registry/tools_plugin.ts";
export type { ToolCall } from "./registry/tool_call.ts";
export type {
  ApprovalScope,
  ApprovalService,
  AroundExecution,
  AroundWrapper,
  Guard,
  Next,
  PostExecuteDecision,
  PostExecuteListener,
  PreExecuteDecision,
  PreExecuteListener,
  ResultObserver,
  ToolLayer,
  ToolMiddleware,
  ToolMode,
  ToolOutcome,
  ToolPhase,
  ToolRegistry,
} from "./registry/types.ts";
export { Agent, createAgent } from "./agent/agent.ts";
export type { CreateAgentOptions, PromptResult } from "./agent/agent.ts";

// Types the signatures above use, re-exported so this entry point documents itself.
export type { AgentContext, PromptOptions } from "./agent/agent.ts";
export type {
  AgentDelta,
  AgentEventMap,
  AgentEventType,
  LiveEventData,
  ToolOutputEvent,
} from "./agent/agent_events.ts";
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
} from "./agent/model.ts";
export type { SessionLogWarning } from "./agent/read_session_log.ts";
export type { SessionEvent, SessionEventEnvelope, StopReason } from "./agent/session_event.ts";
export type { Context as CoreContext, ContextOptions, Listener } from "./core/context.ts";
export type { FiberState } from "./core/fiber.ts";
export type { JsonArray, JsonObject, JsonPrimitive } from "./core/json.ts";
export type { Logger, LogLevel, LogRecord, LogSink } from "./core/logger.ts";
export type { JobService } from "./jobs/job_service.ts";
export type {
  AdoptReport,
  DetachedJobRecord,
  JobControl,
  JobDetail,
  JobKiller,
  JobKillResult,
  JobOutcome,
  JobRead,
  JobReadOptions,
  JobSnapshot,
  JobStartOptions,
  JobStatus,
} from "./jobs/types.ts";
export type { WithBackgroundOptions } from "./jobs/with_background.ts";
export type * from "./tools/executor.ts";
export type { ToolFilter } from "./tools/tool_filter.ts";
export type { ToolRegistryOptions } from "./registry/tool_registry.ts";
export type { ToolsContext } from "./registry/tools_plugin.ts";
export type {
  ApprovalOutcome,
  ExecuteRequest,
  ToolErrorCode,
  ToolSchema,
} from "./registry/types.ts";
export type { JsonSchema } from "./tools/definition.ts";
export type {
  Flatten,
  InferEmptyObject,
  InferObject,
  InferProperties,
  InferType,
  MaxInferDepth,
  PrevDepth,
  RequiredKeys,
} from "./tools/infer.ts";
export type {
  ArraySpec,
  BooleanSpec,
  IntegerSpec,
  JsonSpec,
  NullSpec,
  NumberSpec,
  ObjectSpec,
  OneOfSpec,
  SpecAnnotations,
  StringSpec,
  TypedSpecBase,
} from "./tools/schema.ts";
export type {
  StandardJsonSchemaConverter,
  StandardJsonSchemaOptions,
  StandardPathSegment,
  StandardSchemaIssue,
  StandardSchemaResult,
} from "./tools/standard_schema.ts";
