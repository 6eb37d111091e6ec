/**
 * Per-plugin Deno permissions: a plugin listed in `dsh.jsonc` declares what it needs with
 * `export const permissions = { net: ["api.github.com"] }`, and the launcher adds exactly those
 * to the agent's profile. The launcher reads the declaration by importing the plugin in a
 * subprocess with **no permissions at all** (`deno run --no-prompt` of a `data:` module that
 * statically imports the plugin), so the plugin's top-level code never runs with authority there.
 *
 * @module
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { cleanDenoText, pluginErrorText } from "./_plugin_errors.ts";

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a plugin declares in `export const permissions`. Paths in `read`/`write` are relative to
 * the plugin file's folder; `net` entries are hosts (`host` or `host:port`); `run` entries are
 * commands; `env` entries are variable names.
 *
 * @example Usage
 * ```ts
 * import type { PluginPermissions } from "./plugin_permissions.ts";
 * export const permissions: PluginPermissions = { net: ["api.github.com"], env: ["GITHUB_TOKEN"] };
 * ```
 */
export interface PluginPermissions {
  /** Hosts the plugin talks to (`--allow-net`). */
  readonly net?: readonly string[];
  /** Paths the plugin reads (`--allow-read`). */
  readonly read?: readonly string[];
  /** Paths the plugin writes (`--allow-write`, which also grants read). */
  readonly write?: readonly string[];
  /** Commands the plugin runs (`--allow-run`). */
  readonly run?: readonly string[];
  /** Environment variables the plugin reads (`--allow-env`). */
  readonly env?: readonly string[];
}

/** A plugin entry of `dsh.jsonc`, resolved. */
export interface ResolvedPlugin {
  /** The entry as written in the config. */
  readonly specifier: string;
  /** The module to import: a `file:` URL, or the `npm:`/`jsr:` specifier. */
  readonly url: string;
  /** The absolute file path (local plugins only; those are watched and reloaded). */
  readonly path?: string;
}

const KINDS = ["net", "read", "write", "run", "env"] as const;

/**
 * Resolves `dsh.jsonc` plugin entries: paths against the config file's folder.
 *
 * @param specifiers The `plugins` entries.
 * @param base The config file's folder.
 * @returns The resolved plugins.
 *
 * @example Usage
 * ```ts
 * import { resolvePlugins } from "./plugin_permissions.ts";
 * import { equal } from "node:assert/strict";
 * const [local, npm] = resolvePlugins(["./tools/a.ts", "npm:dsh-tool@1"], "/w");
 * equal(local?.path, "/w/tools/a.ts");
 * equal(npm?.url, "npm:dsh-tool@1");
 * ```
 */
export function resolvePlugins(specifiers: readonly string[], base: string): ResolvedPlugin[] {
  return specifiers.map((specifier) => {
    if (specifier.startsWith("npm:") || specifier.startsWith("jsr:")) {
      return { specifier, url: specifier };
    }
    const path = specifier.startsWith("file:")
      ? fileURLToPath(specifier)
      : isAbsolute(specifier)
      ? specifier
      : resolve(base, specifier);
    return { specifier, url: pathToFileURL(path).href, path };
  });
}

/**
 * Checks a `permissions` export: an object whose keys are among net, read, write, run and env,
 * each an array of non-empty strings (read/write paths resolve against `folder`).
 *
 * @param value The exported value (`undefined` means none).
 * @param where The plugin, for messages.
 * @param folder The plugin file's folder (for relative paths), if local.
 * @returns The normalized declaration.
 * @throws {TypeError} On any other shape.
 *
 * @example Usage
 * ```ts
 * import { checkPluginPermissions } from "./plugin_permissions.ts";
 * import { deepEqual, throws } from "node:assert/strict";
 * deepEqual(checkPluginPermissions({ read: ["data"] }, "p", "/w"), { read: ["/w/data"] });
 * throws(() => checkPluginPermissions({ ffi: [] }, "p"), TypeError);
 * ```
 */
export function checkPluginPermissions(
  value: unknown,
  where: string,
  folder?: string,
): PluginPermissions {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(
      `Cannot grant the permissions of plugin ${where}: "permissions" must be an object such as { net: ["api.github.com"] }: received ${
        JSON.stringify(value)
      }`,
    );
  }
  const out: Record<string, string[]> = {};
  for (const [kind, list] of Object.entries(value)) {
    if (!(KINDS as readonly string[]).includes(kind)) {
      throw new TypeError(
        `Cannot grant the permissions of plugin ${where}: unknown kind "${kind}": expected ${
          KINDS.join(", ")
        }`,
      );
    }
    if (!Array.isArray(list) || !list.every((v) => typeof v === "string" && v !== "")) {
      throw new TypeError(
        `Cannot grant the permissions of plugin ${where}: "permissions.${kind}" must be an array of non-empty strings: received ${
          JSON.stringify(list)
        }`,
      );
    }
    out[kind] = (kind === "read" || kind === "write") && folder !== undefined
      ? list.map((p) => resolve(folder, p))
      : [...list];
  }
  return out;
}

/**
 * Reads a plugin's `permissions` export in a subprocess with no permissions: a `data:` module
 * that statically imports the plugin and prints the export (run with `--config` so that
 * `@dsh/harness` resolves as it does in the agent).
 *
 * @param plugin The resolved plugin.
 * @param options The Deno executable, the config file for module resolution and a time limit
 *   (default 30 s) for the plugin's top-level code.
 * @returns The checked declaration.
 * @throws {Error} When the plugin cannot be imported (the subprocess's stderr is the message).
 * @throws {TypeError} When the declaration is malformed.
 *
 * @example Usage
 * ```ts ignore
 * import { probePluginPermissions, resolvePlugins } from "./plugin_permissions.ts";
 * const [plugin] = resolvePlugins(["./tools/gh.ts"], Deno.cwd());
 * const permissions = await probePluginPermissions(plugin!);
 * ```
 */
export async function probePluginPermissions(
  plugin: ResolvedPlugin,
  options: {
    readonly deno?: string;
    readonly configFile?: string;
    readonly lockFile?: string;
    readonly timeoutMs?: number;
  } = {},
): Promise<PluginPermissions> {
  const { timeoutMs = 30_000 } = options;
  const where = JSON.stringify(plugin.specifier);
  if (plugin.path !== undefined && !exists(plugin.path)) {
    throw new Error(
      `Cannot read the permissions of plugin ${where}: the file ${
        JSON.stringify(plugin.path)
      } does not exist`,
    );
  }
  const code = `import * as plugin from ${JSON.stringify(plugin.url)};\n` +
    `console.log(JSON.stringify({ permissions: plugin.permissions ?? null }));\n`;
  const probe = `data:application/typescript;base64,${
    btoa(String.fromCharCode(...new TextEncoder().encode(code)))
  }`;
  const { success, signal, stdout, stderr } = await new Deno.Command(
    options.deno ?? Deno.execPath(),
    {
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        ...(options.configFile !== undefined ? ["--config", options.configFile] : []),
        // The plugins' own lock (a copy), never this package's deno.lock.
        options.lockFile !== undefined ? `--lock=${options.lockFile}` : "--no-lock",
        probe,
      ],
      env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      // Top-level code that never settles (a timer, a server) must not hang the launcher.
      signal: AbortSignal.timeout(timeoutMs),
    },
  ).output();
  if (!success && signal !== null) {
    throw new Error(
      `Cannot read the permissions of plugin ${where} (imported with no permissions): its top-level code did not finish within ${timeoutMs} ms`,
    );
  }
  if (!success) {
    // Keep the first lines, without colours, the probe's data: URL or a Stack backtrace.
    const raw = new TextDecoder().decode(stderr);
    const text = /NotCapable|Requires \w+ access/.test(raw)
      ? `${
        cleanDenoText(raw).split("\n")[0]!.replace(/, run again with the --allow-\w+ flag/, "")
      } (its top-level code ran with no permissions, as it always does here: move that code into apply(), which runs with what the plugin declares)`
      : pluginErrorText(raw, plugin.specifier);
    throw new Error(
      `Cannot read the permissions of plugin ${where} (imported with no permissions): ${
        text.split("\n").slice(0, 6).join("\n")
      }`,
    );
  }
  const line = new TextDecoder().decode(stdout).trim().split("\n").at(-1) ?? "";
  const { permissions } = JSON.parse(line) as { permissions: unknown };
  return checkPluginPermissions(
    permissions ?? undefined,
    where,
    plugin.path === undefined ? undefined : dirname(plugin.path),
  );
}

/**
 * Merges declarations into one.
 *
 * @param list The declarations.
 * @returns Their union (duplicates removed).
 *
 * @example Usage
 * ```ts
 * import { mergePluginPermissions } from "./plugin_permissions.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(mergePluginPermissions([{ net: ["a"] }, { net: ["a", "b"], env: ["X"] }]), {
 *   net: ["a", "b"],
 *   env: ["X"],
 * });
 * ```
 */
export function mergePluginPermissions(
  list: readonly PluginPermissions[],
): PluginPermissions {
  const out: Record<string, string[]> = {};
  for (const item of list) {
    for (const kind of KINDS) {
      for (const value of item[kind] ?? []) {
        const values = out[kind] ??= [];
        if (!values.includes(value)) values.push(value);
      }
    }
  }
  return out;
}

/**
 * The declared permissions the running process does not have (checked with
 * `Deno.permissions.querySync`), as `kind: value` strings: a reloaded plugin that now declares
 * more than the agent was started with needs a restart.
 *
 * @param permissions The declaration.
 * @returns The missing grants, for example `["net: api.github.com"]`.
 *
 * @example Usage
 * ```ts
 * import { missingPermissions } from "./plugin_permissions.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(missingPermissions({}), []);
 * ```
 */
export function missingPermissions(permissions: PluginPermissions): string[] {
  const missing: string[] = [];
  const query = (descriptor: Deno.PermissionDescriptor) =>
    Deno.permissions.querySync(descriptor).state === "granted";
  for (const host of permissions.net ?? []) {
    if (!query({ name: "net", host })) missing.push(`net: ${host}`);
  }
  for (const path of permissions.read ?? []) {
    if (!query({ name: "read", path })) missing.push(`read: ${path}`);
  }
  for (const path of permissions.write ?? []) {
    if (!query({ name: "write", path })) missing.push(`write: ${path}`);
  }
  for (const command of permissions.run ?? []) {
    if (!query({ name: "run", command })) missing.push(`run: ${command}`);
  }
  for (const variable of permissions.env ?? []) {
    if (!query({ name: "env", variable })) missing.push(`env: ${variable}`);
  }
  return missing;
}
