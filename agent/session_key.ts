/**
 * The secret that signs session logs, so a log changed by anyone but the agent is refused on
 * load. It lives in the user's state directory (`$XDG_STATE_HOME/dsh/keys/session-log.key`,
 * default `~/.local/state/dsh/keys/`), which the sandbox cannot see, as 32 random bytes in hex,
 * mode `0600`, created on first use. See `SessionLog` (`key` option).
 *
 * @module
 */
import { userStateDir } from "../core/user_dirs.ts";
import { createExclusive, ensureDirChain, openExisting } from "./_safe_files.ts";
import { dirname } from "node:path";

/** The key file's name in {@linkcode sessionKeyDir}. */
export const SESSION_KEY_FILE = "session-log.key";

/**
 * The folder of the session-log key: `<user state dir>/keys`.
 *
 * @param env Reads an environment variable. @default {Deno.env.get}
 * @returns The absolute folder.
 * @throws {Error} When neither `XDG_STATE_HOME` nor `HOME` is an absolute path.
 *
 * @example Usage
 * ```ts
 * import { sessionKeyDir } from "./session_key.ts";
 * import { equal } from "node:assert/strict";
 * equal(sessionKeyDir((name) => name === "HOME" ? "/home/ada" : undefined), "/home/ada/.local/state/dsh/keys");
 * ```
 */
export function sessionKeyDir(
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): string {
  return `${userStateDir(env)}/keys`;
}

function parseKey(text: string, path: string): Uint8Array {
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) {
    throw new Error(
      `Cannot read the session-log key ${
        JSON.stringify(path)
      }: expected 64 hex digits; remove the file to make a new key (logs signed with the old one can no longer be loaded)`,
    );
  }
  return Uint8Array.from(hex.match(/../g)!, (byte) => parseInt(byte, 16));
}

/**
 * Reads the session-log key in `dir`, creating the folder (`0700`) and the key (`0600`) on first
 * use. A key file that is a symbolic link, or that others may read or write, is refused.
 *
 * @param dir The key folder. @default {sessionKeyDir()}
 * @returns The 32-byte key.
 * @throws {Error} When the key file is unsafe or malformed (the message says how to fix it).
 *
 * @example Usage
 * ```ts
 * import { loadSessionKey } from "./session_key.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * const key = loadSessionKey(`${dir}/keys`);
 * equal(key.length, 32);
 * deepEqual(loadSessionKey(`${dir}/keys`), key); // the same key next time
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function loadSessionKey(dir: string = sessionKeyDir()): Uint8Array {
  ensureDirChain(dir, dirname(dir));
  const path = `${dir}/${SESSION_KEY_FILE}`;
  const fresh = crypto.getRandomValues(new Uint8Array(32));
  try {
    const file = createExclusive(path, 0o600);
    try {
      const text = Array.from(fresh, (b) => b.toString(16).padStart(2, "0")).join("") + "\n";
      file.writeSync(new TextEncoder().encode(text));
      file.syncSync();
    } finally {
      file.close();
    }
    return fresh;
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  const file = openExisting(path, false);
  try {
    const info = file.statSync();
    if (info.mode !== null && (info.mode & 0o077) !== 0) {
      throw new Error(
        `Cannot use the session-log key ${
          JSON.stringify(path)
        }: others may read or write it (mode ${(info.mode & 0o777).toString(8)}); run chmod 600 ${
          JSON.stringify(path)
        }`,
      );
    }
    const bytes = new Uint8Array(200);
    const read = file.readSync(bytes) ?? 0;
    return parseKey(new TextDecoder().decode(bytes.subarray(0, read)), path);
  } finally {
    file.close();
  }
}
