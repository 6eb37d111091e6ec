/**
 * One way for the fs tools to open a file through any {@linkcode Executor}: its own race-checked
 * {@linkcode Executor.openFile} when it has one (the local executors), else a handle made of
 * `stat`, `readFile` and `writeFile` (a remote environment, whose files no other process on this
 * machine can swap under the call).
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import type { Executor, FileStat, OpenedFile, OpenFileOptions } from "./executor.ts";

const EMPTY: FileStat = { isFile: true, isDirectory: false, size: 0, mtimeMs: null };

/**
 * Opens `path` for one tool call through `executor`.
 *
 * Without {@linkcode Executor.openFile}: `inspect` sees `stat` (symlinks followed, so never a
 * symlink), `check` is not asked (the executor's real paths are not this machine's), nothing is
 * created before `replace`, and reads go through `readFile` (one whole-file chunk).
 *
 * @param executor The executor.
 * @param path An absolute path.
 * @param options Access, creation and the checks before the open.
 * @returns The opened file; close it.
 * @throws {HarnessError} `NOT_FOUND` when nothing exists and `create` is not set, or the
 * executor's own errors.
 *
 * @example Usage
 * ```ts ignore
 * import { openFileOf } from "./exec_file.ts";
 * import { LocalExecutor } from "../builtins/local_executor.ts";
 * const file = await openFileOf(new LocalExecutor(), "/etc/hostname", { access: "read" });
 * try {
 *   console.log(new TextDecoder().decode(await file.readAll()));
 * } finally {
 *   file.close();
 * }
 * ```
 */
export async function openFileOf(
  executor: Executor,
  path: string,
  options: OpenFileOptions,
): Promise<OpenedFile> {
  if (typeof executor.openFile === "function") return await executor.openFile(path, options);
  const found = await executor.stat(path);
  options.inspect?.(found && { ...found, isSymlink: false });
  if (found === undefined && options.create !== true) {
    throw new HarnessError("NOT_FOUND", `Cannot ${options.access} "${path}": file not found`);
  }
  return new PlainFile(executor, path, found);
}

/** The handle of an executor without `openFile`. */
class PlainFile implements OpenedFile {
  readonly real: string;
  readonly created: boolean;
  info: FileStat;
  readonly #executor: Executor;
  #consumed: boolean;

  constructor(executor: Executor, path: string, found: FileStat | undefined) {
    this.#executor = executor;
    this.real = path;
    this.created = found === undefined;
    this.info = found ?? EMPTY;
    this.#consumed = this.created;
  }

  async *chunks(): AsyncGenerator<Uint8Array> {
    if (this.#consumed) return;
    this.#consumed = true;
    yield await this.#executor.readFile(this.real);
  }

  async readAll(): Promise<Uint8Array> {
    if (this.#consumed) return new Uint8Array();
    this.#consumed = true;
    return await this.#executor.readFile(this.real);
  }

  async replace(data: Uint8Array): Promise<FileStat> {
    await this.#executor.writeFile(this.real, data);
    this.#consumed = true;
    const after = await this.#executor.stat(this.real).catch(() => undefined);
    this.info = after ?? { ...EMPTY, size: data.length };
    return this.info;
  }

  close(): void {}
}
