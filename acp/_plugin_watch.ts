/**
 * Private: watches the folders of a set of files (editors save by renaming a new file over the
 * old one, so folders, not files) and reports each changed file of the set. The watcher is
 * replaced when the set's folders change (a reload that imports a module elsewhere).
 *
 * @module
 */
import { dirname } from "node:path";
import type { Context } from "../core/mod.ts";
import { errorMessage } from "../core/error_message.ts";

const MODULE_FILE = /\.(m?[jt]sx?)$/;

function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/** Watches files through their folders. */
export class PluginWatch {
  readonly #ctx: Context;
  readonly #onChange: (path: string) => void;
  #files = new Set<string>();
  #folders = "";
  #watcher: Deno.FsWatcher | undefined;
  #closed = false;

  constructor(ctx: Context, onChange: (path: string) => void) {
    this.#ctx = ctx;
    this.#onChange = onChange;
  }

  /** Watches exactly these files from now on (module files only). */
  update(files: readonly string[]): void {
    if (this.#closed) return;
    this.#files = new Set(files.filter((file) => MODULE_FILE.test(file)));
    // A missing folder is reported by the load; it is not watched.
    const folders = [...new Set([...this.#files].map((file) => dirname(file)))]
      .filter(isDirectory).sort();
    const key = folders.join("\0");
    if (key === this.#folders) return;
    this.#folders = key;
    this.#watcher?.close();
    this.#watcher = undefined;
    if (folders.length === 0) return;
    let watcher: Deno.FsWatcher;
    try {
      watcher = Deno.watchFs(folders, { recursive: false });
    } catch (error) {
      this.#ctx.logger.warn("Cannot watch the plugin folders: edits need an agent restart", {
        error: errorMessage(error),
      });
      return;
    }
    this.#watcher = watcher;
    (async () => {
      for await (const event of watcher) {
        if (event.kind === "access" || event.kind === "remove") continue;
        for (const path of event.paths) {
          if (this.#files.has(path)) this.#onChange(path);
        }
      }
    })().catch((error) => {
      if (this.#watcher === watcher) {
        this.#ctx.logger.warn("Plugin watcher stopped", { error: errorMessage(error) });
      }
    });
  }

  /** Stops watching. */
  close(): void {
    this.#closed = true;
    this.#watcher?.close();
    this.#watcher = undefined;
  }
}
