/** Runs one answer's tool calls: model-order starts, a bounded pool for safe calls, model-order commits. */
import type { ToolOutcome } from "../tools/outcome.ts";
import type { ToolCall } from "../registry/types.ts";
import type { ToolCallBlock } from "./model.ts";

/** What the batch needs from the agent. */
export interface BatchHooks {
  /** Parses the raw arguments into the registry's call; an Error outcome means they are unusable. */
  parse(call: ToolCallBlock): { prepared: ToolCall } | { outcome: ToolOutcome };
  /** Whether the call may overlap its siblings (`prepared.concurrencySafe`, computed once). */
  isSafe(call: ToolCallBlock, prepared: ToolCall): boolean;
  /** Appends `tool/call` (called right before the call starts; `prepared` is absent for unusable arguments). */
  started(call: ToolCallBlock, prepared?: ToolCall): void;
  /** Runs the prepared call through the registry; never throws. */
  execute(call: ToolCallBlock, prepared: ToolCall): Promise<ToolOutcome>;
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
  const start = (index: number, prepared: ToolCall): Promise<void> => {
    const call = calls[index]!;
    hooks.started(call, prepared);
    return hooks.execute(call, prepared).then((outcome) => {
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
    if (hooks.isSafe(call, parsed.prepared)) {
      while (running.size >= limit) await Promise.race(running);
      const promise = start(index, parsed.prepared);
      running.add(promise);
      promise.then(() => running.delete(promise));
    } else {
      await Promise.all(running);
      await start(index, parsed.prepared);
    }
    if (failure) break;
  }
  await Promise.all(running);
  if (failure) throw failure.error;
  commitReady();
}
