/**
 * Imports a session log that carries no signature (written before dsh signed its logs, for
 * example an old `.dsh/sessions/<id>.jsonl`) into the workspace's sessions folder, signed with the
 * user's key, so `session/load` accepts it. You vouch for its content by importing it.
 *
 * ```sh
 * deno task import-session <old.jsonl> [--sessions-dir <dir>]    # in the workspace folder
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { basename, resolve } from "node:path";
import { importSessionLog, loadSessionKey, prepareSessionsDir } from "../agent/mod.ts";
import { errorMessage } from "../core/error_message.ts";
import { IMPORT_COMMAND, sessionsLocation } from "./_session_dir.ts";

/**
 * Imports `source` into the sessions folder of `workspace` (or `sessionsDir`).
 *
 * @param source The old log.
 * @param workspace The workspace folder (absolute).
 * @param sessionsDir The sessions folder, when not the default.
 * @returns The imported log's path and what was copied.
 * @throws {Error} When the log is already signed, a log of that id exists, or a folder is a link.
 *
 * @example Usage
 * ```ts ignore
 * import { importSession } from "./import_session.ts";
 * const { path } = importSession("/w/.dsh/sessions/s.jsonl", "/w");
 * ```
 */
export function importSession(
  source: string,
  workspace: string,
  sessionsDir?: string,
): { readonly path: string; readonly id: string; readonly events: number } {
  const { dir, anchor } = sessionsLocation(workspace, workspace, undefined, sessionsDir);
  const folder = prepareSessionsDir(dir, anchor);
  const id = basename(source).replace(/\.jsonl$/, "");
  const path = `${folder.path}/${id}.jsonl`;
  const imported = importSessionLog(source, path, loadSessionKey());
  return { path, id: imported.id, events: imported.events };
}

if (import.meta.main) {
  try {
    const { values, positionals } = parseArgs({
      args: Deno.args,
      options: { "sessions-dir": { type: "string" } },
      allowPositionals: true,
    });
    if (positionals.length !== 1) {
      throw new TypeError(`expected one log file: ${IMPORT_COMMAND} [--sessions-dir <dir>]`);
    }
    const workspace = Deno.env.get("INIT_CWD") ?? Deno.cwd();
    const source = resolve(workspace, positionals[0]!);
    const { path, id, events } = importSession(source, workspace, values["sessions-dir"]);
    console.log(`Imported session ${id} (${events} events) into ${path}; load it from the editor.`);
  } catch (error) {
    console.error(`Cannot import the session log: ${errorMessage(error)}`);
    Deno.exit(1);
  }
}
