/**
 * The one chain of a call (private): every installed middleware, ordered by its phase
 * (`TOOL_PHASES`) and then by installation, composed once with core's `compose` per change of the
 * middleware or of the `ctx.on` listeners the old hook names still accept:
 * route → pre-abort check → post-execute → unknown tool → pre-execute → guard → abort re-check →
 * `tools/execute` → `ABORTED` for a late success → body → the tool body. `tools/result` middleware
 * observe the published outcome (`observeResult`).
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import { compose as composeLayers, type Middleware } from "../core/compose.ts";
import { describeValue, errorMessage } from "../core/error_message.ts";
import {
  aborted,
  abortedBeforeDispatch,
  errorOutcome,
  normalizeAuthored,
  type ToolOutcome,
} from "../tools/outcome.ts";
import { ABORTED_DURING_POLICY, ask, checkPreDecision, denied } from "./hooks.ts";
import { PHASE_RULES, runGuard, runPost, TOOL_PHASES } from "./hooks.ts";
import type {
  ApprovalScope,
  AroundExecution,
  Guard,
  PreExecuteDecision,
  ToolPhase,
} from "./hooks.ts";
import type { AgentHandle, BackgroundJob, ToolExecution } from "../tools/definition.ts";
import { type BodyOptions, runBody } from "./_run_body.ts";
import type { CallRecord } from "./tool_call.ts";
import type { Next, PreExecuteMiddleware, ToolCall, ToolMiddleware } from "./types.ts";

/** One step: the call and the rest of the chain (a `ToolMiddleware` is one). */
export type Step = Middleware<CallRecord, AbortSignal, ToolOutcome>;
/** A composed chain: the call and the signal its innermost step gets. */
export type Run = (call: CallRecord, signal: AbortSignal) => Promise<ToolOutcome>;

/** One installed middleware: its phase and the function (the registry keeps them by installation). */
export interface Installed {
  readonly phase: ToolPhase;
  readonly run: ToolMiddleware;
  /** The function of `guard(fn)` (the registry's own sugar, composed without its phase's checks). */
  readonly guard?: Guard;
}

/** Composes `steps` around `inner`; with no steps `inner` is called straight through. */
function compose(steps: readonly Step[], inner: Run): Run {
  return steps.length === 0 ? inner : composeLayers(steps, inner);
}

/** The middleware of each phase, by installation, with the `ctx.on` sugar first in its phase. */
interface Phases {
  /** Every phase but `tools/pre-execute`, as steps (each wrapped in its phase's rules). */
  readonly steps: Map<ToolPhase, Step[]>;
  /** `tools/pre-execute`, as installed (its decisions are read by `prePhase`). */
  readonly pre: PreExecuteMiddleware[];
}

/** The installed middleware of each phase, by installation, with the `ctx.on` sugar in front. */
function byPhase(ctx: Context, installed: readonly Installed[]): Phases {
  const steps = new Map<ToolPhase, Step[]>(TOOL_PHASES.map((phase) => [phase, []]));
  const pre: PreExecuteMiddleware[] = [];
  // The old hook names, `ctx.on(name, listener)`, are one middleware each, first in their phase.
  if (ctx.listenerCount("tools/post-execute") > 0) {
    steps.get("tools/post-execute")!.push(postSugar(ctx));
  }
  if (ctx.listenerCount("tools/pre-execute") > 0) pre.push(preSugar(ctx));
  if (ctx.listenerCount("tools/execute") > 0) steps.get("tools/execute")!.push(aroundSugar(ctx));
  for (const { phase, run, guard } of installed) {
    if (phase === "tools/pre-execute") pre.push(run);
    else steps.get(phase)!.push(guard !== undefined ? run : PHASE_RULES[phase](run));
  }
  return { steps, pre };
}

/** The chain for the installed middleware; the registry builds it again after a change. */
export function buildChain(
  ctx: Context,
  installed: readonly Installed[],
  body: Omit<BodyOptions, "abortSuccess">,
): Run {
  const phases = byPhase(ctx, installed);
  const get = (phase: ToolPhase) => phases.steps.get(phase)!;
  const bodies = get("body");
  const rest = policySteps(ctx, installed, phases);
  rest.push(...get("tools/execute"));
  if (bodies.length > 0) rest.push(abortSuccess, ...bodies);
  const options = { ...body, abortSuccess: bodies.length === 0 };
  const inner: Run = (call, signal) => runBody(call, signal, options);
  const post = get("tools/post-execute");
  // Without post-execute between them, the unknown-name and pre-abort checks need no step.
  const checked = post.length > 0
    ? compose([abortCheck, ...post, unknownCheck, ...rest], inner)
    : gate(compose(rest, inner));
  return compose(get("route"), checked);
}

/**
 * Runs the `tools/result` middleware on a published outcome: each gets a `next()` answering it;
 * what they return is ignored and what they throw is logged (observe-only).
 */
export function observeResult(
  ctx: Context,
  observers: readonly Installed[],
  call: CallRecord,
  outcome: ToolOutcome,
): void {
  const next: Next = () => Promise.resolve(outcome);
  const failed = (error: unknown) =>
    ctx.logger.error(`a tools/result middleware threw: ${errorMessage(error)}`, error);
  for (const observer of observers) {
    try {
      const result = observer.run(call, next);
      if (result instanceof Promise) result.catch(failed);
    } catch (error) {
      failed(error);
    }
  }
}

/** `ctx.tools.ask(call, options)`: approval for `tools/pre-execute` middleware. */
export async function askFor(
  ctx: Context,
  call: ToolCall,
  options: { readonly reason?: string; readonly scope?: ApprovalScope },
): Promise<ToolOutcome | undefined> {
  const answer = await ask(ctx, call.exec, options, call.signal);
  return answer === ABORTED_DURING_POLICY ? abortedBeforeDispatch() : answer;
}

/** Policy: one fused step when only `guard()` is installed, else each phase's and the re-check. */
function policySteps(ctx: Context, installed: readonly Installed[], phases: Phases): Step[] {
  const { pre, steps } = phases;
  const guards = steps.get("guard")!;
  const fns = installed.flatMap((e) => e.guard ?? []);
  if (pre.length > 0 || fns.length < guards.length) {
    return [...(pre.length > 0 ? [prePhase(ctx, pre)] : []), ...guards, abortRecheck];
  }
  if (fns.length === 0) return [];
  return [async (call, next) => {
    for (const guard of fns) {
      const denial = runGuard(guard, call.exec);
      if (denial !== undefined) return denial;
    }
    return call.signal.aborted ? abortedBeforeDispatch() : await next();
  }];
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

/** After the policy (step 5): a caller that aborted meanwhile gets `ABORTED_BEFORE_DISPATCH`. */
const abortRecheck: Step = (call, next) =>
  call.signal.aborted ? Promise.resolve(abortedBeforeDispatch()) : next();

/** Step 6's end when body middleware exists: a success after the caller aborted becomes `ABORTED`. */
const abortSuccess: Step = async (call, next) => {
  const outcome = await next();
  return !outcome.isError && call.signal.aborted ? aborted(call.deferred) : outcome;
};

/** Step 5: the `ctx.on("tools/execute")` wrappers; a result they author is normalized again. */
function aroundSugar(ctx: Context): Step {
  return async (call, next) => {
    const view = new ExecutionView(call.exec);
    let inner: ToolOutcome | undefined;
    const result = await ctx.around(
      "tools/execute",
      view,
      async () => inner = await next(view.signal),
    );
    return result === inner ? result : normalizeAuthored(result);
  };
}

/** Step 7: `ctx.on("tools/post-execute")` (an abort before dispatch found by the policy skips it). */
function postSugar(ctx: Context): Step {
  return async (call, next) => {
    const outcome = await next();
    return outcome === abortedBeforeDispatch() ? outcome : await runPost(ctx, call.exec, outcome);
  };
}

/** `tools/pre-execute` as one step: the held ask of `decide` goes out after the last middleware. */
function prePhase(ctx: Context, middleware: readonly PreExecuteMiddleware[]): Step {
  const run = composeLayers<Pass, AbortSignal | undefined, ToolOutcome>(
    middleware.map(decide),
    async ({ call, next, ask }) =>
      ask === undefined ? next() : await askFor(ctx, call, ask) ?? next(),
  );
  return (call, next) => run({ call, next }, undefined);
}

type Pass = { readonly call: CallRecord; readonly next: Next; ask?: Parameters<typeof askFor>[2] };

/**
 * One pre-execute middleware; decisions combine as the `ctx.on` waterfall's do: a deny ends the
 * phase before any ask is sent, an ask is held in the `Pass` (a later one replaces it).
 */
function decide(run: PreExecuteMiddleware): Middleware<Pass, AbortSignal | undefined, ToolOutcome> {
  return PHASE_RULES["tools/pre-execute"](async (pass: Pass, next) => {
    const result = await run(pass.call, next);
    if (typeof result !== "object" || result === null || "isError" in result) return result;
    const decision = checkPreDecision(result);
    if (decision.kind === "deny") {
      return denied(decision.reason || `tool "${pass.call.name}" was denied by policy`);
    }
    if (decision.kind === "ask") pass.ask = decision;
    return await next();
  });
}

/** The `ctx.on("tools/pre-execute")` listeners as one middleware: the waterfall's decision. */
const preSugar = (ctx: Context): PreExecuteMiddleware => (call) =>
  ctx.waterfall<PreExecuteDecision>("tools/pre-execute", ALLOW, call.exec);
const ALLOW: PreExecuteDecision = Object.freeze({ kind: "allow" });

/**
 * The view itself: frozen own fields, and `signal` an accessor of the class (shared by every view,
 * so making one stays as cheap as a plain object; a literal with per-object accessors is not).
 */
class ExecutionView implements AroundExecution {
  #signal: AbortSignal;
  readonly callId: string;
  readonly name: string;
  readonly arguments: ToolExecution["arguments"];
  readonly token: symbol;
  readonly output: ToolExecution["output"];
  readonly deferContext: ToolExecution["deferContext"];
  readonly agent?: AgentHandle;
  readonly parent?: symbol;
  readonly job?: BackgroundJob;

  constructor(exec: ToolExecution) {
    this.#signal = exec.signal;
    this.callId = exec.callId;
    this.name = exec.name;
    this.arguments = exec.arguments;
    this.token = exec.token;
    this.output = exec.output;
    this.deferContext = exec.deferContext;
    if (exec.agent !== undefined) this.agent = exec.agent;
    if (exec.parent !== undefined) this.parent = exec.parent;
    if (exec.job !== undefined) this.job = exec.job;
    Object.freeze(this);
  }

  get signal(): AbortSignal {
    return this.#signal;
  }

  set signal(value: AbortSignal) {
    if (!(value instanceof AbortSignal)) {
      throw new TypeError(
        `Cannot set "signal" on a tool execution: expected an AbortSignal, received ${
          describeValue(value)
        }`,
      );
    }
    this.#signal = value;
  }
}
