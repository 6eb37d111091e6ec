/**
 * Private: normalization of ACP transcripts and session logs for snapshots (volatile ids, paths
 * and timings become placeholders). Shared by `assertAcpSnapshot` and the repository's own
 * snapshot runner (tests/acp/_snapshot.ts).
 *
 * @module
 */

const UUID_REGEXP = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const VOLATILE_KEYS = new Set(["time", "createdAt", "durationMs", "elapsedMs", "pid"]);

/** The run-specific strings {@linkcode normalizeText} replaces. */
export interface NormalizeNames {
  /** Workspace paths (as given and resolved), replaced by `{{cwd}}`. */
  readonly cwds: readonly string[];
  /** The sessions directory, replaced by `{{sessionsDir}}`. */
  readonly sessionsDir: string;
  /** The session id, replaced by `{{sessionId}}`. */
  readonly sessionId?: string;
}

function replaceAll(text: string, from: string, to: string): string {
  return from === "" ? text : text.split(from).join(to);
}

/** Replaces volatile values in one JSON text. */
export function normalizeText(text: string, names: NormalizeNames): string {
  let out = text;
  if (names.sessionId) out = replaceAll(out, names.sessionId, "{{sessionId}}");
  out = out.replace(UUID_REGEXP, "{{uuid}}");
  out = replaceAll(out, names.sessionsDir, "{{sessionsDir}}");
  for (const cwd of names.cwds) out = replaceAll(out, cwd, "{{cwd}}");
  return out;
}

/** Replaces the values of volatile keys (`time`, `pid`, …) with `{{key}}`, recursively. */
export function scrubVolatile(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrubVolatile);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map((
        [k, v],
      ) => [k, VOLATILE_KEYS.has(k) ? `{{${k}}}` : scrubVolatile(v)]),
    );
  }
  return value;
}
