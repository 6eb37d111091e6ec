/**
 * Private: one configured plugin's state, and the steps around its loads: a change on disk
 * becomes a {@linkcode PluginChange} held for the user, `deno check` runs beside a reload,
 * declared permissions the agent lacks are reported, and a permission error of a plugin's tool
 * names the plugin's `permissions` export.
 *
 * @module
 */
import { dirname } from "node:path";
import type { Fiber, Plugin } from "../core/mod.ts";
import { errorMessage } from "../core/error_message.ts";
import { denoOnPlugin, localModules, readTexts } from "./_plugin_graph.ts";
import { cleanDenoText, permissionErrorText } from "./_plugin_errors.ts";
import {
  checkPluginPermissions,
  missingPermissions,
  type ResolvedPlugin,
} from "./plugin_permissions.ts";
import type { ToolsContext } from "../registry/tools_plugin.ts";
import type { ProtectedPaths } from "../builtins/protected_paths.ts";
import type { PluginWatch } from "./_plugin_watch.ts";

/** Options of `loadConfigPlugins` (`_plugins.ts`). */
export interface ConfigPluginsOptions {
  /** The resolved `plugins` entries. */
  readonly plugins: readonly ResolvedPlugin[];
  /** Shows a message to the user (the ACP sessions). */
  readonly notify: (text: string) => void;
  /**
   * Holds a change of a watched file for the user's approval: it loads only once
   * `change.decide(true)` is called. Without it, changes load at once (only for embedders whose
   * plugin files no tool can write). @default {undefined}
   */
  readonly review?: (change: PluginChange) => void;
  /** Where each plugin's files are protected (source `plugin:<specifier>`). @default {undefined} */
  readonly protectedPaths?: ProtectedPaths;
  /** Watch local plugin files and offer their changes for reload. @default {true} */
  readonly watch?: boolean;
  /** Quiet period after the last change before reviewing it, in ms. @default {100} */
  readonly debounceMs?: number;
  /** Type-check an edited `.ts` plugin (`deno check`, beside the reload; a failure rolls it back). @default {true} */
  readonly typeCheck?: boolean;
  /** The config file `deno check` and `deno info` resolve `@dsh/harness` with. @default {undefined} */
  readonly configFile?: string;
}

/** What every step of loading a plugin needs. */
export interface Loader {
  readonly ctx: ToolsContext;
  readonly options: ConfigPluginsOptions;
  readonly slots: readonly Slot[];
  /** Loads run one at a time (so each plugin's tools are known). */
  queue: Promise<void>;
  /** Local modules already imported into this process (they stay until a restart). */
  readonly inProcess: Set<string>;
  watch: PluginWatch | undefined;
}

/** One file of a {@linkcode PluginChange}. */
export interface ChangedFile {
  /** Absolute path. */
  readonly path: string;
  /** The text the agent last loaded or was shown, or `null` (new or missing then). */
  readonly oldText: string | null;
  /** The text on disk now. */
  readonly newText: string | null;
}

/** A change of a plugin's files on disk, waiting for the user's approval. */
export interface PluginChange {
  /** The plugin, as written in dsh.jsonc. */
  readonly plugin: string;
  /** The plugin file first, then the local modules it imports that would load for the first time. */
  readonly files: readonly ChangedFile[];
  /** Imported modules that changed but stay as loaded (already in the process) until a restart. */
  readonly stale: readonly string[];
  /**
   * The user's answer: `true` loads exactly the texts shown (a file changed since is offered
   * again), `false` keeps the loaded version. Resolves once the reload is done or reported; a
   * second answer, or an answer to a change superseded by a newer one, does nothing.
   */
  decide(approved: boolean): Promise<void>;
}

/** One configured plugin. */
export interface Slot {
  readonly plugin: ResolvedPlugin;
  fiber: Fiber | undefined;
  module: Plugin | undefined;
  /** Successful loads. */
  version: number;
  /** Imports tried (the `?v=` of each). */
  attempts: number;
  /** The plugin file and the local modules its loaded version imports. */
  files: string[];
  /** The texts last loaded, tried or declined, by path (`null`: missing). */
  readonly seen: Map<string, string | null>;
  /** The change waiting for the user. */
  pending: PluginChange | undefined;
  /** The last queued review of this slot (one runs at a time; settles, never rejects). */
  reviewing: Promise<void>;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** The running `deno check` of the loaded version (a newer load aborts it). */
  check: AbortController | undefined;
  /** Names of the tools the loaded version registered. */
  tools: Set<string>;
}

/** Queues a (re)load of a slot with the approved texts. */
export type Attempt = (
  loader: Loader,
  slot: Slot,
  initial: boolean,
  expected?: ReadonlyMap<string, string | null>,
) => Promise<void>;

function names(paths: readonly string[]): string {
  return paths.map((path) => JSON.stringify(path)).join(", ");
}

/**
 * Compares a slot's files with what was last seen and, when the plugin file changed, holds the
 * change for the user (`options.review`), or loads it at once without a review channel. One
 * review of a slot runs at a time.
 */
export function reviewChange(loader: Loader, slot: Slot, attempt: Attempt): Promise<void> {
  const run = slot.reviewing.then(() => review(loader, slot, attempt));
  slot.reviewing = run.catch(() => {});
  return run;
}

async function review(loader: Loader, slot: Slot, attempt: Attempt): Promise<void> {
  const { ctx, options } = loader;
  const path = slot.plugin.path;
  if (path === undefined) return;
  const current = await readTexts(slot.files);
  const changed = slot.files.filter((file) => current.get(file) !== slot.seen.get(file));
  if (changed.length === 0) return;
  const what = JSON.stringify(slot.plugin.specifier);
  if (!changed.includes(path)) {
    for (const file of changed) slot.seen.set(file, current.get(file) ?? null);
    const text = `${
      names(changed)
    }, imported by plugin ${what}, changed on disk: the agent keeps the version it loaded (a plugin's imports load when the agent starts, and hot reload replaces the plugin file only)`;
    ctx.logger.warn(text);
    options.notify(text);
    return;
  }
  const newText = current.get(path) ?? null;
  if (newText === null) return; // removed: nothing to load
  const configFile = options.configFile;
  const graph = await localModules(path, configFile === undefined ? {} : { configFile });
  const imports = graph.filter((file) => file !== path);
  const texts = await readTexts(imports);
  const fresh = imports.filter((file) => !loader.inProcess.has(file));
  const files: ChangedFile[] = [
    { path, oldText: slot.seen.get(path) ?? null, newText },
    ...fresh.map((file) => ({ path: file, oldText: null, newText: texts.get(file) ?? null })),
  ];
  const stale = imports.filter((file) =>
    loader.inProcess.has(file) && slot.seen.has(file) && texts.get(file) !== slot.seen.get(file)
  );
  if (slot.pending !== undefined && JSON.stringify(slot.pending.files) === JSON.stringify(files)) {
    return; // already waiting for the user
  }
  const expected = new Map(files.map((file) => [file.path, file.newText]));
  const change: PluginChange = {
    plugin: slot.plugin.specifier,
    files,
    stale,
    decide(approved: boolean): Promise<void> {
      if (slot.pending !== change) return Promise.resolve();
      slot.pending = undefined;
      if (approved) return attempt(loader, slot, false, expected);
      for (const [file, text] of expected) slot.seen.set(file, text);
      const text =
        `Kept the loaded version of plugin ${what}: its change on disk was not approved (save the file again to be asked again)`;
      ctx.logger.warn(text);
      options.notify(text);
      return Promise.resolve();
    },
  };
  slot.pending = change;
  if (options.review === undefined) {
    void change.decide(true);
    return;
  }
  ctx.logger.warn(
    `Plugin ${what} changed on disk: the change is held until the user approves the reload`,
  );
  options.review(change);
}

/** `deno check` of an edited `.ts` plugin; throws the first lines of its report. */
export async function typeCheck(
  path: string,
  configFile: string | undefined,
  signal?: AbortSignal,
): Promise<void> {
  if (!/\.(m?ts|tsx)$/.test(path)) return;
  let output: Deno.CommandOutput;
  try {
    output = await denoOnPlugin(["check", "--quiet"], path, configFile, signal);
  } catch {
    return; // No deno to run (the import still catches syntax errors), or a newer load won.
  }
  if (output.success || signal?.aborted) return;
  const text = cleanDenoText(new TextDecoder().decode(output.stderr));
  throw new Error(`deno check failed:\n${text.split("\n").slice(0, 12).join("\n")}`);
}

/** Reports declared permissions the agent was not started with. */
export function warnMissingPermissions(
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

/**
 * Rewrites Deno's permission error of a plugin's tool (`run again with the --allow-net flag`)
 * to name the plugin's `permissions` export.
 */
export function trackPluginTools({ ctx, slots }: Loader): void {
  if (slots.length === 0) return;
  ctx.tools.use("tools/post-execute", async (call, next) => {
    const outcome = await next();
    if (!outcome.isError || outcome.error?.name !== "NotCapable") return outcome;
    const slot = slots.find((s) => s.tools.has(call.name));
    if (slot === undefined) return outcome;
    let rewritten = false;
    const content = outcome.content.map((block) => {
      if (block.type !== "text") return block;
      const text = permissionErrorText(block.text, slot.plugin.specifier);
      if (text === undefined) return block;
      rewritten = true;
      return { ...block, text };
    });
    return rewritten ? { ...outcome, content } : outcome;
  });
}
