/**
 * Read-before-edit policy: a `tools/pre-execute` listener that denies `edit`, and `write` over an
 * existing file, unless this session has seen the file (a read, write or edit reported through
 * `fs/observed`). The reason is `edit requires reading "<abs>" first`.
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import type { ToolExecution } from "../tools/definition.ts";
import type { PreExecuteDecision } from "../registry/types.ts";
import { baseDir, policyFilePath, resolvePath } from "./_paths.ts";
import type { Executor } from "./executor.ts";
import { LocalExecutor } from "./executor.ts";
import type { FsObservation } from "./fs_read.ts";
import { FS_OBSERVED_EVENT } from "./fs_plugin.ts";

/** Config of {@linkcode readBeforeEditPlugin}. */
export interface ReadBeforeEditConfig {
  /** Tools whose `file_path` must have been observed. @default {["write", "edit"]} */
  readonly tools?: readonly string[];
  /** Used to check whether the target exists. @default {new LocalExecutor()} */
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
  apply(ctx: Context, config?: ReadBeforeEditConfig): void;
} = {
  name: "read-before-edit",
  apply(ctx: Context, config: ReadBeforeEditConfig = {}): void {
    const tools = new Set(config.tools ?? ["write", "edit"]);
    const executor = config.executor ?? new LocalExecutor();
    const seen = new Map<string, Set<string>>();
    ctx.effect(() => () => seen.clear());
    ctx.on(FS_OBSERVED_EVENT, (observation: FsObservation) => {
      let paths = seen.get(observation.sessionId);
      if (!paths) seen.set(observation.sessionId, paths = new Set());
      paths.add(observation.path);
    });
    ctx.on(
      "tools/pre-execute",
      async function readBeforeEdit(
        decision: PreExecuteDecision,
        exec: ToolExecution,
      ): Promise<PreExecuteDecision | undefined> {
        const filePath = policyFilePath(decision, exec, tools);
        if (filePath === undefined) return undefined;
        const path = resolvePath(filePath, baseDir(exec.agent?.cwd, config.cwd));
        if (seen.get(exec.agent?.sessionId ?? "")?.has(path)) return undefined;
        // A new file has nothing to read; a missing one is the tool's own "file not found".
        const info = await executor.stat(path).catch(() => undefined);
        if (info === undefined) return undefined;
        return { kind: "deny", reason: readBeforeEditReason(path) };
      },
    );
  },
};
