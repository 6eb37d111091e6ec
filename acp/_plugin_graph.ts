/**
 * Private: the local module graph of a plugin file (`deno info --json`): the plugin itself and
 * the local modules it imports, without this package's own files and without `node_modules`.
 * These are the files a plugin's code comes from, so they are protected (read-only to the
 * sandbox, fs-tool writes ask) and watched.
 *
 * @module
 */
import { dirname, join, sep } from "node:path";

/** Options of {@linkcode localModules}. */
export interface GraphOptions {
  /** The config `deno info` resolves `@dsh/harness` with (this package's deno.json). */
  readonly configFile?: string;
}

let lockCopy: Promise<string[]> | undefined;

/**
 * The lock flag for `deno check` and `deno info` of plugin files: a private copy of this
 * package's deno.lock (made once per process in a fresh temp folder), so a plugin's `npm:`
 * imports never land in the package's own lock while its recorded packages still resolve
 * offline; `--no-lock` when there is no lock to copy or no temp folder to copy it to.
 *
 * @param configFile This package's deno.json.
 * @returns The flags.
 */
export function pluginLockArgs(configFile: string | undefined): Promise<string[]> {
  if (configFile === undefined) return Promise.resolve(["--no-lock"]);
  lockCopy ??= (async () => {
    try {
      const dir = await Deno.makeTempDir({ prefix: "dsh-plugin-lock-" });
      const copy = join(dir, "deno.lock");
      await Deno.copyFile(join(dirname(configFile), "deno.lock"), copy);
      return [`--lock=${copy}`];
    } catch {
      return ["--no-lock"];
    }
  })();
  return lockCopy;
}

/**
 * Runs `deno <command…> <path>` on a plugin file as the agent does: with the plugin graphs' own
 * lock (a plugin's npm: imports must not land in this package's deno.lock), the config that
 * resolves `@dsh/harness`, and no colours or backtraces in what it prints.
 *
 * @param command The subcommand and its flags (`["check", "--quiet"]`).
 * @param path The plugin file.
 * @param configFile The config `@dsh/harness` resolves with.
 * @param signal Stops the run (a newer load made it moot).
 * @returns The output.
 */
export async function denoOnPlugin(
  command: readonly string[],
  path: string,
  configFile: string | undefined,
  signal?: AbortSignal,
): Promise<Deno.CommandOutput> {
  return await new Deno.Command(Deno.execPath(), {
    args: [
      ...command,
      ...await pluginLockArgs(configFile),
      ...(configFile !== undefined ? ["--config", configFile] : []),
      path,
    ],
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
    ...(signal === undefined ? {} : { signal }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
}

/**
 * The plugin file and the local modules it imports, statically (absolute paths, the plugin
 * first). When `deno info` cannot run or fails, the plugin file alone.
 *
 * @param path The plugin file.
 * @param options The config file for module resolution.
 * @returns The paths.
 */
export async function localModules(path: string, options: GraphOptions = {}): Promise<string[]> {
  const { configFile } = options;
  let output: Deno.CommandOutput;
  try {
    output = await denoOnPlugin(["info", "--json"], path, configFile);
  } catch {
    return [path];
  }
  if (!output.success) return [path];
  let graph: { modules?: { kind?: string; local?: string }[] };
  try {
    graph = JSON.parse(new TextDecoder().decode(output.stdout));
  } catch {
    return [path];
  }
  const own = configFile === undefined ? undefined : dirname(configFile) + sep;
  const found = (graph.modules ?? []).flatMap((module) => {
    const local = module.local;
    if (module.kind !== "esm" || typeof local !== "string" || local === path) return [];
    if (own !== undefined && local.startsWith(own)) return [];
    if (local.split(sep).includes("node_modules")) return [];
    return [local];
  });
  return [path, ...new Set(found)];
}

/**
 * Reads files as text; a missing or unreadable file reads as `null`.
 *
 * @param paths The files.
 * @returns Their texts, by path.
 */
export async function readTexts(paths: readonly string[]): Promise<Map<string, string | null>> {
  const entries = await Promise.all(paths.map(async (path) => {
    try {
      return [path, await Deno.readTextFile(path)] as const;
    } catch {
      return [path, null] as const;
    }
  }));
  return new Map(entries);
}
