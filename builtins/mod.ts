/**
 * Builtin tools: `bash` (terminal card, bounded output with spill, process-tree kill, optional
 * bubblewrap sandbox) and the fs tools `read`, `write`, `edit` (diff cards with applied hunks),
 * all behind the {@linkcode Executor} capability seam, plus the read-before-edit and workspace
 * policies. Contracts: docs/contracts.md §7–§8.
 *
 * @example Usage
 * ```ts
 * import { createReadTool, LocalExecutor } from "./mod.ts";
 * import { equal } from "node:assert/strict";
 * const read = createReadTool({ executor: new LocalExecutor() });
 * equal(read.presentCall?.({ file_path: "a.ts" })?.title, "Read a.ts");
 * ```
 *
 * @module
 */
export { executorFor, mergedScript } from "../tools/executor.ts";
export { openFileOf } from "../tools/exec_file.ts";
export { LocalExecutor } from "./local_executor.ts";
export type { Launch, LocalExecutorOptions } from "./local_executor.ts";
export { usePinnedOpen } from "./_pinned_open.ts";
export {
  ProtectedPaths,
  WORKSPACE_PROTECTED_NAMES,
  workspaceProtectedPaths,
} from "./protected_paths.ts";
export type { ProtectedDecision, ProtectedPath } from "./protected_paths.ts";
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
} from "../tools/executor.ts";
export {
  bwrapArgs,
  BwrapExecutor,
  createExecutor,
  createSandboxExecutor,
  DEFAULT_HIDDEN_PATHS,
  hiddenPathList,
  launcherArgv,
  MASKED_RUNTIME_DIRS,
  SANDBOX_MODES,
  sandboxFilter,
  SandboxUnavailableError,
} from "./sandbox.ts";
export type {
  BwrapExecutorOptions,
  BwrapProfile,
  CreateExecutorOptions,
  HiddenPath,
  ProtectedMounts,
  SandboxLevel,
  SandboxMode,
} from "./sandbox.ts";
export {
  BASH_PARAMETERS,
  bashOutputOf,
  bashPlugin,
  createBashTool,
  formatBashText,
  presentBashCall,
  presentBashResult,
} from "./bash.ts";
export type { BashArgs, BashMeta, BashPluginConfig, BashToolOptions } from "./bash.ts";
export {
  createReadTool,
  decodeText,
  formatReadWindow,
  presentReadCall,
  READ_MAX_BYTES,
  READ_MAX_LINE_CHARS,
  READ_MAX_LINES,
  READ_PARAMETERS,
  reportObserved,
  splitLines,
} from "./fs_read.ts";
export type { FileVersion, FsObservation, FsTarget, FsToolOptions, ReadArgs } from "./fs_read.ts";
export {
  createWriteTool,
  metaDiffs,
  presentWriteCall,
  presentWriteResult,
  WRITE_PARAMETERS,
} from "./fs_write.ts";
export type { FsMutationMeta, MetaDiff, WriteArgs } from "./fs_write.ts";
export {
  countOccurrences,
  createEditTool,
  EDIT_PARAMETERS,
  presentEditCall,
  presentEditResult,
} from "./fs_edit.ts";
export type { EditArgs } from "./fs_edit.ts";
export { FS_OBSERVED_EVENT, FS_TARGET_EVENT, fsPlugin } from "./fs_plugin.ts";
export type { FsPluginConfig } from "./fs_plugin.ts";
export { readBeforeEditPlugin, readBeforeEditReason, staleFileReason } from "./read_before_edit.ts";
export type { ReadBeforeEditConfig } from "./read_before_edit.ts";
export {
  outsideWorkspaceReason,
  protectedPathReason,
  workspacePolicyPlugin,
} from "./workspace_policy.ts";
export type { WorkspacePolicyConfig } from "./workspace_policy.ts";

// Types the signatures above use, re-exported so this entry point documents itself.
export type * from "../registry/doc_types.ts";
export type { DefinedTool, ToolArgs, ToolParameters } from "../tools/define_tool.ts";
export type * from "../tools/infer.ts";
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
} from "../tools/schema.ts";
export type {
  InferStandardOutput,
  StandardJsonSchemaConverter,
  StandardJsonSchemaOptions,
  StandardPathSegment,
  StandardSchemaIssue,
  StandardSchemaResult,
  StandardSchemaV1,
} from "../tools/standard_schema.ts";
export type { EnvInherit, EnvPolicy } from "../core/env_policy.ts";
export type { HarnessError } from "../core/errors.ts";
