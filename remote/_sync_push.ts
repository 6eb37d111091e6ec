/**
 * Host → remote (private to remote/): the first upload and each push before a call.
 *
 * @module
 */
import {
  type HostFile,
  type HostWalk,
  mtimeMsOf,
  readHostFile,
  sha256Hex,
  walkHost,
} from "./_sync_host.ts";
import {
  hashScripts,
  INLINE_MAX_BYTES,
  listingScript,
  parseHashes,
  parseListing,
  parsePushOutput,
  type PushOp,
  type PushOutput,
  pushScripts,
  type RemoteEntry,
  SCRIPT_MAX_BYTES,
} from "./_sync_scripts.ts";
import {
  absolute,
  messageOf,
  ReportBuilder,
  sameStat,
  type SyncState,
  UNKNOWN_KEY,
} from "./_sync_state.ts";
import type { SyncReport, SyncTarget } from "./workspace_sync.ts";

/** A host file that goes up, with its content. */
interface Outgoing {
  readonly file: HostFile;
  readonly bytes: Uint8Array;
  readonly sha256: string;
}

/** Host skips not reported yet (each once; `upload` reports all again). */
function reportSkips(state: SyncState, walk: HostWalk, report: ReportBuilder): void {
  for (const [rel, reason] of walk.skipped) {
    if (state.reported.has(rel)) continue;
    state.reported.add(rel);
    report.skip(absolute(state, rel), reason);
  }
}

/** The file's content when it differs from the manifest, else `undefined` (a touch is not a change). */
async function changed(
  state: SyncState,
  file: HostFile,
  report: ReportBuilder,
): Promise<Outgoing | undefined> {
  const entry = state.manifest.get(file.rel);
  if (entry !== undefined && sameStat(file, entry)) return undefined;
  try {
    const { bytes, info } = await readHostFile(state.workspace, file);
    const sha256 = await sha256Hex(bytes);
    if (entry !== undefined && entry.sha256 === sha256) {
      state.manifest.set(file.rel, { ...entry, mtimeMs: mtimeMsOf(info) });
      return undefined;
    }
    return { file: { ...file, size: bytes.length, mtimeMs: mtimeMsOf(info) }, bytes, sha256 };
  } catch (error) {
    report.skip(absolute(state, file.rel), messageOf(error));
    return undefined;
  }
}

/** Whether the remote changed `rel` since the last sync, judging by its entry before the op. */
function remoteChanged(state: SyncState, rel: string, before: RemoteEntry | undefined): boolean {
  const known = state.remote.get(rel);
  if (known === UNKNOWN_KEY) return false;
  if (known === undefined) return before !== undefined;
  return before?.key !== known;
}

/** Runs push scripts and collects their records. */
async function runOps(
  state: SyncState,
  target: SyncTarget,
  ops: readonly PushOp[],
): Promise<PushOutput> {
  const out: PushOutput = { before: new Map(), after: new Map(), failed: new Set() };
  if (ops.length === 0) return out;
  for (const script of pushScripts(state.workspace, ops)) {
    parsePushOutput(await target.capture(script), out);
  }
  return out;
}

/** Records one written file in the state and the report. */
function recordWrite(
  state: SyncState,
  item: Outgoing,
  key: string,
  report: ReportBuilder,
): void {
  const { rel, size, mtimeMs } = item.file;
  state.manifest.set(rel, { size, mtimeMs, sha256: item.sha256 });
  state.remote.set(rel, key);
  report.uploaded++;
  report.bytes += size;
}

/** Sends one batch: inline writes, stat-only ops for the large files, removals. */
async function sendBatch(
  state: SyncState,
  target: SyncTarget,
  batch: { inline: Outgoing[]; large: Outgoing[]; removed: string[] },
  report: ReportBuilder,
): Promise<void> {
  const ops: PushOp[] = [
    ...batch.inline.map((item): PushOp => ({
      kind: "write",
      name: item.file.rel,
      base64: item.bytes.toBase64(),
    })),
    ...batch.large.map((item): PushOp => ({ kind: "stat", name: item.file.rel })),
    ...batch.removed.map((rel): PushOp => ({ kind: "remove", name: rel })),
  ];
  const out = await runOps(state, target, ops);
  const conflict = (rel: string) => {
    if (remoteChanged(state, rel, out.before.get(rel))) report.conflicts.push(absolute(state, rel));
  };
  for (const item of batch.inline) {
    const rel = item.file.rel;
    conflict(rel);
    if (out.failed.has(rel)) report.skip(absolute(state, rel), "the remote write failed");
    else recordWrite(state, item, out.after.get(rel)?.key ?? UNKNOWN_KEY, report);
  }
  for (const item of batch.large) {
    conflict(item.file.rel);
    try {
      await target.writeFile(absolute(state, item.file.rel), item.bytes);
      recordWrite(state, item, UNKNOWN_KEY, report);
    } catch (error) {
      report.skip(absolute(state, item.file.rel), `the remote write failed: ${messageOf(error)}`);
    }
  }
  for (const rel of batch.removed) {
    conflict(rel);
    state.manifest.delete(rel);
    state.remote.delete(rel);
    report.removed++;
  }
}

/**
 * Pushes host changes since the last sync: changed and new files go up (batched into scripts,
 * large ones through `writeFile`), files deleted on the host are removed remotely.
 *
 * @param state The sync state.
 * @param target The remote side.
 * @param walked A walk made just before, when there is one.
 * @param report The report to fill.
 * @returns The report.
 */
export async function pushChanges(
  state: SyncState,
  target: SyncTarget,
  walked?: HostWalk,
  report: ReportBuilder = new ReportBuilder(),
): Promise<SyncReport> {
  const walk = walked ?? await walkHost(state.workspace, state.hidden);
  reportSkips(state, walk, report);
  let batch = { inline: [] as Outgoing[], large: [] as Outgoing[], removed: [] as string[] };
  let pending = 0;
  for (const file of [...walk.files.values()].sort((a, b) => a.rel < b.rel ? -1 : 1)) {
    const item = await changed(state, file, report);
    if (item === undefined) continue;
    const inline = Math.ceil(item.bytes.length / 3) * 4 <= INLINE_MAX_BYTES;
    (inline ? batch.inline : batch.large).push(item);
    pending += inline ? item.bytes.length : 0;
    if (pending >= SCRIPT_MAX_BYTES * 4 || batch.large.length >= 16) {
      await sendBatch(state, target, batch, report);
      batch = { inline: [], large: [], removed: [] };
      pending = 0;
    }
  }
  for (const rel of state.manifest.keys()) {
    if (!walk.files.has(rel) && !walk.skipped.has(rel)) batch.removed.push(rel);
  }
  await sendBatch(state, target, batch, report);
  return report.done();
}

/** The remote's sha256 of `names`. */
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

/** Lists the remote workspace (one capture). */
export async function remoteListing(
  state: SyncState,
  target: SyncTarget,
): Promise<{ entries: RemoteEntry[]; malformed: string[] }> {
  return parseListing(await target.capture(listingScript(state.workspace)));
}

/**
 * Reconciles the manifest with what the remote really holds (a new sandbox holds nothing; a
 * reattached one what it kept), then pushes what differs: files the remote holds with the same
 * content (by sha256) are not sent again.
 *
 * @param state The sync state.
 * @param target The remote side.
 * @returns The report.
 */
export async function uploadWorkspace(state: SyncState, target: SyncTarget): Promise<SyncReport> {
  const walk = await walkHost(state.workspace, state.hidden);
  const { entries } = await remoteListing(state, target);
  const remote = new Map(entries.map((entry) => [entry.name, entry]));
  const candidates: HostFile[] = [];
  for (const file of walk.files.values()) {
    const entry = remote.get(file.rel);
    const known = state.manifest.get(file.rel);
    if (entry?.type === "f" && known !== undefined && state.remote.get(file.rel) === entry.key) {
      continue; // Unchanged on the remote since the sync that wrote it.
    }
    state.manifest.delete(file.rel);
    if (entry?.type === "f") state.remote.set(file.rel, entry.key);
    else state.remote.delete(file.rel);
    if (entry?.type === "f" && entry.size === file.size) candidates.push(file);
  }
  for (const rel of [...state.manifest.keys()]) {
    if (!walk.files.has(rel) && remote.get(rel)?.key !== state.remote.get(rel)) {
      state.manifest.delete(rel);
      state.remote.delete(rel);
    }
  }
  const hashes = await remoteHashes(state, target, candidates.map((file) => file.rel));
  const report = new ReportBuilder();
  for (const file of candidates) {
    const item = await changed(state, file, report);
    if (item !== undefined && hashes.get(file.rel) === item.sha256) {
      state.manifest.set(file.rel, {
        size: item.bytes.length,
        mtimeMs: item.file.mtimeMs,
        sha256: item.sha256,
      });
    }
  }
  state.reported.clear();
  return await pushChanges(state, target, walk, report);
}
