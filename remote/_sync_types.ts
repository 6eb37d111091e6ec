/**
 * Private: the two types every part of the workspace sync shares (`workspace_sync.ts` re-exports
 * them): the remote side it talks to and the report of one pass.
 *
 * @module
 */

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
