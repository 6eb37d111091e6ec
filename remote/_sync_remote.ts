/**
 * The two questions the sync asks the remote side (private to remote/): what is there (stat
 * only), and the sha256 of some files.
 *
 * @module
 */
import {
  hashScripts,
  listingScript,
  parseHashes,
  parseListing,
  type RemoteEntry,
} from "./_sync_scripts.ts";
import type { SyncState } from "./_sync_state.ts";
import type { SyncTarget } from "./workspace_sync.ts";

/**
 * The remote's sha256 of `names` (one capture per script-sized chunk; none for no names).
 *
 * @param state The sync state.
 * @param target The remote side.
 * @param names Relative paths.
 * @returns Relative path → sha256.
 */
export async function remoteHashes(
  state: SyncState,
  target: SyncTarget,
  names: readonly string[],
): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  if (names.length === 0) return hashes;
  for (const script of hashScripts(state.workspace, names)) {
    for (const [name, sha] of parseHashes(await target.capture(script))) hashes.set(name, sha);
  }
  return hashes;
}

/**
 * Lists the remote workspace (one capture).
 *
 * @param state The sync state.
 * @param target The remote side.
 * @returns The entries and the malformed records.
 */
export async function remoteListing(
  state: SyncState,
  target: SyncTarget,
): Promise<{ entries: RemoteEntry[]; malformed: string[] }> {
  return parseListing(await target.capture(listingScript(state.workspace)));
}
