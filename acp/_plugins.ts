/**
 * The agent's half of `dsh.jsonc` plugins: load each listed module with `ctx.plugin`, watch the
 * local files and the local modules they import, and hot-reload a plugin file once the user
 * approves the change (core/reload.ts). A plugin runs in the agent's own process, outside the
 * sandbox, so a change on disk (which a tool call or the sandbox may have made) is held as
 * pending: `review` shows it to the user and only `decide(true)` loads it. A running call
 * finishes on the version it started with; the next call uses the new one. A broken edit — a
 * type error (`deno check`, run while the new version loads: a failure rolls it back), a syntax
 * or import error, a missing `apply`, or an `apply` that throws — keeps the previous version and
 * is reported to the user. Every (re)load protects the
 * plugin file and its local imports (`ProtectedPaths` source `plugin:<specifier>`).
 *
 * @module
 */
import type { Fiber, Plugin } from "../core/mod.ts";
import type { ToolsContext } from "../registry/tools_plugin.ts";
import { reloadPlugin } from "../core/reload.ts";
import type { ProtectedPaths } from "../builtins/protected_paths.ts";
import { pluginErrorText } from "./_plugin_errors.ts";
import { localModules, readTexts } from "./_plugin_graph.ts";
import { PluginWatch } from "./_plugin_watch.ts";
import { resolvePlugins } from "./plugin_permissions.ts";
import {
  type ConfigPluginsOptions,
  type Loader,
  reviewChange,
  type Slot,
  trackPluginTools,
  typeCheck,
  warnMissingPermissions,
} from "./_plugin_slot.ts";

export type { ChangedFile, ConfigPluginsOptions, PluginChange } from "./_plugin_slot.ts";

/** The loaded plugins. */
export interface ConfigPlugins extends AsyncDisposable {
  /** Resolves when every plugin has been tried once (a failed one is reported, not thrown). */
  readonly ready: Promise<void>;
}

/**
 * Loads the config's plugins into `ctx` and (for local files) offers their changes for reload.
 *
 * @param ctx The harness context (plugins become its children).
 * @param options The plugins, the user channel, the approval channel and the watch settings.
 * @returns The handle; dispose it to stop watching (the fibers go with `ctx`).
 */
export function loadConfigPlugins(ctx: ToolsContext, options: ConfigPluginsOptions): ConfigPlugins {
  const slots = options.plugins.map((plugin): Slot => ({
    plugin,
    fiber: undefined,
    module: undefined,
    version: 0,
    attempts: 0,
    files: plugin.path === undefined ? [] : [plugin.path],
    seen: new Map(),
    pending: undefined,
    reviewing: Promise.resolve(),
    timer: undefined,
    check: undefined,
    tools: new Set(),
  }));
  const loader: Loader = {
    ctx,
    options,
    slots,
    queue: Promise.resolve(),
    inProcess: new Set(),
    watch: undefined,
  };
  // Protected before the first load: a missing plugin file cannot be planted either.
  for (const slot of slots) protect(loader, slot);
  trackPluginTools(loader);
  const ready = Promise.all(slots.map((slot) => attempt(loader, slot, true))).then(() => {});
  if (options.watch !== false) {
    loader.watch = new PluginWatch(ctx, (path) => onChange(loader, path));
    loader.watch.update(slots.flatMap((s) => s.files));
  }
  return {
    ready,
    async [Symbol.asyncDispose]() {
      loader.watch?.close();
      for (const slot of slots) {
        clearTimeout(slot.timer);
        slot.check?.abort();
      }
      await loader.queue;
    },
  };
}

function protect({ options }: Loader, slot: Slot): void {
  if (slot.plugin.path === undefined) return;
  const reason = `code of plugin ${JSON.stringify(slot.plugin.specifier)}, which the agent runs`;
  // The path as configured and, through a symlinked folder, the file it resolves to.
  const paths = new Set(slot.files.flatMap((path) => {
    try {
      return [path, Deno.realPathSync(path)];
    } catch {
      return [path];
    }
  }));
  options.protectedPaths?.set(
    `plugin:${slot.plugin.specifier}`,
    [...paths].map((path) => ({ path, reason })),
  );
}

function onChange(loader: Loader, path: string): void {
  for (const slot of loader.slots) {
    if (!slot.files.includes(path)) continue;
    clearTimeout(slot.timer);
    slot.timer = setTimeout(() => {
      slot.timer = undefined;
      reviewChange(loader, slot, attempt).catch((error) => {
        loader.ctx.logger.warn(`Cannot review a change of plugin ${slot.plugin.specifier}`, {
          error: String(error),
        });
      });
    }, loader.options.debounceMs ?? 100);
  }
}

function report({ ctx, options }: Loader, slot: Slot, error: unknown, initial: boolean): void {
  const what = JSON.stringify(slot.plugin.specifier);
  const reason = pluginErrorText(error, slot.plugin.specifier);
  const text = initial
    ? `Cannot load plugin ${what}: ${reason}`
    : `Cannot reload plugin ${what}, keeping ${
      slot.module === undefined ? "it unloaded" : "the previous version"
    }: ${reason}`;
  ctx.logger.error(text);
  options.notify(text);
}

/**
 * Queues one (re)load of a slot; a failure is reported, never thrown. `expected` holds the
 * texts the user approved: a file that differs by now is offered again instead of loaded.
 */
function attempt(
  loader: Loader,
  slot: Slot,
  initial: boolean,
  expected?: ReadonlyMap<string, string | null>,
): Promise<void> {
  const { ctx } = loader;
  const run = loader.queue.then(() => load(loader, slot, initial, expected)).catch((error) => {
    if (ctx.fiber.state === "disposed") return;
    report(loader, slot, error, initial);
  });
  loader.queue = run;
  return run;
}

async function load(
  loader: Loader,
  slot: Slot,
  initial: boolean,
  expected: ReadonlyMap<string, string | null> | undefined,
): Promise<void> {
  const { ctx, options } = loader;
  const { plugin } = slot;
  let checked: Promise<void> | undefined;
  if (plugin.path !== undefined) {
    const texts = await readTexts(expected === undefined ? [plugin.path] : [...expected.keys()]);
    if (expected !== undefined && [...expected].some(([path, text]) => texts.get(path) !== text)) {
      // Changed again since the user approved it: that is a new change, to be asked about.
      await reviewChange(loader, slot, attempt);
      return;
    }
    for (const [path, text] of texts) slot.seen.set(path, text);
    if (texts.get(plugin.path) === null) {
      throw new Error(`the file ${JSON.stringify(plugin.path)} does not exist`);
    }
    if (!initial && options.typeCheck !== false) {
      // Checked while the approved text loads, so the next call does not wait for `deno check`;
      // a failure puts the previous version back and is reported.
      slot.check?.abort(); // an older load's check is moot
      const check = new AbortController();
      slot.check = check;
      checked = typeCheck(plugin.path, options.configFile, check.signal);
      checked.catch(() => {});
    }
  }
  const previous = slot.module;
  const before = new Set(ctx.tools.list().map((t) => t.name));
  for (const name of slot.tools) before.delete(name);
  const { fiber, module } = await importVersion(ctx, slot, ++slot.attempts);
  if (fiber.state === "failed") {
    const error = fiber.error;
    await fiber.dispose();
    // apply() threw: the previous version was already disposed, so apply it again.
    slot.fiber = slot.module === undefined ? undefined : ctx.plugin(slot.module);
    await slot.fiber?.ready.catch(() => {});
    throw error;
  }
  slot.fiber = fiber;
  slot.module = module;
  // Only a successful load is a version.
  const version = ++slot.version;
  slot.tools = new Set(ctx.tools.list().map((t) => t.name).filter((name) => !before.has(name)));
  await afterLoad(loader, slot);
  // Not awaited: a failed check rolls this version back (unless a newer load came first).
  checked?.then(undefined, (error) => rollBack(loader, slot, { version, previous, error }));
  warnMissingPermissions(loader, plugin, module);
  if (!initial) {
    const text = `Reloaded plugin ${JSON.stringify(plugin.specifier)} (version ${version}).`;
    ctx.logger.info(text);
    options.notify(text);
  }
}

/** A failed type check of the loaded `version`: `previous` is applied again and it is reported. */
function rollBack(
  loader: Loader,
  slot: Slot,
  failed: { version: number; previous: Plugin | undefined; error: unknown },
): void {
  const { ctx } = loader;
  loader.queue = loader.queue.then(async () => {
    if (slot.version !== failed.version || ctx.fiber.state === "disposed") return;
    await slot.fiber?.dispose();
    slot.module = failed.previous;
    slot.fiber = failed.previous === undefined ? undefined : ctx.plugin(failed.previous);
    await slot.fiber?.ready.catch(() => {});
    slot.version = failed.version - 1; // only a load that passed its check is a version
    report(loader, slot, failed.error, false);
  }).catch((error) =>
    ctx.logger.warn("Cannot put the previous plugin version back", { error: String(error) })
  );
}

/** The loaded version's files: protected, watched, and known to be in this process. */
async function afterLoad(loader: Loader, slot: Slot): Promise<void> {
  const path = slot.plugin.path;
  if (path === undefined) return;
  const configFile = loader.options.configFile;
  slot.files = await localModules(path, configFile === undefined ? {} : { configFile });
  const texts = await readTexts(slot.files.filter((file) => !slot.seen.has(file)));
  for (const [file, text] of texts) slot.seen.set(file, text);
  for (const file of slot.files) loader.inProcess.add(file);
  protect(loader, slot);
  loader.watch?.update(loader.slots.flatMap((s) => s.files));
}

/** Imports and applies one version of a slot's module. */
async function importVersion(
  ctx: ToolsContext,
  slot: Slot,
  attempt: number,
): Promise<{ fiber: Fiber; module: Plugin }> {
  const { plugin } = slot;
  const url = new URL(plugin.url);
  // A local file is imported as `<url>?v=<attempt>` (a failed import is cached per URL).
  if (plugin.path !== undefined) url.searchParams.set("v", String(attempt));
  const module = await import(url.href) as Partial<Plugin>;
  if (typeof module.apply !== "function") {
    throw new TypeError(
      "the module has no apply() export (a plugin exports name, inject and apply)",
    );
  }
  if (plugin.path === undefined) {
    const fiber = ctx.plugin(module as Plugin);
    // A failed apply shows as the fiber's state (handled by the caller), not as a throw here.
    await fiber.ready.catch(() => {});
    return { fiber, module: module as Plugin };
  }
  // The same, cached namespace; an import error above left the previous fiber untouched.
  const fiber = await reloadPlugin(ctx, plugin.url, {
    version: attempt,
    ...(slot.fiber !== undefined ? { previous: slot.fiber } : {}),
  });
  return { fiber, module: module as Plugin };
}

/** Options of {@linkcode startConfigPlugins}. */
export interface StartConfigPluginsOptions {
  /** Where each plugin's files are protected. @default {undefined} */
  readonly protectedPaths?: ProtectedPaths;
}

/**
 * Loads the `plugins` of `dsh.jsonc` into the agent: messages go to the ACP sessions through the
 * `acp/notice` event, changes on disk wait for the user's approval through the
 * `acp/plugin-change` event, and watching stops with `ctx`.
 *
 * @param ctx The harness context.
 * @param specifiers The config's `plugins`.
 * @param base The config file's folder.
 * @param options The protected-path set to keep current.
 * @returns Resolves once every plugin has been tried.
 */
export async function startConfigPlugins(
  ctx: ToolsContext,
  specifiers: readonly string[],
  base: string,
  options: StartConfigPluginsOptions = {},
): Promise<void> {
  if (specifiers.length === 0) return;
  const url = new URL("../deno.json", import.meta.url);
  // Plugins load while the editor connects: what they say before the ACP server listens waits
  // for its "acp/listening".
  const early: [string, unknown][] = [];
  const send = (event: string, payload: unknown) => {
    if (ctx.listenerCount(event) > 0) ctx.emit(event, payload);
    else early.push([event, payload]);
  };
  const off = ctx.on("acp/listening", () => {
    for (const [event, payload] of early.splice(0)) ctx.emit(event, payload);
  });
  ctx.effect(() => off);
  const handle = loadConfigPlugins(ctx, {
    plugins: resolvePlugins(specifiers, base),
    notify: (text) => send("acp/notice", text),
    review: (change) => send("acp/plugin-change", change),
    ...(options.protectedPaths !== undefined ? { protectedPaths: options.protectedPaths } : {}),
    ...(url.protocol === "file:" ? { configFile: url.pathname } : {}),
  });
  ctx.effect(() => async () => {
    await handle[Symbol.asyncDispose]();
  });
  await handle.ready;
}
