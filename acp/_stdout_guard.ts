/**
 * Keeps stray prints off the agent's stdout, which carries only ACP frames: `console.*` and
 * Node-style `process.stdout.write` (from an in-process plugin or a library) go to stderr.
 *
 * @module
 */
import { Console } from "node:console";
import process from "node:process";

/**
 * Sends `console.*` and `process.stdout.write` to stderr for the rest of the process.
 * The protocol writer (`Deno.stdout.writable`) is not affected.
 *
 * @example Usage
 * ```ts ignore
 * import { guardStdout } from "./_stdout_guard.ts";
 * guardStdout();
 * console.log("this goes to stderr");
 * ```
 */
export function guardStdout(): void {
  const stderr = process.stderr;
  globalThis.console = new Console({
    stdout: stderr,
    stderr,
  }) as unknown as typeof globalThis.console;
  process.stdout.write = stderr.write.bind(stderr) as typeof process.stdout.write;
}
