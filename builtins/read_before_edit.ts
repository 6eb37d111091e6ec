/**
 * Read-before-edit policy: a `tools/pre-execute` listener that denies `edit`, and `write` over an
 * existing file, unless this session has seen the file (a read, write or edit reported through
 * `fs/observed`). The reason is `edit requires reading "<abs>" first`.
 *
 * It also refuses a write or edit when the file changed on disk since the session last saw it
 * (another program, a bash command, another session): the version recorded with the observation
 * (size plus a content hash, or size plus mtime for files over 64 MiB) must still match. The check
 * runs before the call is approved and again right before the tool runs (`tools/execute`
 * middleware), so a change made while the user was being asked is caught too. The model is told to
 * read the file again.
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import type { ToolRegistry } from "../registry/types.ts";
import { HarnessError } from "../core/errors.ts";
import { baseDir, policyFilePath } from "./_paths.ts";
import { resolvePath } from "../tools/paths.ts";
import { type Executor, executorFor } from "../tools/executor.ts";
import { LocalExecutor } from "./local_executor.ts";
import type { FsObservation } from "./fs_read.ts";
import { FS_OBSERVED_EVENT } from "./fs_plugin.ts";
import { currentVersion, type FileVersion, sameVersion } from "./_fs_stream.ts";

/** Config of {@linkcode readBeforeEditPlugin}. */
export interface ReadBeforeEditConfig {
  /** Tools whose `file_path` must have been observed. @default {["write", "edit"]} */
  readonly tools?: readonly string[];
  /**
   * Where the target's existence and version are checked: the fs tools' executor (each session's
   * own, see `executorFor`). @default {new LocalExecutor()}
   */
  readonly executor?: Executor;
  /** Base of relative paths when a call has no agent. @default {Deno.cwd()} */
  readonly cwd?: string;
}

/**
 * The denial reason for an unobserved path.
 *
 * @param path The absolute path.
 * @returns The reason text.
 *
 * @example Usage
 * ```ts
 * import { readBeforeEditReason } from "./read_before_edit.ts";
 * import { equal } from "node:assert/strict";
 * equal(readBeforeEditReason("/a"), 'edit requires reading "/a" first');
 * ```
 */
export function readBeforeEditReason(path: string): string {
  return `edit requires reading "${path}" first`;
}

/**
 * The refusal for a file that changed on disk since the session saw it.
 *
 * @param tool The tool name.
 * @param path The absolute path.
 * @returns The reason text.
 *
 * @example Usage
 * ```ts
 * import { staleFileReason } from "./read_before_edit.ts";
 * import { ok } from "node:assert/strict";
 * ok(staleFileReason("edit", "/a").includes("read it again"));
 * ```
 */
export function staleFileReason(tool: string, path: string): string {
  return `Cannot ${tool} "${path}": the file changed on disk since it was last read ` +
    `(by another program, a command or another session); read it again before you ${tool} it`;
}

/**
 * The plugin. Observations are kept per session in memory and dropped with the plugin.
 *
 * @example Usage
 * ```ts ignore
 * import { readBeforeEditPlugin } from "./read_before_edit.ts";
 * ctx.plugin(readBeforeEditPlugin);
 * ```
 */
export const readBeforeEditPlugin: {
  readonly name: string;
  readonly inject: readonly string[];
  apply(ctx: Context, config?: ReadBeforeEditConfig): void;
} = {
  name: "read-before-edit",
  inject: ["tools"],
  apply(ctx: Context, config: ReadBeforeEditConfig = {}): void {
    const registry = ctx.get<ToolRegistry>("tools");
    if (registry === undefined) {
      throw new TypeError("Cannot apply read-before-edit: ctx.tools is not provided");
    }
    const tools = new Set(config.tools ?? ["write", "edit"]);
    const executor = config.executor ?? new LocalExecutor();
    // session → path → the version seen (`null` when the observer reported none).
    const seen = new Map<string, Map<string, FileVersion | null>>();
    ctx.effect(() => () => seen.clear());
    ctx.on(FS_OBSERVED_EVENT, (observation: FsObservation) => {
      let paths = seen.get(observation.sessionId);
      if (!paths) seen.set(observation.sessionId, paths = new Map());
      paths.set(observation.path, observation.version ?? null);
    });
    /** The stale-file reason, or `undefined` when the file is as the session saw it. */
    async function staleness(
      name: string,
      sessionId: string,
      path: string,
    ): Promise<string | undefined> {
      const version = seen.get(sessionId)?.get(path);
      if (version === undefined || version === null) return undefined;
      // Unchanged size and mtime skip the hash: each edit checks twice (policy, then execute).
      const now = await currentVersion(executorFor(executor, sessionId || undefined), path, version)
        .catch(() => undefined);
      // Deleted since: a write recreates it, an edit reports "file not found" itself.
      if (now === undefined) return undefined;
      return sameVersion(version, now) ? undefined : staleFileReason(name, path);
    }
    registry.use("tools/pre-execute", async function readBeforeEdit(call, next) {
      const { exec } = call;
      const filePath = policyFilePath(exec, tools);
      if (filePath === undefined) return await next();
      const path = resolvePath(filePath, baseDir(exec.agent?.cwd, config.cwd));
      const sessionId = exec.agent?.sessionId ?? "";
      if (seen.get(sessionId)?.has(path)) {
        const stale = await staleness(exec.name, sessionId, path);
        return stale === undefined ? await next() : { kind: "deny", reason: stale };
      }
      // A new file has nothing to read; a missing one is the tool's own "file not found".
      const info = await executorFor(executor, exec.agent?.sessionId).stat(path)
        .catch(() => undefined);
      if (info === undefined) return await next();
      return { kind: "deny", reason: readBeforeEditReason(path) };
    });
    // Again right before the tool runs: the file may have changed while approval was pending.
    registry.use("tools/execute", async function staleWriteGuard(call, next) {
      const filePath = policyFilePath(call.exec, tools);
      if (filePath !== undefined) {
        const path = resolvePath(filePath, baseDir(call.agent?.cwd, config.cwd));
        const stale = await staleness(call.name, call.agent?.sessionId ?? "", path);
        if (stale !== undefined) throw new HarnessError("FS_STALE", stale);
      }
      return await next();
    });
  },
};
