/**
 * Private: the seam between the ACP session requests and a remote executor's per-session
 * environments (`_remote_executor.ts`, loaded only for a remote provider): the event name, the
 * service the executor provides and the record a loaded log names. Imports nothing at run time,
 * so the local path pays nothing.
 *
 * @module
 */
import type { ExecutorRecord } from "../tools/executor.ts";
import type { SessionEvent } from "../agent/mod.ts";

/** The event a session's log gets when its environment is created or reattached. */
export const EXECUTOR_OPENED = "executor/opened";

/** The service name under which the ACP layer finds {@linkcode SessionEnvironments}. */
export const SESSION_ENVIRONMENTS = "sessionEnvironments";

/** What the ACP session requests do with each session's remote environment. */
export interface SessionEnvironments {
  /**
   * Reattaches a loaded session's environment from the last `executor/opened` of its log.
   *
   * @returns Notices for the user (a replaced sandbox, a failed reattach).
   */
  resume(sessionId: string, events: readonly SessionEvent[]): Promise<string[]>;
  /** Applies `onSessionEnd` to a session's environment (the editor closed the connection). */
  end(sessionId: string): Promise<void>;
}

/** The last `executor/opened` record of a session's events. */
export function lastOpened(events: readonly SessionEvent[]): ExecutorRecord | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]! as SessionEvent & { record?: unknown };
    if (event.type !== EXECUTOR_OPENED) continue;
    const record = event.record;
    if (typeof record === "object" && record !== null && !Array.isArray(record)) {
      const provider = (record as { provider?: unknown }).provider;
      if (typeof provider === "string") return record as ExecutorRecord;
    }
  }
  return undefined;
}
