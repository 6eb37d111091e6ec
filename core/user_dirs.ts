/**
 * The user's own folders (XDG base directories), outside every workspace: the config dir holds
 * the user-level `dsh.jsonc` (trusted) and the workspace trust records; the state dir holds
 * session logs, locks and their keys. The sandbox hides both and fs-tool writes to them are denied.
 *
 * @module
 */

/** Reads one environment variable (`undefined` when unset). */
export type EnvGet = (name: string) => string | undefined;

function read(env: EnvGet, name: string): string | undefined {
  try {
    const value = env(name);
    return value === undefined || value === "" ? undefined : value;
  } catch {
    return undefined; // no --allow-env for it: unset
  }
}

function base(env: EnvGet, variable: string, fallback: string): string {
  const value = read(env, variable);
  // The XDG spec: a relative value is invalid and ignored.
  if (value !== undefined && value.startsWith("/")) return value.replace(/\/+$/, "") || "/";
  const home = read(env, "HOME");
  if (home === undefined || !home.startsWith("/")) {
    throw new Error(
      `Cannot find the user's ${variable === "XDG_CONFIG_HOME" ? "config" : "state"} folder: ${
        home === undefined
          ? "HOME is not set"
          : `HOME must be an absolute path: current value is ${JSON.stringify(home)}`
      } (set HOME, or ${variable} to an absolute path)`,
    );
  }
  return `${home.replace(/\/+$/, "")}/${fallback}`;
}

/**
 * The user's dsh config folder: `$XDG_CONFIG_HOME/dsh`, else `~/.config/dsh`.
 *
 * @param env Reads a variable. @default {Deno.env.get}
 * @returns The absolute folder (it may not exist yet).
 * @throws {Error} When neither an absolute `XDG_CONFIG_HOME` nor an absolute `HOME` is set.
 *
 * @example Usage
 * ```ts
 * import { userConfigDir } from "./user_dirs.ts";
 * import { equal } from "node:assert/strict";
 * equal(userConfigDir((n) => ({ HOME: "/home/u" })[n]), "/home/u/.config/dsh");
 * equal(userConfigDir((n) => ({ HOME: "/home/u", XDG_CONFIG_HOME: "/cfg" })[n]), "/cfg/dsh");
 * ```
 */
export function userConfigDir(env: EnvGet = Deno.env.get): string {
  return `${base(env, "XDG_CONFIG_HOME", ".config")}/dsh`;
}

/**
 * The user's dsh state folder: `$XDG_STATE_HOME/dsh`, else `~/.local/state/dsh`.
 *
 * @param env Reads a variable. @default {Deno.env.get}
 * @returns The absolute folder (it may not exist yet).
 * @throws {Error} When neither an absolute `XDG_STATE_HOME` nor an absolute `HOME` is set.
 *
 * @example Usage
 * ```ts
 * import { userStateDir } from "./user_dirs.ts";
 * import { equal } from "node:assert/strict";
 * equal(userStateDir((n) => ({ HOME: "/home/u" })[n]), "/home/u/.local/state/dsh");
 * ```
 */
export function userStateDir(env: EnvGet = Deno.env.get): string {
  return `${base(env, "XDG_STATE_HOME", ".local/state")}/dsh`;
}
