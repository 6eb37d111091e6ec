/**
 * Private: the workspace sync as this executor calls it (the shape of `WorkspaceSync` in
 * `workspace_sync.ts`, see docs and SHARED_SEAMS): `upload` once per created or reattached
 * sandbox, `push` before each call, `pull` after each run or spawn ended and after a write or
 * remove. Declared structurally so any implementation of that interface fits.
 *
 * @module
 */

/** What the sync needs from the remote side. */
export interface SyncTargetLike {
  /** Reads a remote file. */
  readFile(path: string): Promise<Uint8Array>;
  /** Writes a remote file (parents created). */
  writeFile(path: string, data: Uint8Array): Promise<void>;
  /** Removes a remote file or tree. */
  remove(path: string, options?: { recursive?: boolean }): Promise<void>;
  /** Runs a shell script remotely and returns its stdout. */
  capture(script: string): Promise<string>;
}

/** The three sync steps (their reports are the sync's business). */
export interface WorkspaceSyncLike {
  /** First upload of the whole workspace (on create; on reattach what changed). */
  upload(target: SyncTargetLike): Promise<unknown>;
  /** Host edits since the last sync go up. */
  push(target: SyncTargetLike): Promise<unknown>;
  /** Remote changes come back to the host. */
  pull(target: SyncTargetLike): Promise<unknown>;
}
