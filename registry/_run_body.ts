/**
 * Running one tool body (docs/contracts.md §2 step 6): the execution it receives, its deadline, its
 * abort grace and the normalization of what it returned. The registry's chain calls it innermost.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import { HarnessError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { AnyToolDefinition, ExecuteReturn, ToolExecution } from "../tools/definition.ts";
import { ToolArgsError } from "../tools/tool_args_error.ts";
import type { CallRecord } from "./tool_call.ts";
import {
  aborted,
  errorOutcome,
  normalizeReturn,
  thrownOutcome,
  type ToolOutcome,
} from "../tools/outcome.ts";

/** What the body step needs from the registry. */
export interface BodyOptions {
  /** Deadline for tools without `timeoutMs`. */
  readonly defaultTimeoutMs: number | undefined;
  /** How long a body may ignore its aborted signal. */
  readonly graceMs: number;
  readonly logger: Logger;
  /** Whether a success after the caller aborted becomes `ABORTED` here (no layer does it outside). */
  readonly abortSuccess: boolean;
}

/**
 * Runs the body of `call` with `signal` (the wrapper's, when an around wrapper replaced it):
 * the body sees `AbortSignal.any` of the caller's signal, that one and the deadline.
 */
export async function runBody(
  call: CallRecord,
  wrapperSignal: AbortSignal,
  options: BodyOptions,
): Promise<ToolOutcome> {
  const definition = call.definition!;
  const name = call.name;
  const timeoutMs = definition.timeoutMs ?? options.defaultTimeoutMs;
  const callerSignal = call.signal;
  const timeout = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
  let signal = callerSignal;
  if (timeout !== undefined || wrapperSignal !== callerSignal) {
    const sources = wrapperSignal === callerSignal ? [callerSignal] : [callerSignal, wrapperSignal];
    if (timeout !== undefined) sources.push(timeout);
    signal = AbortSignal.any(sources);
  }
  const composed = signal !== callerSignal;
  const exec = composed ? Object.freeze({ ...call.exec, signal }) : call.exec;
  let outcome: ToolOutcome;
  try {
    const returned = dispatch(definition, call, exec);
    const value = !isThenable(returned)
      ? returned
      : call.abortable || composed
      ? await settle(Promise.resolve(returned), signal, name, options)
      : await returned;
    if (timeout?.aborted) {
      outcome = timedOut(call, timeoutMs!);
    } else if (value === ABANDONED) {
      call.abandoned = true;
      outcome = callerSignal.aborted
        ? aborted(call.deferred)
        : thrownOutcome(signal.reason, call.deferred);
    } else {
      try {
        outcome = normalizeReturn(name, value, call.deferred);
      } catch (error) {
        outcome = errorOutcome(errorMessage(error), {
          code: "TOOL_ERROR",
          additionalContexts: call.deferred,
        });
      }
      // Only a success is overwritten by ABORTED; a malformed result stays the tool's failure.
      if (options.abortSuccess && !outcome.isError && callerSignal.aborted) {
        outcome = aborted(call.deferred);
      }
    }
  } catch (error) {
    if (timeout?.aborted) {
      outcome = timedOut(call, timeoutMs!);
    } else if (callerSignal.aborted && (error === callerSignal.reason || isAbortError(error))) {
      outcome = aborted(call.deferred);
    } else {
      outcome = thrownOutcome(error, call.deferred);
    }
  } finally {
    call.settled = true;
  }
  return outcome;
}

/**
 * Calls the body: a `defineTool` body with the call's validated `args` (no second check), or the
 * definition's `execute` with the arguments (raw tools, wrappers, asynchronous schemas).
 */
function dispatch(
  definition: AnyToolDefinition,
  call: CallRecord,
  exec: ToolExecution,
): ExecuteReturn | Promise<ExecuteReturn> {
  const typed = definition.validated;
  const validation = call.validation;
  if (typed === undefined || (!validation.ok && validation.pending)) {
    return definition.execute(call.arguments, exec);
  }
  if (!validation.ok) throw new ToolArgsError(validation.violations);
  return typed.execute(call.args, exec);
}

function timedOut(call: CallRecord, timeoutMs: number): ToolOutcome {
  const error = new HarnessError(
    "TOOL_TIMEOUT",
    `tool "${call.name}" timed out after ${timeoutMs} ms`,
  );
  return thrownOutcome(error, call.deferred);
}

/** What {@linkcode settle} resolves to when the body outlived its grace period. */
const ABANDONED: unique symbol = Symbol("abandoned");

/** Awaits the body; once `signal` aborts, waits at most the grace period, then {@linkcode ABANDONED}. */
function settle(
  promise: Promise<unknown>,
  signal: AbortSignal,
  name: string,
  { graceMs, logger }: BodyOptions,
): Promise<unknown> {
  const { promise: result, resolve, reject } = Promise.withResolvers<unknown>();
  let grace: ReturnType<typeof setTimeout> | undefined;
  let settled = false;
  const onAbort = () => {
    // Deno may run microtasks between a timeout signal's abort listeners, so the body can have
    // settled (and the finally below run) before this listener is reached…
    if (settled) return;
    const timer = setTimeout(() => {
      logger.warn(
        `tool "${name}" ignored its aborted signal for ${graceMs} ms; its promise is left to settle in the background`,
      );
      promise.then(
        () => logger.info(`abandoned tool "${name}" settled after all`),
        (error) => logger.info(`abandoned tool "${name}" failed after all: ${errorMessage(error)}`),
      );
      resolve(ABANDONED);
    }, graceMs);
    // …and setTimeout() itself may run them: the body can settle while the timer is created.
    if (settled) clearTimeout(timer);
    else grace = timer;
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  promise.then(resolve, reject);
  return result.finally(() => {
    settled = true;
    signal.removeEventListener("abort", onAbort);
    if (grace !== undefined) clearTimeout(grace);
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null &&
    "then" in value && typeof value.then === "function";
}

function isAbortError(error: unknown): boolean {
  try {
    return error instanceof Error && error.name === "AbortError";
  } catch {
    return false;
  }
}
