/**
 * The launcher's half of per-plugin permissions: probe every plugin the config lists (in parallel,
 * each in a no-permission subprocess) and merge what they declare.
 *
 * @module
 */
import { dirname } from "node:path";
import { errorMessage } from "../core/error_message.ts";
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
  const declared = await Promise.all(plugins.map(async (plugin) => {
    try {
      return await probePluginPermissions(plugin, {
        deno,
        ...(configFile !== undefined ? { configFile } : {}),
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
  };
}
