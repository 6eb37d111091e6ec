/**
 * The hook vocabulary of a tool call (`tools/pre-execute`, `guard()`, `tools/execute`,
 * `tools/post-execute`, `tools/result`) and its policy phases: pre-execute with approval, guards,
 * and post-execute (docs/contracts.md §2 steps 3, 4 and 7). The registry's chain runs them.
 *
 * @module
 */
import { describeValue } from "../core/error_message.ts";
import type { Context } from "../core/context.ts";
import type { ContentBlock } from "../tools/content.ts";
import type { ToolExecution } from "../tools/definition.ts";
import {
  abortedBeforeDispatch,
  errorOutcome,
  feedbackText,
  materializeContent,
  materializeContexts,
  normalizeAuthored,
  successOutcome,
  type ToolOutcome,
} from "../tools/outcome.ts";

/**
 * The phases of a tool call, outermost first: the order `ctx.tools.use(phase, middleware)` composes
 * middleware in (by phase, then by installation). `route` runs before everything (Code Mode's
 * direct-call denial; its outcome skips post-execute); `tools/post-execute` wraps the policy and the
 * body; `tools/pre-execute` allows (calls `next()`), denies or asks; `guard` is the final monotonic
 * deny; `tools/execute` wraps dispatch and may only change the signal (`next(signal)`); `body` wraps
 * the tool body (background jobs); `tools/result` observes the published, immutable outcome.
 *
 * @example Usage
 * ```ts
 * import { TOOL_PHASES } from "./hooks.ts";
 * import { equal } from "node:assert/strict";
 * equal(TOOL_PHASES.indexOf("guard") > TOOL_PHASES.indexOf("tools/pre-execute"), true);
 * ```
 */
export const TOOL_PHASES: readonly ToolPhase[] = Object.freeze([
  "tools/result",
  "route",
  "tools/post-execute",
  "tools/pre-execute",
  "guard",
  "tools/execute",
  "body",
]);

/** One phase of {@linkcode TOOL_PHASES}. */
export type ToolPhase =
  | "tools/result"
  | "route"
  | "tools/post-execute"
  | "tools/pre-execute"
  | "guard"
  | "tools/execute"
  | "body";

/**
 * What an "Always allow" answer to an `ask` covers; without one it covers the whole tool. The
 * fs policies scope asks about a path outside the workspace to its folder and asks about a
 * protected path to that path.
 */
export interface ApprovalScope {
  /** Remembered with the tool name: another ask with the same key is not asked again. */
  readonly key: string;
  /** Names the scope on the prompt's "always" choices, for example `reads in "/etc"`. */
  readonly label: string;
}

/** A `tools/pre-execute` decision. */
export type PreExecuteDecision =
  | { readonly kind: "allow" }
  | { readonly kind: "deny"; readonly reason: string }
  | { readonly kind: "ask"; readonly reason?: string; readonly scope?: ApprovalScope };

/**
 * A `tools/pre-execute` waterfall listener: returns a new decision or `undefined` to keep the current one.
 * Registered with `ctx.on("tools/pre-execute", listener)`.
 */
export type PreExecuteListener = (
  decision: PreExecuteDecision,
  exec: ToolExecution,
) => PreExecuteDecision | undefined | Promise<PreExecuteDecision | undefined>;

/** A synchronous, monotonic guard: a string denies with that reason. */
export type Guard = (exec: ToolExecution) => string | undefined;

/** The view an around-dispatch wrapper gets: frozen identity plus a replaceable `signal`. */
export interface AroundExecution extends Omit<ToolExecution, "signal"> {
  /** The only mutable field; the body gets `AbortSignal.any` of it and the caller's signal. */
  signal: AbortSignal;
}

/**
 * A `tools/execute` around wrapper, onion-style: `next()` runs the rest of the chain and the body.
 * Registered with `ctx.on("tools/execute", wrapper)`.
 */
export type AroundWrapper = (
  exec: AroundExecution,
  next: () => Promise<ToolOutcome>,
) => Promise<ToolOutcome>;

/** A `tools/post-execute` decision. */
export type PostExecuteDecision =
  | {
    readonly kind: "accept";
    readonly content?: readonly ContentBlock[];
    readonly additionalContexts?: readonly (readonly ContentBlock[])[];
  }
  | { readonly kind: "block"; readonly feedback: readonly ContentBlock[] };

/**
 * A `tools/post-execute` waterfall listener.
 * Registered with `ctx.on("tools/post-execute", listener)`.
 */
export type PostExecuteListener = (
  decision: PostExecuteDecision,
  exec: ToolExecution,
  outcome: ToolOutcome,
) => PostExecuteDecision | undefined | Promise<PostExecuteDecision | undefined>;

/** A `tools/result` observer: sees the frozen execution and outcome; cannot change them. */
export type ResultObserver = (exec: ToolExecution, outcome: ToolOutcome) => void;

/** Approval answers. */
export type ApprovalOutcome =
  | "allowed-once"
  | "allowed-always"
  | "rejected"
  | "cancelled"
  | "unavailable";

/** The optional `ctx.approval` service an `ask` decision is routed to (the ACP bridge provides one). */
export interface ApprovalService {
  /** Asks the user about one call. */
  request(
    exec: ToolExecution,
    options: { readonly reason?: string; readonly scope?: ApprovalScope },
  ): Promise<ApprovalOutcome>;
}

/** What {@linkcode ask} answers when approval was cancelled because the caller aborted. */
export const ABORTED_DURING_POLICY: unique symbol = Symbol("aborted during policy");

const ACCEPT: PostExecuteDecision = Object.freeze({ kind: "accept" });

/**
 * Runs one guard: its denial outcome, or `undefined` when it passes.
 *
 * @throws {TypeError} When the guard returns something other than a string or `undefined`.
 */
export function runGuard(guard: Guard, exec: ToolExecution): ToolOutcome | undefined {
  const reason: unknown = guard(exec);
  if (reason === undefined) return undefined;
  if (typeof reason !== "string") {
    throw new TypeError(
      `a tools guard returned ${
        describeValue(reason)
      }: expected a string (deny) or undefined (pass)`,
    );
  }
  return denied(reason === "" ? `tool "${exec.name}" was denied by a guard` : reason);
}

/**
 * Routes an `ask` to `ctx.approval`: `undefined` means approved, otherwise the denial, or
 * {@linkcode ABORTED_DURING_POLICY} when approval was cancelled because the caller aborted.
 */
export async function ask(
  ctx: Context,
  exec: ToolExecution,
  decision: { readonly reason?: string; readonly scope?: ApprovalScope },
  signal: AbortSignal,
): Promise<ToolOutcome | typeof ABORTED_DURING_POLICY | undefined> {
  const { name } = exec;
  const { reason, scope } = decision;
  const approval = ctx.get<ApprovalService>("approval");
  if (approval === undefined) {
    return denied(reason ?? `tool "${name}" requires approval (not yet supported)`);
  }
  if (exec.agent === undefined) {
    return denied(
      `tool "${name}" requires approval, but the call has no agent to route it through`,
    );
  }
  const answer = await approval.request(exec, {
    ...(reason === undefined ? {} : { reason }),
    ...(scope === undefined ? {} : { scope }),
  });
  switch (answer) {
    case "allowed-once":
    case "allowed-always":
      return undefined;
    case "rejected":
      return denied(`the user rejected tool "${name}"`);
    case "cancelled":
      return signal.aborted
        ? ABORTED_DURING_POLICY
        : denied(`approval for tool "${name}" was cancelled`);
    case "unavailable":
      return denied(`tool "${name}" requires approval, but no approval channel is available`);
    default:
      throw new TypeError(
        `the approval service answered ${
          describeValue(answer)
        }: expected "allowed-once", "allowed-always", "rejected", "cancelled" or "unavailable"`,
      );
  }
}

/** The `tools/post-execute` waterfall applied to `outcome`. */
export async function runPost(
  ctx: Context,
  exec: ToolExecution,
  outcome: ToolOutcome,
): Promise<ToolOutcome> {
  const decision = checkPostDecision(
    await ctx.waterfall<unknown>("tools/post-execute", ACCEPT, exec, outcome),
  );
  if (decision.kind === "block") {
    const feedback = materializeContent(
      decision.feedback,
      "tools/post-execute returned invalid feedback",
    );
    const text = feedbackText(feedback);
    return errorOutcome(text === "" ? "tool result blocked by post-execute policy" : text, {
      code: "DENIED",
    });
  }
  if (decision.content === undefined && decision.additionalContexts === undefined) return outcome;
  const content = decision.content === undefined
    ? outcome.content
    : materializeContent(decision.content, "tools/post-execute returned invalid content");
  const added = decision.additionalContexts === undefined ? [] : materializeContexts(
    decision.additionalContexts,
    "tools/post-execute returned invalid additionalContexts",
  );
  const contexts = [...(outcome.additionalContexts ?? []), ...added];
  if (!outcome.isError) return successOutcome(content, outcome.meta, contexts);
  return Object.freeze({
    ...outcome,
    content,
    ...(contexts.length > 0 ? { additionalContexts: Object.freeze(contexts) } : {}),
  });
}

/** The `DENIED` outcome of `reason`. */
export function denied(reason: string): ToolOutcome {
  return errorOutcome(reason, { code: "DENIED" });
}

/**
 * `value` as a `tools/pre-execute` decision.
 *
 * @throws {TypeError} When it is not `{kind: "allow"}`, `{kind: "deny", reason}` or `{kind: "ask", reason?, scope?}`.
 */
export function checkPreDecision(value: unknown): PreExecuteDecision {
  if (isPreDecision(value)) return value;
  const shown = describeValue(value);
  throw new TypeError(
    `tools/pre-execute produced an invalid decision ${shown}: expected {kind: "allow"}, {kind: "deny", reason} or {kind: "ask", reason?}`,
  );
}

function isPreDecision(d: unknown): d is PreExecuteDecision {
  if (!isRecord(d)) return false;
  const { kind, reason, scope } = d;
  if (kind === "allow" || kind === "deny") return kind === "allow" || typeof reason === "string";
  const scoped = scope === undefined ||
    (isRecord(scope) && typeof scope.key === "string" && typeof scope.label === "string");
  return kind === "ask" && (reason === undefined || typeof reason === "string") && scoped;
}

function checkPostDecision(value: unknown): PostExecuteDecision {
  if (isRecord(value) && (value.kind === "accept" || value.kind === "block")) {
    return value as PostExecuteDecision;
  }
  const shown = describeValue(value);
  throw new TypeError(
    `tools/post-execute produced an invalid decision ${shown}: expected {kind: "accept", content?, additionalContexts?} or {kind: "block", feedback}`,
  );
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null;
}

/** A middleware as the phase rules see it (the registry's `ToolMiddleware`, any call type). */
export type PhaseMiddleware = (
  // deno-lint-ignore no-explicit-any
  call: any,
  next: (signal?: AbortSignal) => Promise<ToolOutcome>,
) => Promise<ToolOutcome> | ToolOutcome;

/** What each phase lets its middleware do (docs/contracts.md §2). */
export const PHASE_RULES: { readonly [P in ToolPhase]: (run: PhaseMiddleware) => PhaseMiddleware } =
  {
    "tools/result": () => (_call, next) => next(),
    route: (run) => async (call, next) => await run(call, next),
    "tools/post-execute": (run) => async (call, next) => {
      let inner: ToolOutcome | undefined;
      const result = await run(call, async (signal) => inner = await next(signal));
      if (inner === undefined) throw phaseError("tools/post-execute", "must call next()");
      if (result === inner || inner === abortedBeforeDispatch()) return inner;
      const outcome = normalizeAuthored(result);
      if (inner.isError && !outcome.isError) {
        throw phaseError("tools/post-execute", "cannot turn a failure into a success");
      }
      return outcome;
    },
    "tools/pre-execute": (run) => denyOrNext("tools/pre-execute", run),
    guard: (run) => denyOrNext("guard", run),
    "tools/execute": (run) => async (call, next) => {
      let inner: ToolOutcome | undefined;
      const result = await run(call, async (signal) => {
        if (signal !== undefined && !(signal instanceof AbortSignal)) {
          throw new TypeError(
            `a tools/execute middleware passed ${
              describeValue(signal)
            } to next(): expected an AbortSignal`,
          );
        }
        return inner = await next(signal);
      });
      return result === inner ? result : normalizeAuthored(result);
    },
    body: (run) => async (call, next) => await run(call, next),
  };

/** A policy phase: `next()` and its outcome unchanged, or a denial (an error) without `next()`. */
function denyOrNext(phase: ToolPhase, run: PhaseMiddleware): PhaseMiddleware {
  return async (call, next) => {
    let inner: ToolOutcome | undefined;
    const result = await run(call, async () => inner = await next());
    if (result === abortedBeforeDispatch()) return result;
    if (inner !== undefined) {
      if (result !== inner) throw phaseError(phase, "cannot replace the outcome of next()");
      return inner;
    }
    const outcome = normalizeAuthored(result);
    if (!outcome.isError) {
      throw phaseError(phase, "may only deny (an error outcome) or call next()");
    }
    return outcome;
  };
}

function phaseError(phase: ToolPhase, what: string): TypeError {
  return new TypeError(`a ${phase} middleware ${what}`);
}
