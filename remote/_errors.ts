/**
 * Private: SDK and wire failures turned into HarnessErrors that name the sandbox, with the same
 * codes as the local executor for file errors (`NOT_FOUND`, `IS_DIRECTORY`, `PERMISSION_DENIED`,
 * `FS_ERROR`) and three of their own for the environment: `REMOTE_DISCONNECTED` (the WebSocket
 * dropped during a call: the next call reconnects), `REMOTE_GONE` (the sandbox timed out or was
 * destroyed: the next call creates a fresh one) and `REMOTE_UNAVAILABLE` (it cannot be created or
 * reached: token, endpoint, quota).
 *
 * @module
 */
import { ConnectionClosedError, ConnectionEstablishmentError } from "@deno/sandbox";
import { HarnessError } from "../core/errors.ts";
import { errorMessage } from "../core/error_message.ts";

/** True when the WebSocket under a call closed (dropped, sandbox ended, or we closed it). */
export function isConnectionLoss(error: unknown): boolean {
  return error instanceof ConnectionClosedError;
}

/** True when the sandbox endpoint says the sandbox does not exist (any more). */
export function isGoneAnswer(error: unknown): boolean {
  if (!(error instanceof ConnectionEstablishmentError)) return false;
  if (error.status === 404 || error.status === 410) return true;
  return /not.?found|gone|terminated|expired|stopped|killed/i.test(String(error.code ?? ""));
}

/** What a file error from the sandbox means. */
type FsErrorKind = "not-found" | "is-directory" | "denied" | "other";

const KINDS: Record<string, FsErrorKind> = {
  NotFound: "not-found",
  ENOENT: "not-found",
  IsADirectory: "is-directory",
  EISDIR: "is-directory",
  PermissionDenied: "denied",
  NotCapable: "denied",
  EACCES: "denied",
  EPERM: "denied",
};

/**
 * Classifies an SDK file error. The SDK rebuilds `Deno.errors.*` from the wire with the classes
 * of its Deno shim (not this runtime's), so the class name and the errno code decide.
 */
function fsErrorKind(error: unknown): FsErrorKind {
  if (!(error instanceof Error)) return "other";
  const code = (error as { code?: unknown }).code;
  return KINDS[error.constructor.name] ?? KINDS[error.name] ??
    (typeof code === "string" ? KINDS[code] : undefined) ?? "other";
}

/** True for a file error that means nothing exists at the path. */
export function isNotFound(error: unknown): boolean {
  return fsErrorKind(error) === "not-found";
}

/** The sandbox's name for messages: `Deno Sandbox sbx_… (session s1)`. */
export function sandboxName(id: string | undefined, sessionId: string): string {
  return `Deno Sandbox ${id ?? "(not created)"} (session ${sessionId})`;
}

/**
 * The error of a call whose connection dropped.
 *
 * @param what What was attempted (`run the command`).
 * @param name The sandbox's name.
 * @param error The SDK's error.
 * @param after What happened since, for the model.
 * @returns A `REMOTE_DISCONNECTED` HarnessError.
 */
export function disconnected(
  what: string,
  name: string,
  error: unknown,
  after = "what the call started may still be running there; the next call reconnects",
): HarnessError {
  return new HarnessError(
    "REMOTE_DISCONNECTED",
    `Cannot ${what}: the connection to the ${name} dropped during the call (${
      errorMessage(error)
    }); ${after}`,
    { cause: error },
  );
}

/**
 * The error of a call on a sandbox that is gone.
 *
 * @param what What was attempted.
 * @param name The sandbox's name.
 * @param error The SDK's error.
 * @returns A `REMOTE_GONE` HarnessError.
 */
export function gone(what: string, name: string, error?: unknown): HarnessError {
  return new HarnessError(
    "REMOTE_GONE",
    `Cannot ${what}: the ${name} is gone (it timed out or was destroyed), with its processes and ` +
      `the files not synced back; the next call creates a fresh sandbox`,
    error === undefined ? undefined : { cause: error },
  );
}

/**
 * Any other failure to reach or create the sandbox.
 *
 * @param what What was attempted.
 * @param name The sandbox's name.
 * @param error The SDK's error.
 * @returns A `REMOTE_UNAVAILABLE` HarnessError.
 */
export function unavailable(what: string, name: string, error: unknown): HarnessError {
  return new HarnessError(
    "REMOTE_UNAVAILABLE",
    `Cannot ${what}: the ${name} cannot be reached: ${errorMessage(error)}`,
    { cause: error },
  );
}

/**
 * A failed file operation in the sandbox, with the local executor's codes.
 *
 * @param operation `read` or `write` (as the local messages say).
 * @param path The path.
 * @param name The sandbox's name.
 * @param error The SDK's error (a `Deno.errors.*` rebuilt from the wire).
 * @returns The HarnessError.
 */
export function fsError(
  operation: "read" | "write",
  path: string,
  name: string,
  error: unknown,
): HarnessError {
  const options = { cause: error };
  const where = `in the ${name}`;
  if (isConnectionLoss(error)) {
    return disconnected(`${operation} "${path}"`, name, error, "the next call reconnects");
  }
  if (error instanceof HarnessError) return error;
  const kind = fsErrorKind(error);
  if (kind === "not-found") {
    return new HarnessError(
      "NOT_FOUND",
      `Cannot ${operation} "${path}": file not found ${where}`,
      options,
    );
  }
  if (kind === "is-directory") {
    return new HarnessError(
      "IS_DIRECTORY",
      `Cannot ${operation} "${path}": it is a directory ${where}`,
      options,
    );
  }
  if (kind === "denied") {
    return new HarnessError(
      "PERMISSION_DENIED",
      `Cannot ${operation} "${path}": permission denied ${where}`,
      options,
    );
  }
  return new HarnessError(
    "FS_ERROR",
    `Cannot ${operation} "${path}" ${where}: ${errorMessage(error)}`,
    options,
  );
}
