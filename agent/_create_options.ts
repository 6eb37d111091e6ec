/** Private: validation of createAgent's options, before anything touches the disk. */
import type { CreateAgentOptions } from "./agent_options.ts";

const SESSION_ID_REGEXP = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** The longest session id that names a file in `logDir` (its log, lock and aside files fit 255 bytes). */
export const MAX_SESSION_ID_LENGTH = 128;

/** Validates the options and returns the log path and the session id (a fresh UUID by default). */
export function checkCreateOptions(
  options: CreateAgentOptions,
): { readonly path: string; readonly sessionId: string } {
  const {
    sessionId = crypto.randomUUID(),
    cwd,
    logPath,
    logDir,
    resume = false,
    maxSteps = 50,
    maxParallelToolCalls = 4,
  } = options;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) {
    throw new RangeError(
      `Cannot create agent as 'maxSteps' must be a positive integer: current value is ${maxSteps}`,
    );
  }
  if (!Number.isInteger(maxParallelToolCalls) || maxParallelToolCalls < 1) {
    throw new RangeError(
      `Cannot create agent as 'maxParallelToolCalls' must be a positive integer: current value is ${maxParallelToolCalls}`,
    );
  }
  const { toolMode }: { readonly toolMode?: unknown } = options;
  if (toolMode !== undefined && (typeof toolMode !== "string" || toolMode === "")) {
    throw new TypeError(
      `Cannot create agent as 'toolMode' must be a non-empty string (the listing mode: "native", or Code Mode's "code" or "both"): current value is ${
        JSON.stringify(toolMode) ?? String(toolMode)
      }`,
    );
  }
  const { inMemoryLog = false } = options;
  if (typeof inMemoryLog !== "boolean") {
    throw new TypeError(
      `Cannot create agent as 'inMemoryLog' must be a boolean: current value is ${
        JSON.stringify(inMemoryLog)
      }`,
    );
  }
  if (inMemoryLog && (logPath !== undefined || logDir !== undefined || resume)) {
    throw new TypeError(
      "Cannot create agent: 'inMemoryLog' excludes 'logPath', 'logDir' and 'resume' (an in-memory log has no file)",
    );
  }
  if (logPath === undefined && logDir === undefined && !inMemoryLog) {
    throw new TypeError("Cannot create agent: 'logPath', 'logDir' or 'inMemoryLog' is required");
  }
  if (!resume && (cwd === undefined || !isAbsolute(cwd))) {
    throw new TypeError(
      `Cannot create agent as 'cwd' must be an absolute path: current value is ${
        JSON.stringify(cwd)
      }`,
    );
  }
  if (logPath === undefined && !SESSION_ID_REGEXP.test(sessionId)) {
    throw new TypeError(
      `Cannot create agent as 'sessionId' must match ${SESSION_ID_REGEXP} to name a file in 'logDir': current value is ${
        JSON.stringify(sessionId)
      }`,
    );
  }
  if (logPath === undefined && sessionId.length > MAX_SESSION_ID_LENGTH) {
    throw new RangeError(
      `Cannot create agent as 'sessionId' is ${sessionId.length} characters long: the longest is ${MAX_SESSION_ID_LENGTH} (it names the log file, whose name may not exceed 255 bytes); received ${
        JSON.stringify(sessionId.slice(0, 40))
      }…`,
    );
  }
  if (resume && logPath === undefined && options.sessionId === undefined) {
    throw new TypeError("Cannot resume agent: 'logPath' or 'sessionId' is required with 'logDir'");
  }
  if (inMemoryLog) return { path: ":memory:", sessionId };
  const path = logPath ?? `${logDir!.replace(/\/+$/, "")}/${sessionId}.jsonl`;
  return { path, sessionId };
}

function isAbsolute(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}
