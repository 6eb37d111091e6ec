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
 * @module
 */
export {
  DEFAULT_SESSION,
  DenoSandboxExecutor,
  denoSandboxExecutor,
} from "./deno_sandbox_executor.ts";
export type {
  DenoSandboxExecutorOptions,
  SandboxSecret,
  SyncTargetLike,
  WorkspaceSyncLike,
} from "./deno_sandbox_executor.ts";
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
  RunOptions,
  RunResult,
  SpawnOptions,
} from "../tools/executor.ts";
