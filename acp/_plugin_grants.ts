/**
 * The launcher's half of per-plugin permissions: probe every plugin the config lists (in parallel,
 * each in a no-permission subprocess) and merge what they declare.
 *
 * @module
 */
import { dirname, isAbsolute, join } from "node:path";
import { errorMessage } from "../core/error_message.ts";
import { cleanDenoText } from "./_plugin_errors.ts";
import {
  mergePluginPermissions,
  type PluginPermissions,
  probePluginPermissions,
  resolvePlugins,
} from "./plugin_permissions.ts";

/** What the agent's profile gets for the config's plugins. */
export interface PluginGrants {
  /** The union of the declarations. */
  readonly permissions: PluginPermissions;
  /**
   * Read-only paths: the local plugins' folders (the agent imports and watches them) and this
   * package's folder (a plugin's `@dsh/harness` imports are loaded at run time, which Deno
   * treats as reads).
   */
  readonly readable: readonly string[];
  /**
   * Deno flags for the agent process: `--lock=<copy>` of this package's deno.lock in the user's
   * state directory, so a plugin's `npm:` imports are recorded there and never in the package's
   * own lock (empty without plugins or without a local lock).
   */
  readonly denoFlags: readonly string[];
}

/**
 * Where the plugins' lock lives: `$XDG_STATE_HOME/dsh/plugins.deno.lock` (default
 * `~/.local/state/dsh/plugins.deno.lock`), or `undefined` when neither variable is readable.
 */
export function pluginLockPath(): string | undefined {
  const read = (name: string) => {
    try {
      return Deno.env.get(name) || undefined;
    } catch {
      return undefined;
    }
  };
  // The XDG spec ignores a relative XDG_STATE_HOME.
  const state = [read("XDG_STATE_HOME")].find((dir) => dir !== undefined && isAbsolute(dir));
  const home = read("HOME");
  const dir = state ?? (home === undefined ? undefined : join(home, ".local", "state"));
  return dir === undefined ? undefined : join(dir, "dsh", "plugins.deno.lock");
}

const COPY =
  "const [src, dest] = Deno.args; Deno.mkdirSync(dest.slice(0, dest.lastIndexOf('/')), " +
  "{ recursive: true, mode: 0o700 }); const tmp = `${dest}.${crypto.randomUUID()}`; " +
  "Deno.copyFileSync(src, tmp); Deno.renameSync(tmp, dest);";

/**
 * Copies this package's deno.lock to {@linkcode pluginLockPath} (in a subprocess allowed to
 * write only there: the launcher itself writes nothing) and returns the copy, or `undefined`
 * (no local lock, no state directory, or the copy failed, which is reported on stderr).
 */
async function seedPluginLock(deno: string, configFile: string): Promise<string | undefined> {
  const source = join(dirname(configFile), "deno.lock");
  const dest = pluginLockPath();
  if (dest === undefined) return undefined;
  try {
    Deno.statSync(source);
  } catch {
    return undefined;
  }
  const output = await new Deno.Command(deno, {
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      "--no-config",
      "--no-lock",
      `--allow-read=${source},${dirname(dest)}`,
      `--allow-write=${dirname(dest)}`,
      `data:application/javascript,${encodeURIComponent(COPY)}`,
      source,
      dest,
    ],
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output().catch((error: unknown) => ({ success: false, stderr: errorMessage(error) }));
  if (output.success) return dest;
  const why = typeof output.stderr === "string"
    ? output.stderr
    : cleanDenoText(new TextDecoder().decode(output.stderr));
  Deno.stderr.writeSync(new TextEncoder().encode(
    `[dsh] WARN launch: Cannot copy deno.lock to ${dest} for the plugins (${why}): their npm imports are not locked\n`,
  ));
  return undefined;
}

/** This package's deno.json (so `@dsh/harness` resolves in the probe as in the agent). */
export function packageConfig(): string | undefined {
  const url = new URL("../deno.json", import.meta.url);
  return url.protocol === "file:" ? url.pathname : undefined;
}

/**
 * Probes the plugins and merges their declarations. A plugin whose probe fails gets nothing; the
 * reason goes to stderr (the agent reports the same plugin's load error to the editor).
 *
 * @param specifiers The config's `plugins`.
 * @param base The config file's folder.
 * @param deno The Deno executable to run the probes with.
 * @returns The grants.
 */
export async function pluginGrants(
  specifiers: readonly string[],
  base: string,
  deno: string,
): Promise<PluginGrants> {
  const plugins = resolvePlugins(specifiers, base);
  const configFile = packageConfig();
  const lockFile = plugins.length === 0 || configFile === undefined
    ? undefined
    : await seedPluginLock(deno, configFile);
  const declared = await Promise.all(plugins.map(async (plugin) => {
    try {
      return await probePluginPermissions(plugin, {
        deno,
        ...(configFile !== undefined ? { configFile } : {}),
        ...(lockFile !== undefined ? { lockFile } : {}),
      });
    } catch (error) {
      Deno.stderr.writeSync(
        new TextEncoder().encode(`[dsh] WARN launch: ${errorMessage(error)}\n`),
      );
      return {};
    }
  }));
  return {
    permissions: mergePluginPermissions(declared),
    readable: plugins.length === 0 ? [] : [
      ...new Set([
        ...plugins.flatMap((p) => p.path === undefined ? [] : [dirname(p.path)]),
        ...(configFile === undefined ? [] : [dirname(configFile)]),
      ]),
    ],
    denoFlags: lockFile === undefined ? [] : [`--lock=${lockFile}`],
  };
}
