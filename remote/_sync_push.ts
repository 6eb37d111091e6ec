/**
 * Host → remote (private to remote/): the first upload and each push before a call.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import {
  type HostFile,
  type HostWalk,
  mtimeMsOf,
  readHostFile,
  sha256Hex,
  walkHost,
} from "./_sync_host.ts";
import {
  ARCHIVE_MAX_BYTES,
  chunkBySize,
  INLINE_MAX_BYTES,
  nameList,
  NAMES_MAX_BYTES,
  parsePushOutput,
  type PushOutput,
  pushScript,
  type RemoteEntry,
} from "./_sync_scripts.ts";
import { gzip, tarArchive, tarSize } from "./_sync_tar.ts";
import { absolute, ReportBuilder, sameStat, type SyncState, UNKNOWN_KEY } from "./_sync_state.ts";
import { remoteHashes, remoteListing } from "./_sync_remote.ts";
import type { SyncReport, SyncTarget } from "./_sync_types.ts";

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
    report.skip(absolute(state, file.rel), errorMessage(error));
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

/** A batch of changes to send. */
interface Batch {
  inline: Outgoing[];
  large: Outgoing[];
  removed: string[];
}

const encoder = new TextEncoder();

function namesSize(names: readonly string[]): number {
  return encoder.encode(nameList(names)).length;
}

/** Sends small files as gzipped tar archives, halving a batch until one fits in a script. */
async function sendInline(
  state: SyncState,
  target: SyncTarget,
  items: readonly Outgoing[],
  out: PushOutput,
): Promise<void> {
  if (items.length === 0) return;
  const names = items.map((item) => item.file.rel);
  const split = async () => {
    const half = Math.ceil(items.length / 2);
    await sendInline(state, target, items.slice(0, half), out);
    await sendInline(state, target, items.slice(half), out);
  };
  if (items.length > 1 && namesSize(names) > NAMES_MAX_BYTES) return await split();
  const tar = tarArchive(items.map((item) => ({
    name: item.file.rel,
    mode: item.file.mode,
    mtimeMs: item.file.mtimeMs,
    bytes: item.bytes,
  })));
  const archive = (await gzip(tar)).toBase64();
  if (items.length > 1 && archive.length > ARCHIVE_MAX_BYTES) return await split();
  const batch = { before: names, archive, removed: [], modes: [], after: names };
  parsePushOutput(await target.capture(pushScript(state.workspace, batch)), out);
}

/** Sends large files through `writeFile`, with their entries before and modes after. */
async function sendLarge(
  state: SyncState,
  target: SyncTarget,
  items: readonly Outgoing[],
  out: PushOutput,
  report: ReportBuilder,
): Promise<void> {
  if (items.length === 0) return;
  const names = items.map((item) => item.file.rel);
  const none = { removed: [], modes: [], after: [] };
  parsePushOutput(
    await target.capture(pushScript(state.workspace, { ...none, before: names })),
    out,
  );
  const written: Outgoing[] = [];
  for (const item of items) {
    try {
      await target.writeFile(absolute(state, item.file.rel), item.bytes);
      written.push(item);
    } catch (error) {
      report.skip(
        absolute(state, item.file.rel),
        `the remote write failed: ${errorMessage(error)}`,
      );
    }
  }
  if (written.length === 0) return;
  const modes = written.map((item) => ({ name: item.file.rel, mode: item.file.mode }));
  const after = written.map((item) => item.file.rel);
  parsePushOutput(
    await target.capture(pushScript(state.workspace, { before: [], removed: [], modes, after })),
    out,
  );
}

/** Removes remote files, with their entries before. */
async function sendRemovals(
  state: SyncState,
  target: SyncTarget,
  names: readonly string[],
  out: PushOutput,
): Promise<void> {
  const fixed = encoder.encode(pushScript(state.workspace, {
    before: [],
    removed: [],
    modes: [],
    after: [],
  })).length;
  for (const chunk of chunkBySize(names, (name) => 2 * (namesSize([name]) + 1), fixed)) {
    const batch = { before: chunk, removed: chunk, modes: [], after: [] };
    parsePushOutput(await target.capture(pushScript(state.workspace, batch)), out);
  }
}

/** Sends one batch and records what landed. */
async function sendBatch(
  state: SyncState,
  target: SyncTarget,
  batch: Batch,
  report: ReportBuilder,
): Promise<void> {
  const out: PushOutput = { before: new Map(), after: new Map() };
  await sendInline(state, target, batch.inline, out);
  await sendLarge(state, target, batch.large, out, report);
  await sendRemovals(state, target, batch.removed, out);
  const conflict = (rel: string) => {
    if (remoteChanged(state, rel, out.before.get(rel))) report.conflicts.push(absolute(state, rel));
  };
  for (const item of [...batch.inline, ...batch.large]) {
    const rel = item.file.rel;
    const after = out.after.get(rel);
    if (after === undefined && batch.large.includes(item)) continue; // reported by sendLarge
    conflict(rel);
    if (after?.type !== "f" || after.size !== item.bytes.length) {
      report.skip(absolute(state, rel), "the remote write failed");
      continue;
    }
    state.manifest.set(rel, {
      size: item.file.size,
      mtimeMs: item.file.mtimeMs,
      sha256: item.sha256,
    });
    state.remote.set(rel, after.key);
    report.uploaded++;
    report.bytes += item.bytes.length;
  }
  for (const rel of batch.removed) {
    conflict(rel);
    state.manifest.delete(rel);
    state.remote.delete(rel);
    report.removed++;
  }
}

/** Files read and hashed at once, and the bytes they may hold together (one file may exceed it). */
const READ_AHEAD = 16;
const READ_AHEAD_BYTES = 8 * 1024 * 1024;

/** `read` of each file in order, up to {@linkcode READ_AHEAD} files (and 8 MiB) at once. */
async function* readAhead<R>(
  files: readonly HostFile[],
  read: (file: HostFile) => Promise<R>,
): AsyncGenerator<R> {
  const running: { size: number; result: Promise<R> }[] = [];
  let inFlight = 0;
  let next = 0;
  while (next < files.length || running.length > 0) {
    while (
      next < files.length && running.length < READ_AHEAD &&
      (running.length === 0 || inFlight + files[next]!.size <= READ_AHEAD_BYTES)
    ) {
      const file = files[next++]!;
      inFlight += file.size;
      running.push({ size: file.size, result: read(file) });
    }
    const first = running.shift()!;
    inFlight -= first.size;
    yield await first.result;
  }
}

/** A host file over this many bytes is not pushed (it would be read whole). */
const MAX_PUSH_FILE_BYTES = 256 * 1024 * 1024;

/** Raw bytes of small files gathered before a batch is sent. */
const BATCH_RAW_BYTES = 1024 * 1024;

/**
 * Pushes host changes since the last sync: changed and new files go up (small ones in gzipped
 * tar archives inside scripts, large ones through `writeFile`), files deleted on the host are
 * removed remotely.
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
  let batch: Batch = { inline: [], large: [], removed: [] };
  let pending = 0;
  const files = [...walk.files.values()].filter((file) => {
    const entry = state.manifest.get(file.rel);
    if (entry !== undefined && sameStat(file, entry)) return false;
    if (file.size <= MAX_PUSH_FILE_BYTES) return true;
    if (!state.reported.has(file.rel)) {
      state.reported.add(file.rel);
      report.skip(
        absolute(state, file.rel),
        `too large to sync: ${file.size} bytes (the limit is ${MAX_PUSH_FILE_BYTES})`,
      );
    }
    return false;
  }).sort((a, b) => a.rel < b.rel ? -1 : 1);
  const items = readAhead(files, (file) => changed(state, file, report));
  for await (const item of items) {
    if (item === undefined) continue;
    const inline = item.bytes.length <= INLINE_MAX_BYTES;
    (inline ? batch.inline : batch.large).push(item);
    pending += inline ? tarSize({ name: item.file.rel, size: item.bytes.length }) : BATCH_RAW_BYTES;
    if (pending >= BATCH_RAW_BYTES) {
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
    // What the remote holds there now is the baseline: an upload overwrites it without a conflict.
    if (entry !== undefined) state.remote.set(file.rel, entry.key);
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
