/**
 * Private: the small value types the fs tools and their helpers share (`fs_read.ts` re-exports
 * them), kept apart so the helpers need not import the tools.
 *
 * @module
 */

/** What a session saw of a file: compared before a write or edit. */
export interface FileVersion {
  /** Size in bytes. */
  readonly size: number;
  /** Modification time in ms, when known. */
  readonly mtimeMs: number | null;
  /** A content hash (hex), for files up to 64 MiB. */
  readonly hash?: string;
}

/** A path as a call named it and the real path it reaches (every symlink followed). */
export interface FsTarget {
  /** Absolute and lexically normalized, as the call named it. */
  readonly path: string;
  /** The real path; components that do not exist yet are appended as they are. */
  readonly real: string;
}
