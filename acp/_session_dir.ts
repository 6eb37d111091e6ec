/**
 * Private: where the agent keeps session logs. By default under the user's state directory,
 * `$XDG_STATE_HOME/dsh/sessions/<workspace-key>/` (default `~/.local/state/dsh/...`), which the
 * sandbox cannot see or write; `<workspace-key>` is the workspace folder's name plus a hash of its
 * path. `--sessions-dir`, or the config's `sessionsDir` (relative to the config file's folder),
 * choose another folder.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { basename, dirname, resolve } from "node:path";
import { userStateDir } from "../core/user_dirs.ts";

/** The command that imports an unsigned (old) log, for messages. */
export const IMPORT_COMMAND = "deno task import-session <log.jsonl>";

/** The sessions folder and the trusted folder above it whose descendants are checked. */
export interface SessionsLocation {
  readonly dir: string;
  /** Folders below this one, down to `dir`, must not be links. */
  readonly anchor: string | undefined;
}

/** `<name>-<16 hex digits of sha256(path)>` for a workspace folder. */
export function workspaceKey(workspace: string): string {
  const name = basename(workspace).replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 40) || "root";
  const hash = createHash("sha256").update(workspace).digest("hex").slice(0, 16);
  return `${name.replace(/^\.+/, "_")}-${hash}`;
}

/** The default sessions folder of a workspace. */
export function defaultSessionsDir(
  workspace: string,
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): string {
  return `${userStateDir(env)}/sessions/${workspaceKey(resolve(workspace))}`;
}

/**
 * Where the logs of `workspace` go: the `--sessions-dir` flag, else the config's `sessionsDir`
 * (relative to `base`), else the user state directory.
 */
export function sessionsLocation(
  workspace: string,
  base: string,
  configured: string | undefined,
  flag: string | undefined,
): SessionsLocation {
  if (flag === undefined && configured === undefined) {
    const dir = defaultSessionsDir(workspace);
    // The workspace's own folder is checked; the folders above it are the user's state dir,
    // which the sandbox cannot see (and the agent may not even read, only this folder).
    return { dir, anchor: dirname(dir) };
  }
  const dir = resolve(flag ?? resolve(base, configured!));
  const root = resolve(workspace);
  return { dir, anchor: dir.startsWith(`${root}/`) ? root : undefined };
}
