/**
 * Remote → host (private to remote/): each pull after a call. The remote is untrusted: its names
 * are validated, nothing is written through or as a symlink, never outside the workspace, never
 * to a hidden or protected path, and the bytes per pull are capped.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import { badRemoteName } from "./_sync_names.ts";
import { hostSlot, mtimeMsOf, removeHostFile, sha256Hex, writeHostFile } from "./_sync_host.ts";
import { remoteHashes, remoteListing } from "./_sync_remote.ts";
import type { RemoteEntry } from "./_sync_scripts.ts";
import { absolute, isProtected, ReportBuilder, sameStat, type SyncState } from "./_sync_state.ts";
import type { SyncReport, SyncTarget } from "./_sync_types.ts";

/** A changed remote file that may come back. */
interface Incoming {
  readonly entry: RemoteEntry;
  readonly sha256: string;
}

/** Shows a hostile name in a report: quoted, at most 200 characters. */
function shownName(name: string): string {
  return JSON.stringify(name.length > 200 ? `${name.slice(0, 200)}…` : name);
}

/** Why a valid, changed remote entry stays remote, or `undefined` when it may come back. */
function stayReason(state: SyncState, entry: RemoteEntry): string | undefined {
  if (entry.type === "l") return "a symlink: never created on the host, stays remote only";
  if (entry.type !== "f") return "not a regular file: stays remote only";
  if (state.hidden(entry.name) !== undefined) return "hidden: stays remote only";
  if (isProtected(state, entry.name)) {
    return "protected: stays remote only";
  }
  return undefined;
}

/** Sorts the listing: what changed since it was last seen, and what may come back. */
function classify(
  state: SyncState,
  entries: readonly RemoteEntry[],
  report: ReportBuilder,
): RemoteEntry[] {
  const candidates: RemoteEntry[] = [];
  for (const entry of entries) {
    if (state.remote.get(entry.name) === entry.key) continue;
    const bad = badRemoteName(entry.name);
    const reason = bad ?? stayReason(state, entry);
    if (reason !== undefined) {
      state.remote.set(entry.name, entry.key);
      report.skip(bad === undefined ? absolute(state, entry.name) : shownName(entry.name), reason);
    } else candidates.push(entry);
  }
  return candidates;
}

/** Whether the host file changed since the last sync (by stat, then by content). */
async function hostChanged(state: SyncState, rel: string, info: Deno.FileInfo): Promise<boolean> {
  const entry = state.manifest.get(rel);
  if (entry === undefined) return true;
  if (sameStat({ size: info.size, mtimeMs: mtimeMsOf(info) }, entry)) return false;
  const bytes = await Deno.readFile(absolute(state, rel));
  return await sha256Hex(bytes) !== entry.sha256;
}

/** Applies one changed remote file, within the byte budget; returns the bytes spent. */
async function applyIncoming(
  state: SyncState,
  target: SyncTarget,
  item: Incoming,
  budget: number,
  report: ReportBuilder,
): Promise<number> {
  const { entry } = item;
  const rel = entry.name;
  const path = absolute(state, rel);
  const overCap = `over the pull cap of ${state.maxPullBytes} bytes per call: ` +
    `stays remote until a later pull`;
  if (entry.size > budget) {
    report.skip(path, overCap);
    return 0;
  }
  const slot = await hostSlot(state.workspace, rel);
  if (slot.kind === "refused") {
    state.remote.set(rel, entry.key);
    report.skip(path, slot.reason);
    return 0;
  }
  const known = state.manifest.get(rel);
  if (slot.kind === "file" && known === undefined) {
    // Created on both sides: the same content is adopted, another one is a conflict.
    const bytes = await Deno.readFile(path);
    if (await sha256Hex(bytes) === item.sha256) {
      const mtimeMs = mtimeMsOf(slot.info);
      state.manifest.set(rel, { size: bytes.length, mtimeMs, sha256: item.sha256 });
      state.remote.set(rel, entry.key);
      return 0;
    }
  }
  const hostEdited = slot.kind === "file"
    ? await hostChanged(state, rel, slot.info)
    : known !== undefined;
  if (hostEdited) {
    state.remote.set(rel, entry.key);
    report.conflicts.push(path);
    return 0;
  }
  const bytes = await target.readFile(path);
  if (bytes.length > budget) {
    report.skip(path, overCap);
    return 0;
  }
  const info = await writeHostFile(state.workspace, rel, bytes);
  state.manifest.set(rel, {
    size: bytes.length,
    mtimeMs: mtimeMsOf(info),
    sha256: await sha256Hex(bytes),
  });
  state.remote.set(rel, entry.key);
  report.downloaded++;
  report.bytes += bytes.length;
  return bytes.length;
}

/** Applies a remote deletion of a file of the last manifest. */
async function applyDeletion(state: SyncState, rel: string, report: ReportBuilder): Promise<void> {
  const path = absolute(state, rel);
  const slot = await hostSlot(state.workspace, rel);
  state.remote.delete(rel);
  if (slot.kind === "absent") {
    state.manifest.delete(rel);
    return;
  }
  if (slot.kind === "refused") {
    state.manifest.delete(rel);
    report.skip(path, slot.reason);
    return;
  }
  if (await hostChanged(state, rel, slot.info)) {
    state.manifest.delete(rel);
    report.conflicts.push(path);
    return;
  }
  state.manifest.delete(rel);
  if (isProtected(state, rel)) {
    report.skip(path, "protected: the host keeps it (the next push restores it remotely)");
    return;
  }
  await removeHostFile(state.workspace, rel);
  report.removed++;
}

/**
 * Pulls remote changes since the last sync: one listing (stat only), the sha256 of the files
 * whose stat changed (one more capture, only when some did), then downloads of files whose
 * content changed and host deletions of files the remote removed (only files of the last
 * manifest).
 *
 * @param state The sync state.
 * @param target The remote side.
 * @returns The report.
 */
export async function pullChanges(state: SyncState, target: SyncTarget): Promise<SyncReport> {
  const report = new ReportBuilder();
  const { entries, malformed } = await remoteListing(state, target);
  for (const record of malformed) report.skip(shownName(record), "hostile listing record");
  const seen = new Set(entries.map((entry) => entry.name));
  const candidates = classify(state, entries, report);
  const hashes = await remoteHashes(state, target, candidates.map((entry) => entry.name));
  const incoming: Incoming[] = [];
  for (const entry of candidates) {
    const sha256 = hashes.get(entry.name);
    if (sha256 === undefined) continue; // Gone since the listing: the next pull sees it.
    if (state.manifest.get(entry.name)?.sha256 === sha256) state.remote.set(entry.name, entry.key);
    else incoming.push({ entry, sha256 });
  }
  let budget = state.maxPullBytes;
  for (const item of incoming.sort((a, b) => a.entry.name < b.entry.name ? -1 : 1)) {
    try {
      budget -= await applyIncoming(state, target, item, budget, report);
    } catch (error) {
      report.skip(absolute(state, item.entry.name), `not applied: ${errorMessage(error)}`);
    }
  }
  for (const rel of [...state.manifest.keys()].filter((rel) => !seen.has(rel)).sort()) {
    try {
      await applyDeletion(state, rel, report);
    } catch (error) {
      report.skip(absolute(state, rel), `not removed: ${errorMessage(error)}`);
    }
  }
  for (const rel of [...state.remote.keys()]) if (!seen.has(rel)) state.remote.delete(rel);
  return report.done();
}
