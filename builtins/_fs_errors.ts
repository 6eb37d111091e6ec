/**
 * Turns Deno and OS errors from executor operations into clear, model-readable errors that
 * name the operation, the path and (for Deno permission denials) the missing permission.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import { HarnessError } from "../core/errors.ts";
import { permissionHint } from "../core/permission_hint.ts";

/** A file operation, named as its Deno permission. */
export type FsOperation = "read" | "write";

/**
 * Describes a failed file operation.
 *
 * @param operation What was attempted.
 * @param path The absolute path.
 * @param error The original error.
 * @returns A HarnessError (`PERMISSION_DENIED`, `NOT_FOUND`, `FS_ERROR`) chaining the original.
 */
export function describeFsError(operation: FsOperation, path: string, error: unknown): Error {
  const options = { cause: error };
  if (error instanceof Deno.errors.NotCapable) {
    return new HarnessError(
      "PERMISSION_DENIED",
      `Cannot ${operation} "${path}": ${permissionHint(`--allow-${operation}=${path}`)}`,
      options,
    );
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return new HarnessError(
      "PERMISSION_DENIED",
      `Cannot ${operation} "${path}": permission denied by the operating system`,
      options,
    );
  }
  if (error instanceof Deno.errors.NotFound) {
    return new HarnessError("NOT_FOUND", `Cannot ${operation} "${path}": file not found`, options);
  }
  return new HarnessError(
    "FS_ERROR",
    `Cannot ${operation} "${path}": ${errorMessage(error)}`,
    options,
  );
}

/**
 * Describes a failed spawn.
 *
 * @param program The program Deno was asked to run.
 * @param inner The program it wraps (for the message), or "".
 * @param error The original error.
 * @returns A HarnessError (`PERMISSION_DENIED`, `NOT_FOUND`, `SPAWN_FAILED`) chaining the original.
 */
export function describeRunError(program: string, inner: string, error: unknown): Error {
  const options = { cause: error };
  const what = inner === "" ? `"${program}"` : `"${inner}" through "${program}"`;
  if (error instanceof Deno.errors.NotCapable) {
    return new HarnessError(
      "PERMISSION_DENIED",
      `Cannot run ${what}: ${permissionHint(`--allow-run=${program}`)}`,
      options,
    );
  }
  if (error instanceof Deno.errors.NotFound) {
    return new HarnessError(
      "NOT_FOUND",
      `Cannot run ${what}: "${program}" was not found on PATH`,
      options,
    );
  }
  return new HarnessError("SPAWN_FAILED", `Cannot run ${what}: ${errorMessage(error)}`, options);
}
