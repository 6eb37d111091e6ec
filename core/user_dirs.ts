/**
 * The user's own directories (XDG base directories), outside every workspace and hidden from the
 * sandbox: the config dir `$XDG_CONFIG_HOME/dsh` (default `~/.config/dsh`: the user-level
 * `dsh.jsonc`, trust records) and the state dir `$XDG_STATE_HOME/dsh` (default
 * `~/.local/state/dsh`: session logs, their locks and the key that signs them).
 *
 * A relative `XDG_*` value is ignored, as the XDG spec says.
 *
 * @module
 */

type EnvGet = (name: string) => string | undefined;

function baseDir(env: EnvGet, variable: string, fallback: string): string {
  const value = env(variable);
  if (value !== undefined && value.startsWith("/")) return value.replace(/\/+$/, "") || "/";
  const home = env("HOME");
  if (home === undefined || !home.startsWith("/")) {
    throw new Error(
      `Cannot find the user's ${fallback} directory: neither ${variable} nor HOME is an absolute path (HOME is ${
        JSON.stringify(home)
      }); set HOME or ${variable}`,
    );
  }
  return `${home.replace(/\/+$/, "")}/${fallback}`;
}

/**
 * The user's dsh config directory: `$XDG_CONFIG_HOME/dsh`, else `~/.config/dsh`.
 *
 * @param env Reads an environment variable. @default {Deno.env.get}
 * @returns The absolute directory (it may not exist yet).
 * @throws {Error} When neither `XDG_CONFIG_HOME` nor `HOME` is an absolute path.
 *
 * @example Usage
 * ```ts
 * import { userConfigDir } from "./user_dirs.ts";
 * import { equal } from "node:assert/strict";
 * equal(userConfigDir((name) => name === "HOME" ? "/home/ada" : undefined), "/home/ada/.config/dsh");
 * ```
 */
export function userConfigDir(env: EnvGet = (name) => Deno.env.get(name)): string {
  return `${baseDir(env, "XDG_CONFIG_HOME", ".config")}/dsh`;
}

/**
 * The user's dsh state directory: `$XDG_STATE_HOME/dsh`, else `~/.local/state/dsh`.
 *
 * @param env Reads an environment variable. @default {Deno.env.get}
 * @returns The absolute directory (it may not exist yet).
 * @throws {Error} When neither `XDG_STATE_HOME` nor `HOME` is an absolute path.
 *
 * @example Usage
 * ```ts
 * import { userStateDir } from "./user_dirs.ts";
 * import { equal } from "node:assert/strict";
 * equal(userStateDir((name) => name === "XDG_STATE_HOME" ? "/s" : undefined), "/s/dsh");
 * ```
 */
export function userStateDir(env: EnvGet = (name) => Deno.env.get(name)): string {
  return `${baseDir(env, "XDG_STATE_HOME", ".local/state")}/dsh`;
}
