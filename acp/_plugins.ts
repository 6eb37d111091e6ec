/**
 * The agent's half of `dsh.jsonc` plugins: load each listed module with `ctx.plugin`, watch the
 * local files and hot-reload them on save (core/reload.ts). A running call finishes on the version
 * it started with; the next call uses the new one. A broken edit — a type error (`deno check`), a
 * syntax or import error, a missing `apply`, or an `apply` that throws — keeps the previous
 * version and is reported to the user (stderr and a message in every open session).
 *
 * @module
 */
import { dirname } from "node:path";
import type { Context, Fiber, Plugin } from "../core/mod.ts";
import { reloadPlugin } from "../core/reload.ts";
import { errorMessage } from "../core/error_message.ts";
import {
  checkPluginPermissions,
  missingPermissions,
  type ResolvedPlugin,
  resolvePlugins,
} from "./plugin_permissions.ts";

/** Options of {@linkcode loadConfigPlugins}. */
export interface ConfigPluginsOptions {
  /** The resolved `plugins` entries. */
  readonly plugins: readonly ResolvedPlugin[];
  /** Shows a message to the user (the ACP sessions). */
  readonly notify: (text: string) => void;
  /** Watch local plugin files and reload them on change. @default {true} */
  readonly watch?: boolean;
  /** Quiet period after the last change before reloading, in ms. @default {100} */
  readonly debounceMs?: number;
  /** Type-check an edited `.ts` plugin (`deno check`) before reloading it. @default {true} */
  readonly typeCheck?: boolean;
  /** The config file `deno check` resolves `@dsh/harness` with. @default {undefined} */
  readonly configFile?: string;
}

/** The loaded plugins. */
export interface ConfigPlugins extends AsyncDisposable {
  /** Resolves when every plugin has been tried once (a failed one is reported, not thrown). */
  readonly ready: Promise<void>;
}

interface Slot {
  readonly plugin: ResolvedPlugin;
  fiber: Fiber | undefined;
  module: Plugin | undefined;
  version: number;
  lastText: string | undefined;
  queue: Promise<void>;
  timer: ReturnType<typeof setTimeout> | undefined;
}

const MODULE_FILE = /\.(m?[jt]sx?)$/;

function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

async function typeCheck(
  path: string,
  configFile: string | undefined,
  signal?: AbortSignal,
): Promise<void> {
  if (!/\.(m?ts|tsx)$/.test(path)) return;
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(Deno.execPath(), {
      args: [
        "check",
        "--quiet",
        ...(configFile !== undefined ? ["--config", configFile] : []),
        path,
      ],
      env: { NO_COLOR: "1" },
      ...(signal === undefined ? {} : { signal }),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch {
    // No deno to run (the import still catches syntax errors), or a newer save superseded it.
    return;
  }
  if (signal?.aborted) return;
  if (output.success) return;
  const text = new TextDecoder().decode(output.stderr).trim();
  throw new Error(`deno check failed:\n${text.split("\n").slice(0, 12).join("\n")}`);
}

/** What every step of loading a plugin needs. */
interface Loader {
  readonly ctx: Context;
  readonly options: ConfigPluginsOptions;
}

/**
 * Loads the config's plugins into `ctx` and (for local files) reloads them on save.
 *
 * @param ctx The harness context (plugins become its children).
 * @param options The plugins, the user channel and the watch settings.
 * @returns The handle; dispose it to stop watching (the fibers go with `ctx`).
 */
export function loadConfigPlugins(ctx: Context, options: ConfigPluginsOptions): ConfigPlugins {
  const loader: Loader = { ctx, options };
  const slots = options.plugins.map((plugin): Slot => ({
    plugin,
    fiber: undefined,
    module: undefined,
    version: 0,
    lastText: undefined,
    queue: Promise.resolve(),
    timer: undefined,
  }));
  const ready = Promise.all(slots.map((slot) => attempt(loader, slot, true))).then(() => {});
  const watcher = options.watch === false ? undefined : watchSlots(loader, slots);
  return {
    ready,
    async [Symbol.asyncDispose]() {
      watcher?.close();
      for (const slot of slots) {
        clearTimeout(slot.timer);
        checks.get(slot)?.abort();
      }
      await Promise.all(slots.map((s) => s.queue));
    },
  };
}

function report({ ctx, options }: Loader, slot: Slot, error: unknown, initial: boolean): void {
  const what = JSON.stringify(slot.plugin.specifier);
  const text = initial
    ? `Cannot load plugin ${what}: ${errorMessage(error)}`
    : `Cannot reload plugin ${what}, keeping ${
      slot.module === undefined ? "it unloaded" : "the previous version"
    }: ${errorMessage(error)}`;
  ctx.logger.error(text);
  options.notify(text);
}

/** Queues one (re)load of a slot; a failure is reported, never thrown. */
function attempt(loader: Loader, slot: Slot, initial: boolean): Promise<void> {
  const { ctx } = loader;
  slot.queue = slot.queue.then(() => load(loader, slot, initial)).catch((error) => {
    if (ctx.fiber.state === "disposed") return;
    // A newer save is already waiting (the file was caught mid-write): judge that one instead.
    if (slot.timer !== undefined) {
      ctx.logger.debug(
        `Skipped a failed reload of ${slot.plugin.specifier}: a newer save is pending`,
      );
      return;
    }
    report(loader, slot, error, initial);
  });
  return slot.queue;
}

async function load(loader: Loader, slot: Slot, initial: boolean): Promise<void> {
  const { ctx, options } = loader;
  const { plugin } = slot;
  let checked: Promise<void> | undefined;
  if (plugin.path !== undefined) {
    const text = await Deno.readTextFile(plugin.path).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw new Error(`the file ${JSON.stringify(plugin.path)} does not exist`);
    });
    if (!initial && text === slot.lastText) return; // touched, not changed
    slot.lastText = text;
    if (!initial && options.typeCheck !== false) {
      // Checked while the new version loads (the next call need not wait for `deno check`);
      // a failure puts the previous version back and is reported.
      checks.get(slot)?.abort(); // the check of an older save is moot
      const check = new AbortController();
      checks.set(slot, check);
      checked = typeCheck(plugin.path, options.configFile, check.signal);
      checked.catch(() => {});
    }
  }
  const previous = slot.module;
  const version = ++slot.version;
  const { fiber, module } = await importVersion(ctx, slot, version);
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
  // Not awaited: the next save need not wait for this check either.
  checked?.catch((error) => rollBack(loader, slot, { version, previous, fiber, error }));
  warnMissingPermissions(loader, plugin, module);
  if (!initial) {
    ctx.logger.info(`Reloaded plugin ${JSON.stringify(plugin.specifier)} (version ${version})`);
    options.notify(`Reloaded plugin ${JSON.stringify(plugin.specifier)}.`);
  }
}

/** The running type check of each slot's last save. */
const checks = new WeakMap<Slot, AbortController>();

/** A failed type check of the loaded `version` puts `previous` back, unless a newer save won. */
function rollBack(
  loader: Loader,
  slot: Slot,
  failed: { version: number; previous: Plugin | undefined; fiber: Fiber; error: unknown },
): void {
  const { ctx } = loader;
  slot.queue = slot.queue.then(async () => {
    if (slot.version !== failed.version || ctx.fiber.state === "disposed") return;
    await failed.fiber.dispose();
    slot.module = failed.previous;
    slot.fiber = failed.previous === undefined ? undefined : ctx.plugin(failed.previous);
    await slot.fiber?.ready.catch(() => {});
    report(loader, slot, failed.error, false);
  }).catch((error) =>
    ctx.logger.warn("Cannot put the previous plugin back", { error: String(error) })
  );
}

/** Imports and applies one version of a slot's module. */
async function importVersion(
  ctx: Context,
  slot: Slot,
  version: number,
): Promise<{ fiber: Fiber; module: Plugin }> {
  const { plugin } = slot;
  if (plugin.path === undefined) {
    const module = await import(plugin.url) as Plugin;
    if (typeof module.apply !== "function") {
      throw new TypeError(
        "the module has no apply() export (a plugin exports name, inject and apply)",
      );
    }
    const fiber = ctx.plugin(module);
    // A failed apply shows as the fiber's state (handled by the caller), not as a throw here.
    await fiber.ready.catch(() => {});
    return { fiber, module };
  }
  // Imports `<url>?v=<version>`; an import error leaves the previous fiber untouched.
  const fiber = await reloadPlugin(ctx, plugin.url, {
    version,
    ...(slot.fiber !== undefined ? { previous: slot.fiber } : {}),
  });
  const url = new URL(plugin.url);
  url.searchParams.set("v", String(version));
  const module = await import(url.href) as Plugin; // the same, cached namespace
  return { fiber, module };
}

function warnMissingPermissions(
  { ctx, options }: Loader,
  plugin: ResolvedPlugin,
  module: Plugin,
): void {
  let missing: string[];
  try {
    // Resolved as the launcher resolved them (relative paths against the plugin's folder).
    const declared = (module as { permissions?: unknown }).permissions;
    const folder = plugin.path === undefined ? undefined : dirname(plugin.path);
    missing = missingPermissions(
      checkPluginPermissions(declared, JSON.stringify(plugin.specifier), folder),
    );
  } catch (error) {
    ctx.logger.warn(errorMessage(error));
    options.notify(errorMessage(error));
    return;
  }
  if (missing.length === 0) return;
  const text = `Plugin ${
    JSON.stringify(plugin.specifier)
  } declares permissions the agent was not started with (${
    missing.join(", ")
  }): restart the agent to grant them`;
  ctx.logger.warn(text);
  options.notify(text);
}

/** Watches the folders of local plugin files and reloads a slot after its file settles. */
function watchSlots(loader: Loader, slots: readonly Slot[]): Deno.FsWatcher | undefined {
  const { ctx, options } = loader;
  const local = slots.filter((s) => s.plugin.path !== undefined && MODULE_FILE.test(s.plugin.path));
  // Folders, not files: editors save by renaming a new file over the old one. A missing folder is
  // reported by the load; it is not watched.
  const folders = [...new Set(local.map((s) => dirname(s.plugin.path!)))].filter(isDirectory);
  if (folders.length === 0) return undefined;
  let watcher: Deno.FsWatcher;
  try {
    watcher = Deno.watchFs(folders, { recursive: false });
  } catch (error) {
    ctx.logger.warn("Cannot watch the plugin folders: edits need an agent restart", {
      error: errorMessage(error),
    });
    return undefined;
  }
  const byPath = new Map(local.map((s) => [s.plugin.path!, s]));
  (async () => {
    for await (const event of watcher) {
      if (event.kind === "access" || event.kind === "remove") continue;
      for (const path of event.paths) {
        const slot = byPath.get(path);
        if (slot === undefined) continue;
        clearTimeout(slot.timer);
        slot.timer = setTimeout(() => {
          slot.timer = undefined;
          void attempt(loader, slot, false);
        }, options.debounceMs ?? 100);
      }
    }
  })().catch((error) => ctx.logger.warn("Plugin watcher stopped", { error: errorMessage(error) }));
  return watcher;
}

/**
 * Loads the `plugins` of `dsh.jsonc` into the agent: messages go to the ACP sessions through the
 * `acp/notice` event, and watching stops with `ctx`.
 *
 * @param ctx The harness context.
 * @param specifiers The config's `plugins`.
 * @param base The config file's folder.
 * @returns Resolves once every plugin has been tried.
 */
export async function startConfigPlugins(
  ctx: Context,
  specifiers: readonly string[],
  base: string,
): Promise<void> {
  if (specifiers.length === 0) return;
  const url = new URL("../deno.json", import.meta.url);
  const handle = loadConfigPlugins(ctx, {
    plugins: resolvePlugins(specifiers, base),
    notify: (text) => ctx.emit("acp/notice", text),
    ...(url.protocol === "file:" ? { configFile: url.pathname } : {}),
  });
  ctx.effect(() => async () => {
    await handle[Symbol.asyncDispose]();
  });
  await handle.ready;
}
