/**
 * Which workspace names the sync handles (private to remote/): hostile remote names, hidden
 * (secret) paths, and the folder that never leaves the host.
 *
 * @module
 */
import { DEFAULT_HIDDEN_PATHS, hiddenPathList } from "../builtins/mod.ts";

/**
 * Secret file names hidden at any depth of the workspace besides the sandbox's hidden paths
 * (`*` matches within one name). `.env.example`, `.env.sample`, `.env.template` and `.env.dist`
 * are templates, not secrets: {@linkcode ENV_TEMPLATES} keeps them.
 */
export const SYNC_HIDDEN_NAMES: readonly string[] = [
  ".env",
  ".env.*",
  "*.pem",
  "*.key",
  "*.p12",
  "*.pfx",
  "*.jks",
  "*.keystore",
  "id_rsa",
  "id_dsa",
  "id_ecdsa",
  "id_ed25519",
  ".netrc",
  ".git-credentials",
  ".pgpass",
];

/** `.env.*` names that are templates and do sync. */
const ENV_TEMPLATES: ReadonlySet<string> = new Set([
  ".env.example",
  ".env.sample",
  ".env.template",
  ".env.dist",
]);

/** Folders of the workspace root that never leave the host, with why. */
const HOST_ONLY: ReadonlyMap<string, string> = new Map([
  [".dsh", "the agent's state folder: stays on the host"],
]);

/** Longest relative path and longest name accepted from the remote side (Linux limits). */
const MAX_PATH_BYTES = 4096;
const MAX_NAME_BYTES = 255;

const encoder = new TextEncoder();

/**
 * Why a remote name cannot be applied on the host, or `undefined` when it is a plain relative
 * path (no `..`, `.` or empty component, not absolute, no NUL, no U+FFFD from undecodable bytes,
 * within the length limits).
 *
 * @param name The raw relative path from the remote listing.
 * @returns The reason, or `undefined`.
 */
export function badRemoteName(name: string): string | undefined {
  if (name === "") return "hostile name: empty";
  if (name.includes("\0")) return "hostile name: contains NUL";
  if (name.startsWith("/")) return "hostile name: absolute";
  if (name.includes("\uFFFD")) return "name is not valid UTF-8: stays remote only";
  if (encoder.encode(name).length > MAX_PATH_BYTES) return "hostile name: path too long";
  for (const part of name.split("/")) {
    if (part === "" || part === "." || part === "..") {
      return `hostile name: "${part}" component`;
    }
    if (encoder.encode(part).length > MAX_NAME_BYTES) return "hostile name: name too long";
  }
  return undefined;
}

function globRegExp(glob: string): RegExp {
  const body = glob.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join("[^/]*");
  return new RegExp(`^${body}$`, "s");
}

/** Decides which workspace paths are hidden. */
export interface HiddenMatcher {
  /** The reason when `rel` (relative to the workspace) is hidden, else `undefined`. */
  (rel: string): string | undefined;
}

/**
 * The matcher of one workspace: the sandbox's hidden paths (`~/…` or absolute, after the
 * configured entries changed the defaults as `hiddenPathList` does) that lie inside the
 * workspace, plus name patterns (entries without `/`, defaults {@linkcode SYNC_HIDDEN_NAMES})
 * matched against every component. `!entry` removes a default.
 *
 * @param workspace The absolute workspace path.
 * @param configured The configured entries.
 * @param home What `~` stands for.
 * @returns The matcher.
 */
export function hiddenMatcher(
  workspace: string,
  configured: readonly string[],
  home: string | undefined,
): HiddenMatcher {
  const list = hiddenPathList(configured, [...DEFAULT_HIDDEN_PATHS, ...SYNC_HIDDEN_NAMES]);
  const names = list.filter((entry) => !entry.includes("/")).map(globRegExp);
  const prefix = workspace === "/" ? "/" : `${workspace}/`;
  const paths = list.filter((entry) => entry.includes("/"))
    .map((entry) => entry.startsWith("~/") && home !== undefined ? home + entry.slice(1) : entry)
    .filter((entry) => entry.startsWith(prefix))
    .map((entry) => entry.slice(prefix.length).replace(/\/+$/, ""));
  return (rel: string) => {
    const parts = rel.split("/");
    const host = HOST_ONLY.get(parts[0]!);
    if (host !== undefined) return host;
    for (const part of parts) {
      if (ENV_TEMPLATES.has(part)) continue;
      if (names.some((pattern) => pattern.test(part))) {
        return "hidden: a secret file name, never leaves the host";
      }
    }
    for (const path of paths) {
      if (rel === path || rel.startsWith(`${path}/`)) {
        return "hidden: a hidden path, never leaves the host";
      }
    }
    return undefined;
  };
}
