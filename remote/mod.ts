/**
 * Tools that run elsewhere: executors whose environment is a remote sandbox (see
 * docs/contracts.md §11 and the README's "Running tools remotely").
 *
 * {@linkcode denoSandboxExecutor} gives every session its own Deno Sandbox microVM behind the
 * same `Executor` interface as the local executors (bash, the fs tools, jobs and Code Mode need
 * no change).
 *
 * @example Usage
 * ```ts ignore
 * import { denoSandboxExecutor } from "@dsh/harness/remote";
 * const executor = denoSandboxExecutor({ workspace: "/home/me/project", allowNet: [] });
 * const result = await executor.forSession("s1").run("uname -a");
 * ```
 *
 * @example Workspace sync (docs/contracts.md §11 "Workspace sync")
 * ```ts ignore
 * import { createWorkspaceSync, type SyncTarget } from "@dsh/harness/remote";
 * declare const target: SyncTarget; // the remote executor, or an adapter over it
 * const sync = createWorkspaceSync({ workspace: "/home/me/project" });
 * await sync.upload(target); // once, when the environment is created or reattached
 * await sync.push(target); // before each call
 * const { downloaded, conflicts, skipped } = await sync.pull(target); // after it
 * ```
 *
 * @module
 */
export {
  DEFAULT_SESSION,
  DenoSandboxExecutor,
  denoSandboxExecutor,
} from "./deno_sandbox_executor.ts";
export type { DenoSandboxExecutorOptions, SandboxSecret } from "./deno_sandbox_executor.ts";
export type { SandboxSessionExecutor } from "./_session.ts";

// Types the signatures above use, re-exported so this entry point documents itself.
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
export type { ProtectedDecision, ProtectedPath, ProtectedPaths } from "../builtins/mod.ts";

export {
  createWorkspaceSync,
  DEFAULT_MAX_PULL_BYTES,
  SYNC_HIDDEN_NAMES,
} from "./workspace_sync.ts";
export type {
  SyncReport,
  SyncTarget,
  WorkspaceSync,
  WorkspaceSyncOptions,
} from "./workspace_sync.ts";
