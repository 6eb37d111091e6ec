/**
 * Workspace sync for executors whose environment is elsewhere: the remote workspace sits at the
 * same absolute path as the host's, goes up once when the environment is created, gets the host's
 * edits before each call and sends its own changes back after. The model and its costs:
 * docs/contracts.md §11 "Workspace sync".
 *
 * @module
 */
import { HarnessError } from "../core/mod.ts";
import { ProtectedPaths } from "../builtins/mod.ts";
import { hiddenMatcher } from "./_sync_names.ts";
import { pushChanges, uploadWorkspace } from "./_sync_push.ts";
import { pullChanges } from "./_sync_pull.ts";
import type { SyncState } from "./_sync_state.ts";

export { SYNC_HIDDEN_NAMES } from "./_sync_names.ts";

/** What the sync needs from the remote side (the remote executor passes itself, or an adapter). */
export interface SyncTarget {
  /** Reads a whole remote file (an absolute path, the same as on the host). */
  readFile(path: string): Promise<Uint8Array>;
  /** Creates or overwrites a remote file, creating missing folders. */
  writeFile(path: string, data: Uint8Array): Promise<void>;
  /** Removes a remote file or folder; a missing one is fine. */
  remove(path: string, options?: { recursive?: boolean }): Promise<void>;
  /** Runs a shell script remotely and returns its stdout (used for the remote manifest). */
  capture(script: string): Promise<string>;
}

/** What one upload, push or pull did. */
export interface SyncReport {
  /** Files written to the remote. */
  uploaded: number;
  /** Files written to the host. */
  downloaded: number;
  /** Files removed: on the remote by `upload`/`push`, on the host by `pull`. */
  removed: number;
  /** Content bytes moved either way. */
  bytes: number;
  /** Paths left alone, with why (symlinks, hidden, protected, hostile names, over the byte cap). */
  skipped: readonly { path: string; reason: string }[];
  /** Absolute paths changed on both sides since the last sync: the host's version won. */
  conflicts: readonly string[];
}

/** One workspace's sync; it keeps the last synced state (the manifest) in memory. */
export interface WorkspaceSync {
  /** First upload of the whole workspace (on create; on reattach only what changed). */
  upload(target: SyncTarget): Promise<SyncReport>;
  /** Host edits since the last sync go up (before a call). */
  push(target: SyncTarget): Promise<SyncReport>;
  /** Remote changes come back to the host (after a call that may have changed files). */
  pull(target: SyncTarget): Promise<SyncReport>;
}

/** Options of {@linkcode createWorkspaceSync}. */
export interface WorkspaceSyncOptions {
  /** The absolute host workspace; the remote one is at the same path. */
  workspace: string;
  /**
   * Entries as in the config's `hiddenPaths`, on top of the sandbox's hidden paths and
   * {@linkcode SYNC_HIDDEN_NAMES}: `~/…` or absolute paths (those inside the workspace never go
   * up), names or `*` globs without `/` matched at any depth (`.env`, `*.pem`), `!entry` removes
   * a default.
   */
  hiddenPaths?: readonly string[];
  /** Paths a pull never writes or deletes on the host. @default {new ProtectedPaths([workspace])} */
  protectedPaths?: ProtectedPaths;
  /** The most content bytes one pull downloads; the rest waits for a later pull. @default {64 MiB} */
  maxPullBytes?: number;
  /** What `~` stands for in `hiddenPaths`. @default {$HOME} */
  home?: string;
}

/** Default of {@linkcode WorkspaceSyncOptions.maxPullBytes}. */
export const DEFAULT_MAX_PULL_BYTES: number = 64 * 1024 * 1024;

function checkedWorkspace(workspace: string): string {
  const normalized = workspace.replace(/\/+$/, "");
  if (
    !workspace.startsWith("/") || normalized.split("/").some((p, i) => i > 0 && /^\.{0,2}$/.test(p))
  ) {
    throw new HarnessError(
      "INVALID_ARGS",
      `Cannot sync the workspace "${workspace}": it must be an absolute, normalized path`,
    );
  }
  if (normalized === "") {
    throw new HarnessError("INVALID_ARGS", `Cannot sync the workspace "/": name a project folder`);
  }
  return normalized;
}

function realPathOr(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path; // Missing or not inspectable: the path as given.
  }
}

function homeDir(): string | undefined {
  try {
    return Deno.env.get("HOME");
  } catch {
    return undefined;
  }
}

/**
 * Creates the sync of one workspace (one per session environment). Calls are serialized: a
 * second call waits for the one running.
 *
 * @param options The workspace, hidden and protected paths, and the pull byte cap.
 * @returns The sync.
 * @throws {HarnessError} `INVALID_ARGS` for a relative or unnormalized workspace, `/`, or a bad cap.
 *
 * @example Usage
 * ```ts ignore
 * import { createWorkspaceSync } from "@dsh/harness/remote";
 * declare const target: import("@dsh/harness/remote").SyncTarget;
 * const sync = createWorkspaceSync({ workspace: "/home/me/project" });
 * await sync.upload(target);
 * await sync.push(target); // before a call
 * const report = await sync.pull(target); // after it
 * console.log(report.downloaded, report.conflicts);
 * ```
 */
export function createWorkspaceSync(options: WorkspaceSyncOptions): WorkspaceSync {
  const workspace = checkedWorkspace(options.workspace);
  const maxPullBytes = options.maxPullBytes ?? DEFAULT_MAX_PULL_BYTES;
  if (!Number.isSafeInteger(maxPullBytes) || maxPullBytes < 0) {
    throw new HarnessError(
      "INVALID_ARGS",
      `Cannot sync: maxPullBytes must be a non-negative integer: current value is ${maxPullBytes}`,
    );
  }
  const state: SyncState = {
    workspace,
    manifest: new Map(),
    remote: new Map(),
    reported: new Set(),
    hidden: hiddenMatcher(workspace, options.hiddenPaths ?? [], options.home ?? homeDir()),
    protectedPaths: options.protectedPaths ?? new ProtectedPaths([workspace]),
    realWorkspace: realPathOr(workspace),
    maxPullBytes,
  };
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run, run);
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    upload: (target) => serial(() => uploadWorkspace(state, target)),
    push: (target) => serial(() => pushChanges(state, target)),
    pull: (target) => serial(() => pullChanges(state, target)),
  };
}
