/**
 * The folder that holds session logs, checked so that nothing is written through a symbolic
 * link: every folder from just below a trusted anchor down to it must be a real directory (a
 * missing one is created `0700`), and {@linkcode SessionsDir.verify} says whether any of them was
 * replaced since.
 *
 * @module
 */
import { ensureDirChain, UnsafePathError, verifyDirChain } from "./_safe_files.ts";

export { UnsafePathError };

/** A checked sessions folder. */
export interface SessionsDir {
  /** The folder (absolute). */
  readonly path: string;
  /** Throws {@linkcode UnsafePathError} when a checked folder is now a link or another folder. */
  verify(): void;
}

/**
 * Checks (and creates) the sessions folder `dir`.
 *
 * @param dir The absolute folder.
 * @param anchor A trusted ancestor: the folders below it are checked too (for example the user's
 * state base, or the workspace for a folder inside it). @default {only `dir` itself}
 * @returns The checked folder.
 * @throws {UnsafePathError} When a checked folder is a symbolic link or not a directory.
 *
 * @example Usage
 * ```ts
 * import { prepareSessionsDir } from "./sessions_dir.ts";
 * import { throws } from "node:assert/strict";
 * const base = await Deno.makeTempDir();
 * const dir = prepareSessionsDir(`${base}/dsh/sessions/w`, base);
 * dir.verify(); // still the same folders
 * await Deno.symlink("/tmp", `${base}/link`);
 * throws(() => prepareSessionsDir(`${base}/link/sessions`, base), { name: "UnsafePathError" });
 * await Deno.remove(base, { recursive: true });
 * ```
 */
export function prepareSessionsDir(dir: string, anchor?: string): SessionsDir {
  const chain = ensureDirChain(dir, anchor);
  return { path: dir, verify: () => verifyDirChain(chain) };
}
