/**
 * Hot reload: replace a plugin's fiber with a freshly imported version of its module.
 *
 * @module
 */
import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";
import type { Context } from "./context.ts";
import type { Fiber } from "./fiber.ts";
import type { Plugin } from "./context.ts";

/** Options of {@linkcode reloadPlugin}. */
export interface ReloadPluginOptions<C = unknown> {
  /** The fiber of the version being replaced; disposed once the new module has imported. */
  readonly previous?: Fiber;
  /** The cache-busting version appended as `?v=<version>`. @default {an increasing counter} */
  readonly version?: string | number;
  /** The config the new version's `apply` receives. */
  readonly config?: C;
}

// Process-unique on purpose: the module cache is the process's, not a harness's, so a `?v=` must
// never repeat across the harnesses of one process (allowed in .ci/_module_state.ts).
let counter = 0;

/**
 * Imports `url` again as `url?v=N` and swaps it in: the previous fiber is disposed (its tools,
 * listeners and effects go away) and the new module namespace `{ name, inject, apply }` is loaded
 * as a child of `ctx`. If the import fails, the previous fiber is left untouched and the error
 * propagates. Calls already running keep the tool definition they started with (the registry pins
 * it at dispatch); new calls see the new version.
 *
 * @typeParam C The plugin's config type.
 * @param ctx The parent context.
 * @param url The plugin module: a URL (`new URL("./my_plugin.ts", import.meta.url)`, `file:`,
 *   `https:`) or an absolute file path. A relative path is rejected, since it would resolve
 *   against this module rather than the caller's.
 * @param options The previous fiber, the version and the config.
 * @returns The new version's fiber (already applied, or waiting for its services). When the new
 *   `apply` throws, the fiber is returned in state `"failed"` with the cause in `fiber.error` (the
 *   previous version is already disposed at that point): check `fiber.state` after a reload.
 * @throws {TypeError} When `url` is a relative path or the module has no `apply` function export.
 *
 * @example Usage
 * ```ts ignore
 * import { Context, reloadPlugin } from "./mod.ts";
 * const ctx = new Context();
 * let fiber = await reloadPlugin(ctx, new URL("./my_plugin.ts", import.meta.url));
 * // …after editing my_plugin.ts:
 * fiber = await reloadPlugin(ctx, new URL("./my_plugin.ts", import.meta.url), { previous: fiber });
 * ```
 */
export async function reloadPlugin<C = undefined>(
  ctx: Context,
  url: string | URL,
  options: ReloadPluginOptions<C> = {},
): Promise<Fiber> {
  const { previous, version = `${Date.now().toString(36)}-${++counter}` } = options;
  const target = pluginUrl(url);
  target.searchParams.set("v", String(version));
  const module = await import(target.href) as Partial<Plugin<C>>;
  if (typeof module.apply !== "function") {
    throw new TypeError(
      `Cannot reload plugin ${JSON.stringify(String(url))}: the module has no apply() export`,
    );
  }
  await previous?.dispose();
  const fiber = ctx.plugin(module as Plugin<C>, options.config);
  // A failed apply is reported through the returned fiber's `state` and `error`.
  await fiber.ready.catch(() => {});
  return fiber;
}

function pluginUrl(url: string | URL): URL {
  if (url instanceof URL) return new URL(url.href);
  if (isAbsolute(url)) return pathToFileURL(url);
  if (URL.canParse(url)) return new URL(url);
  throw new TypeError(
    `Cannot reload plugin ${
      JSON.stringify(url)
    }: expected a URL or an absolute file path, such as new URL(${
      JSON.stringify(url)
    }, import.meta.url)`,
  );
}
