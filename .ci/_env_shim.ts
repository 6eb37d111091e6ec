/**
 * Lets the TypeScript compiler load without `--allow-env`: `typescript.js` reads a few `TSC_*`
 * variables when it loads, and Deno throws on those reads unless env access is granted. Imported
 * before `npm:typescript`, this module swaps `process.env` for an empty object when env access is
 * not granted; {@linkcode restoreEnv} puts the real one back once the compiler has loaded.
 *
 * @module
 */
import process from "node:process";

const saved: NodeJS.ProcessEnv = process.env;
if (Deno.permissions.querySync({ name: "env" }).state !== "granted") process.env = {};

/** Puts back the real `process.env` after the compiler has loaded. */
export function restoreEnv(): void {
  process.env = saved;
}
