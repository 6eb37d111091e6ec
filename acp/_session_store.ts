/**
 * Private: opening the agent's session store at start-up: the sessions folder (checked for
 * links, created `0700`) and the key that signs its logs (user state dir, `0600`).
 *
 * @module
 */
import { loadSessionKey, prepareSessionsDir, type SessionsDir } from "../agent/mod.ts";
import { errorMessage } from "../core/error_message.ts";
import { sessionsLocation } from "./_session_dir.ts";

/** The checked sessions folder and the log key. */
export interface SessionStore {
  readonly sessions: SessionsDir;
  readonly logKey: Uint8Array;
}

/** Opens the store of `workspace` (see `sessionsLocation`). */
export function openSessionStore(
  workspace: string,
  base: string,
  configured: string | undefined,
  flag: string | undefined,
): SessionStore {
  const { dir, anchor } = sessionsLocation(workspace, base, configured, flag);
  const sessions = prepareSessionsDir(dir, anchor);
  let logKey: Uint8Array;
  try {
    logKey = loadSessionKey();
  } catch (error) {
    throw new Error(
      `Cannot start the agent: cannot read the key that signs session logs: ${errorMessage(error)}`,
      { cause: error },
    );
  }
  return { sessions, logKey };
}
