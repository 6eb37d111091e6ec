/**
 * Tool definitions: `defineTool` with its schema DSL, type inference, JSON Schema emission and
 * validation, plus the shared tool contract (content blocks, render intents, `ToolDefinition`).
 *
 * @example Usage
 * ```ts
 * import { defineTool } from "./define_tool.ts";
 * import { deepEqual } from "node:assert/strict";
 * const tool = defineTool({
 *   name: "read_file",
 *   description: "Read a file from disk.",
 *   parameters: { path: { type: "string", required: true }, limit: { type: "number" } },
 *   execute: (args) => [{ type: "text", text: args.path }],
 * });
 * deepEqual(tool.parameters.required, ["path"]);
 * ```
 *
 * @module
 */
export { TOOL_NAME_REGEXP } from "./define_tool.ts";

export {
  checkObjectSchema,
  isStandardSchema,
  standardJsonSchema,
  standardViolations,
} from "./standard_schema.ts";
export type {
  InferStandardOutput,
  StandardJsonSchemaConverter,
  StandardJsonSchemaOptions,
  StandardPathSegment,
  StandardSchemaIssue,
  StandardSchemaResult,
  StandardSchemaV1,
} from "./standard_schema.ts";
export { checkParameters, MAX_SPEC_DEPTH } from "./schema.ts";
export { SchemaSpecError } from "./schema_spec_error.ts";
export type {
  ArraySpec,
  BooleanSpec,
  IntegerSpec,
  JsonSpec,
  NullSpec,
  NumberSpec,
  ObjectSpec,
  OneOfSpec,
  ParameterSpec,
  ParametersSpec,
  SchemaSpec,
  SpecAnnotations,
  StringSpec,
  TypedSpecBase,
} from "./schema.ts";
export type {
  Flatten,
  InferArgs,
  InferEmptyObject,
  InferObject,
  InferProperties,
  InferType,
  InferValue,
  MaxInferDepth,
  PrevDepth,
  RequiredKeys,
} from "./infer.ts";
export { toJsonSchema } from "./json_schema.ts";
export { compileValidator } from "./validate.ts";
export type { ArgsValidator } from "./validate.ts";
export { ToolArgsError } from "./tool_args_error.ts";
export {
  argError,
  bigIntegerViolation,
  checkLength,
  checkRange,
  formatArgError,
  formatViolation,
  MAX_VIOLATION_CHARS,
} from "./arg_error.ts";
export type { ArgErrorParts, CheckLengthOptions, CheckRangeOptions } from "./arg_error.ts";
export { contentText } from "./content.ts";
export type { ContentBlock, ImageBlock, ResourceBlock, TextBlock } from "./content.ts";
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
} from "./views.ts";
export type {
  AgentHandle,
  AnyToolDefinition,
  ArgsValidation,
  BackgroundJob,
  ExecuteReturn,
  InjectOptions,
  InjectSource,
  JsonSchema,
  OutputSink,
  ToolDefinition,
  ToolExecution,
  ToolResult,
  ValidatedTool,
} from "./definition.ts";

export { executorFor, mergedScript } from "./executor.ts";
export { openFileOf } from "./exec_file.ts";
export type {
  DetachedRead,
  DetachedRun,
  DirEntry,
  ExecChild,
  ExecStatus,
  Executor,
  ExecutorRecord,
  FileStat,
  FoundFile,
  OpenedFile,
  OpenFileOptions,
  RunOptions,
  RunResult,
  SpawnOptions,
} from "./executor.ts";
export type { ToolErrorCode, ToolOutcome } from "./outcome.ts";
export type { ToolFilter } from "./tool_filter.ts";
export {
  checkPermissionRules,
  compilePermissionRules,
  globToRegExp,
  matchGlob,
} from "./permission_rules.ts";
export { checkToolFilter, compileToolFilter } from "./tool_filter.ts";
export type {
  PermissionMatcher,
  PermissionRule,
  RuleDecision,
  RuleMatch,
} from "./permission_rules.ts";
export { DRAIN_IDLE_MS, drained } from "./pipe_drain.ts";
export { isInside, resolvePath } from "./paths.ts";
