/** Runs one answer's tool calls: model-order starts, a bounded pool for safe calls, model-order commits. */
import type { JsonValue } from "../core/json.ts";
import type { ToolOutcome } from "../registry/types.ts";
import type { ToolCallBlock } from "./model.ts";

/** What the batch needs from the agent. */
export interface BatchHooks {
  /** Parses the raw arguments; an Error outcome instead means they are unusable. */
  parse(call: ToolCallBlock): { args: JsonValue } | { outcome: ToolOutcome };
  /** `isConcurrencySafe(name, args) === true`. */
  isSafe(call: ToolCallBlock, args: JsonValue): boolean;
  /** Appends `tool/call` with the parsed arguments, if any (called right before the call starts). */
  started(call: ToolCallBlock, args: JsonValue | undefined): void;
  /** Runs the call through the registry; never throws. */
  execute(call: ToolCallBlock, args: JsonValue): Promise<ToolOutcome>;
  /** Appends `tool/result` and the call's contexts (called in model order). */
  commit(call: ToolCallBlock, outcome: ToolOutcome): void;
}

/**
 * Runs the calls. Starts follow model order; consecutive safe calls overlap up to `limit`; an
 * unsafe call waits for everything before it and runs alone. Results commit in model order.
 * Resolves once every started call settled and every result committed.
 */
export async function runToolBatch(
  calls: readonly ToolCallBlock[],
  limit: number,
  hooks: BatchHooks,
): Promise<void> {
  const outcomes: (ToolOutcome | undefined)[] = new Array(calls.length);
  let next = 0;
  const commitReady = () => {
    while (next < calls.length && outcomes[next] !== undefined) {
      hooks.commit(calls[next]!, outcomes[next]!);
      next++;
    }
  };
  const running = new Set<Promise<void>>();
  // A failing commit (the log could not be written) surfaces only after every started call
  // settled, so no body is left running behind the caller's back.
  let failure: { error: unknown } | undefined;
  const start = (index: number, args: JsonValue): Promise<void> => {
    const call = calls[index]!;
    hooks.started(call, args);
    return hooks.execute(call, args).then((outcome) => {
      outcomes[index] = outcome;
      commitReady();
    }).catch((error) => {
      failure ??= { error };
    });
  };
  for (let index = 0; index < calls.length; index++) {
    const call = calls[index]!;
    const parsed = hooks.parse(call);
    if ("outcome" in parsed) {
      // Unusable arguments never reach the registry, but the failure keeps its model-order slot.
      hooks.started(call, undefined);
      outcomes[index] = parsed.outcome;
      commitReady();
      continue;
    }
    if (hooks.isSafe(call, parsed.args)) {
      while (running.size >= limit) await Promise.race(running);
      const promise = start(index, parsed.args);
      running.add(promise);
      promise.then(() => running.delete(promise));
    } else {
      await Promise.all(running);
      await start(index, parsed.args);
    }
    if (failure) break;
  }
  await Promise.all(running);
  if (failure) throw failure.error;
  commitReady();
}
