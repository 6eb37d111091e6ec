/**
 * The in-memory state of one workspace sync and the report being built (private to remote/).
 *
 * @module
 */
import type { ProtectedPaths } from "../builtins/mod.ts";
import type { HiddenMatcher } from "./_sync_names.ts";
import type { SyncReport } from "./_sync_types.ts";

/** One file as last synced: host and remote held this content. */
export interface ManifestEntry {
  /** The size in bytes. */
  readonly size: number;
  /** The host file's mtime in ms at that time. */
  readonly mtimeMs: number;
  /** The content's sha256 (hex). */
  readonly sha256: string;
}

/** `state.remote` value of a file the sync wrote without learning its remote stat. */
export const UNKNOWN_KEY = "?";

/** The state of one workspace sync. */
export interface SyncState {
  /** The absolute workspace path (the same on both sides). */
  readonly workspace: string;
  /** Relative path → last synced content. */
  readonly manifest: Map<string, ManifestEntry>;
  /** Relative path → the remote entry's `size mtime inode` when last seen (or {@linkcode UNKNOWN_KEY}). */
  readonly remote: Map<string, string>;
  /** Host-side skips already reported (each is reported once). */
  readonly reported: Set<string>;
  /** Which paths are hidden. */
  readonly hidden: HiddenMatcher;
  /** Which paths are protected. */
  readonly protectedPaths: ProtectedPaths;
  /** The workspace with its symlinks resolved (protected paths may be named either way). */
  readonly realWorkspace: string;
  /** The most bytes one pull downloads. */
  readonly maxPullBytes: number;
}

/** A report being built. */
export class ReportBuilder {
  /** Files written to the remote. */
  uploaded = 0;
  /** Files written to the host. */
  downloaded = 0;
  /** Files removed (on the remote by a push, on the host by a pull). */
  removed = 0;
  /** Bytes moved. */
  bytes = 0;
  /** Paths left alone, with why. */
  readonly skipped: { path: string; reason: string }[] = [];
  /** Paths changed on both sides (the host's version won). */
  readonly conflicts: string[] = [];

  /**
   * Records a skipped path.
   *
   * @param path The path (absolute, or a quoted hostile name).
   * @param reason Why.
   */
  skip(path: string, reason: string): void {
    this.skipped.push({ path, reason });
  }

  /**
   * The finished report.
   *
   * @returns The report.
   */
  done(): SyncReport {
    return {
      uploaded: this.uploaded,
      downloaded: this.downloaded,
      removed: this.removed,
      bytes: this.bytes,
      skipped: this.skipped,
      conflicts: this.conflicts,
    };
  }
}

/**
 * The absolute path of a relative one.
 *
 * @param state The state.
 * @param rel The relative path.
 * @returns The absolute path.
 */
export function absolute(state: SyncState, rel: string): string {
  return `${state.workspace}/${rel}`; // Never "/": createWorkspaceSync refuses it.
}

/**
 * Whether `rel` is a protected path, named from the workspace as given or as resolved.
 *
 * @param state The state.
 * @param rel The relative path.
 * @returns True when protected.
 */
export function isProtected(state: SyncState, rel: string): boolean {
  return state.protectedPaths.find(absolute(state, rel)) !== undefined ||
    state.protectedPaths.find(`${state.realWorkspace}/${rel}`) !== undefined;
}

/**
 * Whether a host stat still matches the manifest (size and mtime).
 *
 * @param info The stat.
 * @param entry The manifest entry.
 * @returns True when unchanged by stat.
 */
export function sameStat(info: { size: number; mtimeMs: number }, entry: ManifestEntry): boolean {
  return info.size === entry.size && info.mtimeMs === entry.mtimeMs;
}
