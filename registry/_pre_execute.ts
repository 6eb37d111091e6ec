/**
 * The `tools/pre-execute` phase (private): its middleware run by installation, and each either
 * calls `next()`, denies with an error outcome, or returns a decision. The phase combines the
 * decisions before any ask is sent, as the `ctx.on("tools/pre-execute")` waterfall does: a deny
 * ends the phase at once (so a later deny cancels an earlier ask and the user is never prompted),
 * an ask is held (a later ask replaces it, for example with a narrower scope) and sent only when
 * every middleware of the phase has passed, and an allow changes nothing.
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import { compose } from "../core/compose.ts";
import { abortedBeforeDispatch, normalizeAuthored, type ToolOutcome } from "../tools/outcome.ts";
import {
  ABORTED_DURING_POLICY,
  ask,
  checkPreDecision,
  denied,
  type PreExecuteDecision,
} from "../tools/hooks.ts";
import type { CallRecord } from "./tool_call.ts";
import type { Next, PreExecuteMiddleware } from "./types.ts";

type AskDecision = Extract<PreExecuteDecision, { kind: "ask" }>;

/** One pass of a call through the phase: the call, the rest of the chain, the held ask. */
interface Pass {
  readonly call: CallRecord;
  readonly next: Next;
  ask: AskDecision | undefined;
}

type PassStep = (pass: Pass, next: () => Promise<ToolOutcome>) => Promise<ToolOutcome>;

const ALLOW: PreExecuteDecision = Object.freeze({ kind: "allow" });

/** The phase as one step of the chain: `middleware` in order, then the held ask, then `next`. */
export function prePhase(
  ctx: Context,
  middleware: readonly PreExecuteMiddleware[],
): (call: CallRecord, next: Next) => Promise<ToolOutcome> {
  const run = compose<Pass, undefined, ToolOutcome>(
    middleware.map(decide),
    async (pass) => {
      if (pass.ask === undefined) return await pass.next();
      const denial = await ask(ctx, pass.call.exec, pass.ask, pass.call.signal);
      if (denial === ABORTED_DURING_POLICY) return abortedBeforeDispatch();
      return denial ?? await pass.next();
    },
  );
  return (call, next) => run({ call, next, ask: undefined }, undefined);
}

/** The `ctx.on("tools/pre-execute")` listeners as one middleware: the waterfall's decision. */
export function preSugar(ctx: Context): PreExecuteMiddleware {
  return (call) => ctx.waterfall<PreExecuteDecision>("tools/pre-execute", ALLOW, call.exec);
}

/** One middleware under the phase's rules. */
function decide(run: PreExecuteMiddleware): PassStep {
  return async (pass, next) => {
    let inner: ToolOutcome | undefined;
    const result = await run(pass.call, async () => inner = await next());
    if (result === abortedBeforeDispatch()) return result;
    if (isDecision(result)) {
      if (inner !== undefined) throw phaseError("returned a decision after calling next()");
      const decision = checkPreDecision(result);
      if (decision.kind === "deny") {
        const { reason } = decision;
        return denied(reason === "" ? `tool "${pass.call.name}" was denied by policy` : reason);
      }
      if (decision.kind === "ask") pass.ask = decision;
      return await next();
    }
    if (inner !== undefined) {
      if (result !== inner) throw phaseError("cannot replace the outcome of next()");
      return inner;
    }
    const outcome = normalizeAuthored(result);
    if (!outcome.isError) {
      throw phaseError("may only deny (an error outcome) or call next()");
    }
    return outcome;
  };
}

/** A decision rather than an outcome: it has a `kind` and no `isError`. */
function isDecision(value: unknown): boolean {
  return typeof value === "object" && value !== null && "kind" in value && !("isError" in value);
}

function phaseError(what: string): TypeError {
  return new TypeError(`a tools/pre-execute middleware ${what}`);
}
