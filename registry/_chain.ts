/**
 * The one chain of a call (private), composed with core's `compose` once per change of its
 * listeners, guards or layers:
 * route layers → pre-abort check → post-execute → unknown tool → pre-execute/approval/guards →
 * `tools/execute` wrappers → `ABORTED` for a late success → body layers → body.
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import { compose as composeLayers } from "../core/compose.ts";
import {
  aborted,
  abortedBeforeDispatch,
  errorOutcome,
  normalizeAuthored,
  type ToolOutcome,
} from "../tools/outcome.ts";
import { aroundView } from "./_around_view.ts";
import { ABORTED_DURING_POLICY, runPolicy, runPost } from "../tools/hooks.ts";
import { type BodyOptions, runBody } from "../tools/run_body.ts";
import type { CallRecord } from "./tool_call.ts";
import type { Guard, Next, ToolLayer } from "./types.ts";

/** One step: the call and the rest of the chain. */
export type Step = (call: CallRecord, next: Next) => Promise<ToolOutcome>;
/** A composed chain: the call and the signal its innermost step gets. */
export type Run = (call: CallRecord, signal: AbortSignal) => Promise<ToolOutcome>;

/** Composes `steps` around `inner`; with no steps `inner` is called straight through. */
function compose(steps: readonly Step[], inner: Run): Run {
  return steps.length === 0 ? inner : composeLayers(steps, inner);
}

/** What the built-in steps read from the registry. */
export interface ChainHost {
  readonly ctx: Context;
  guards(): readonly Guard[];
  readonly body: Omit<BodyOptions, "abortSuccess">;
}

/**
 * The chain for the built-in steps that have listeners now (`shape`) around the plugin layers;
 * the registry builds it again when the listeners, guards or layers change.
 */
export function buildChain(
  host: ChainHost,
  shape: { readonly policy: boolean; readonly around: boolean; readonly post: boolean },
  layers: readonly ToolLayer[],
): Run {
  const route: Step[] = [];
  const body: Step[] = [];
  for (const l of layers) {
    if (l.run !== undefined) (l.position === "route" ? route : body).push(l.run);
  }
  const rest: Step[] = [];
  if (shape.policy) rest.push(policyStep(host));
  if (shape.around) rest.push(aroundStep(host.ctx));
  if (body.length > 0) rest.push(abortSuccess, ...body);
  const options = { ...host.body, abortSuccess: body.length === 0 };
  const inner: Run = (call, signal) => runBody(call, signal, options);
  // Without post-execute between them, the unknown-name and pre-abort checks need no step.
  const checked = shape.post
    ? compose([abortCheck, postStep(host.ctx), unknownCheck, ...rest], inner)
    : gate(compose(rest, inner));
  return compose(route, checked);
}

/** The unknown-name and pre-abort checks in front of `run`, without a step (no post-execute). */
function gate(run: Run): Run {
  return (call, signal) => {
    if (call.definition === undefined) return Promise.resolve(unknownTool(call.name));
    if (call.signal.aborted) return Promise.resolve(abortedBeforeDispatch());
    return run(call, signal);
  };
}

function unknownTool(name: string): ToolOutcome {
  return errorOutcome(`unknown tool "${name}"`, {
    code: "UNKNOWN_TOOL",
    name: "ToolNotFoundError",
  });
}

/** Step 2: a known tool called with an aborted signal gets `ABORTED_BEFORE_DISPATCH`, no policy. */
const abortCheck: Step = (call, next) =>
  call.definition !== undefined && call.signal.aborted
    ? Promise.resolve(abortedBeforeDispatch())
    : next();

/** Step 1's unknown name; it still reaches post-execute. */
const unknownCheck: Step = (call, next) =>
  call.definition !== undefined ? next() : Promise.resolve(unknownTool(call.name));

/** Steps 3–5: pre-execute with approval, guards, and the abort re-check. */
function policyStep(host: ChainHost): Step {
  return async (call, next) => {
    const denial = await runPolicy(host.ctx, host.guards(), call.exec, call.signal);
    if (denial === ABORTED_DURING_POLICY || (denial === undefined && call.signal.aborted)) {
      return abortedBeforeDispatch();
    }
    return denial ?? await next();
  };
}

/** Step 5: the `tools/execute` wrappers; a result they author is normalized again. */
function aroundStep(ctx: Context): Step {
  return async (call, next) => {
    const { view, target } = aroundView(call.exec);
    let inner: ToolOutcome | undefined;
    const result = await ctx.around(
      "tools/execute",
      view,
      async () => inner = await next(target.signal),
    );
    return result === inner ? result : normalizeAuthored(result);
  };
}

/** Step 6's end when body layers exist: a success after the caller aborted becomes `ABORTED`. */
const abortSuccess: Step = async (call, next) => {
  const outcome = await next();
  return !outcome.isError && call.signal.aborted ? aborted(call.deferred) : outcome;
};

/** Step 7: `tools/post-execute` (an abort before dispatch found by the policy skips it). */
function postStep(ctx: Context): Step {
  return async (call, next) => {
    const outcome = await next();
    return outcome === abortedBeforeDispatch() ? outcome : await runPost(ctx, call.exec, outcome);
  };
}
