/**
 * Private: the workspace trust records, `trusted.json` in the user's config folder
 * (`core/user_dirs.ts`), outside every workspace. One entry per trusted folder holds the request
 * the user granted (its keys and digest), the config file and when. Only the trust command
 * writes it; the agent reads it, and its fs tools may not write there.
 *
 * @module
 */
import { join } from "node:path";
import { requestDigest, type TrustItem } from "./_trust.ts";

/** The file name inside the config folder. */
export const TRUST_FILE = "trusted.json";

/** One trusted folder. */
export interface TrustRecord {
  /** The config file the grant was made for. */
  readonly config: string;
  /** The granted request's keys. */
  readonly request: readonly string[];
  /** The granted request's digest (see `requestDigest`). */
  readonly digest: string;
  /** When (ISO time). */
  readonly grantedAt: string;
}

interface TrustFile {
  readonly version: 1;
  readonly folders: Record<string, TrustRecord>;
}

function isRecord(value: unknown): value is TrustRecord {
  const r = value as TrustRecord;
  return typeof r === "object" && r !== null && Array.isArray(r.request) &&
    r.request.every((k) => typeof k === "string");
}

/**
 * Reads every record. A missing file, or one the process may not read, is no record; a broken
 * file throws (it names the file, so the user can fix or delete it).
 */
export async function readTrustRecords(configDir: string): Promise<Record<string, TrustRecord>> {
  const path = join(configDir, TRUST_FILE);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return {};
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      return {};
    }
    throw error;
  }
  let parsed: Partial<TrustFile>;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(
      `Cannot read the trust records "${path}": ${
        (error as Error).message
      } (delete the file to start over)`,
    );
  }
  const folders = parsed?.folders;
  if (typeof folders !== "object" || folders === null) {
    throw new SyntaxError(
      `Cannot read the trust records "${path}": expected {"version": 1, "folders": {…}} (delete the file to start over)`,
    );
  }
  return Object.fromEntries(Object.entries(folders).filter(([, r]) => isRecord(r)));
}

/** The granted keys of one folder (`[]` when it was never trusted). */
export async function grantedKeys(configDir: string, folder: string): Promise<string[]> {
  const record = (await readTrustRecords(configDir))[folder];
  return record === undefined ? [] : [...record.request];
}

/**
 * Records that the user trusts `folder` for `asked` (replacing its earlier grant). Written to a
 * temp file and renamed, mode 0600, the folder created 0700.
 *
 * @returns The record written.
 */
export async function recordTrust(
  configDir: string,
  folder: string,
  config: string,
  asked: readonly TrustItem[],
): Promise<TrustRecord> {
  await Deno.mkdir(configDir, { recursive: true, mode: 0o700 });
  const folders = await readTrustRecords(configDir);
  const record: TrustRecord = {
    config,
    request: [...new Set(asked.map((a) => a.key))].sort(),
    digest: await requestDigest(asked),
    grantedAt: new Date().toISOString(),
  };
  folders[folder] = record;
  const path = join(configDir, TRUST_FILE);
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  const body: TrustFile = { version: 1, folders };
  await Deno.writeTextFile(temp, JSON.stringify(body, null, 2) + "\n", { mode: 0o600 });
  await Deno.rename(temp, path);
  return record;
}

/** Removes the grant of `folder`; true when there was one. */
export async function revokeTrust(configDir: string, folder: string): Promise<boolean> {
  const folders = await readTrustRecords(configDir);
  if (folders[folder] === undefined) return false;
  delete folders[folder];
  const path = join(configDir, TRUST_FILE);
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(temp, JSON.stringify({ version: 1, folders }, null, 2) + "\n", {
    mode: 0o600,
  });
  await Deno.rename(temp, path);
  return true;
}
