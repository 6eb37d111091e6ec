/**
 * The plugin that registers the fs tools (`read`, `write`, `edit`) and emits `fs/observed` on
 * the context after each successful read, write or edit.
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import type { ToolRegistry } from "../registry/types.ts";
import { LocalExecutor } from "./local_executor.ts";
import type { Executor } from "../tools/executor.ts";
import { createEditTool } from "./fs_edit.ts";
import { createReadTool, type FsObservation, type FsTarget } from "./fs_read.ts";
import type { ToolExecution } from "../tools/definition.ts";
import { createWriteTool } from "./fs_write.ts";

/** The context event fs tools emit after they saw a file's content. */
export const FS_OBSERVED_EVENT = "fs/observed";

/**
 * The waterfall the fs tools run with the real path a local call is about to open
 * (`(refusal: string | undefined, exec, target: FsTarget)`): a listener returns a refusal text
 * when its policy judged the call on another path (the path changed during the call).
 */
export const FS_TARGET_EVENT = "fs/target";

/** Config of {@linkcode fsPlugin}. */
export interface FsPluginConfig {
  /** Where file I/O goes. @default {new LocalExecutor()} */
  readonly executor?: Executor;
  /** Base of relative paths when a call has no agent. @default {Deno.cwd()} */
  readonly cwd?: string;
}

/**
 * Registers `read`, `write` and `edit`. Pair it with `readBeforeEditPlugin` and
 * `workspacePolicyPlugin` for the policies.
 *
 * @example Usage
 * ```ts ignore
 * import { fsPlugin } from "./fs_plugin.ts";
 * ctx.plugin(fsPlugin, { cwd: "/work" });
 * ```
 */
export const fsPlugin: {
  readonly name: string;
  readonly inject: readonly string[];
  apply(ctx: Context, config?: FsPluginConfig): void;
} = {
  name: "fs",
  inject: ["tools"],
  apply(ctx: Context, config: FsPluginConfig = {}): void {
    const tools = ctx.get<ToolRegistry>("tools");
    if (tools === undefined) {
      throw new Error("Cannot register the fs tools: the tools service is missing");
    }
    const options = {
      executor: config.executor ?? new LocalExecutor(),
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      onObserved: (observation: FsObservation) => ctx.emit(FS_OBSERVED_EVENT, observation),
      checkTarget: (exec: ToolExecution, target: FsTarget) =>
        ctx.listenerCount(FS_TARGET_EVENT) === 0
          ? Promise.resolve(undefined)
          : ctx.waterfall<string | undefined>(FS_TARGET_EVENT, undefined, exec, target),
    };
    tools.register(createReadTool(options));
    tools.register(createWriteTool(options));
    tools.register(createEditTool(options));
  },
};
