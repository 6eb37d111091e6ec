/**
 * The `ctx.tools` service: registration (effects of the calling fiber), the model-facing schema
 * projection, guards and the execution pipeline of contracts.md §2.
 *
 * @module
 */
import { BIND_SERVICE, type Context } from "../core/context.ts";
import { describeValue, errorMessage } from "../core/error_message.ts";
import { HarnessError } from "../core/errors.ts";
import { JsonSnapshotError, type JsonValue, snapshotJson } from "../core/json.ts";
import type { AnyToolDefinition, ToolExecution } from "../tools/definition.ts";
import { aroundView } from "./_around_view.ts";
import { assertPositive, checkDefinition } from "./_checks.ts";
import { ABANDONED, settle } from "./_deadline.ts";
import { type CallState, checkRequest, makeExecution } from "./_execution.ts";
import {
  aborted,
  abortedBeforeDispatch,
  errorOutcome,
  NON_JSON_ARGS_MESSAGE,
  normalizeAuthored,
  normalizeReturn,
  thrownOutcome,
} from "./_outcome.ts";
import { ABORTED_DURING_POLICY, runPolicy, runPost } from "./_policy.ts";
import { type Entry, ToolTable } from "./_tool_table.ts";
import type { ExecuteRequest, Guard, ToolOutcome, ToolRegistry } from "./types.ts";
import { compileToolFilter, type ToolFilter } from "../tools/tool_filter.ts";

/** The slice of `ctx.jobs` the registry uses for `background: true` definitions. */
interface BackgroundWrapper {
  wrap(definition: AnyToolDefinition): AnyToolDefinition;
}

/**
 * The reserved name of the Code Mode transport tool (only `registerCodeRunner()` may use it).
 *
 * @example Usage
 * ```ts
 * import { CODE_RUNNER_NAME } from "./tool_registry.ts";
 * import { equal } from "node:assert/strict";
 * equal(CODE_RUNNER_NAME, "run_code");
 * ```
 */
export const CODE_RUNNER_NAME: string = "run_code";

/** Options of {@linkcode createToolRegistry} (and the `tools` plugin's config). */
export interface ToolRegistryOptions {
  /** Deadline for tools that declare no `timeoutMs`; `undefined` means none. @default {undefined} */
  readonly defaultTimeoutMs?: number;
  /**
   * How long a body may ignore its aborted signal before the call is reported anyway (the body's
   * promise is then left to settle in the background, which is logged).
   * @default {2000}
   */
  readonly abortGraceMs?: number;
}

/**
 * Creates the `ctx.tools` service. Events are dispatched through `ctx` (the providing plugin's
 * context); each caller gets a view whose `register()`/`guard()` are effects of its own fiber.
 * Most code uses the `tools` plugin or `createHarness()` instead.
 *
 * @param ctx The context events and the optional `approval` service are read from.
 * @param options Deadlines.
 * @returns The service (provide it as `tools`).
 * @throws {RangeError} When an option is not a positive finite number.
 *
 * @example Usage
 * ```ts
 * import { Context } from "../core/context.ts";
 * import { createToolRegistry } from "./tool_registry.ts";
 * import { deepEqual } from "node:assert/strict";
 * const ctx = new Context();
 * const tools = createToolRegistry(ctx);
 * tools.register({
 *   name: "echo",
 *   description: "Echo",
 *   parameters: { type: "object" },
 *   execute: (args: { text: string }) => [{ type: "text", text: args.text }],
 * });
 * const outcome = await tools.execute({ callId: "c1", name: "echo", arguments: { text: "hi" } });
 * deepEqual(outcome, { isError: false, content: [{ type: "text", text: "hi" }] });
 * ```
 */
export function createToolRegistry(
  ctx: Context,
  options: ToolRegistryOptions = {},
): ToolRegistry {
  checkRegistryOptions(options);
  const { defaultTimeoutMs, abortGraceMs = 2000 } = options;
  return new ToolRegistryService(ctx, defaultTimeoutMs, abortGraceMs).bind(ctx);
}

/**
 * Validates {@linkcode ToolRegistryOptions} without creating anything.
 *
 * @param options The options.
 * @throws {RangeError} When an option is not a positive finite number.
 *
 * @example Usage
 * ```ts
 * import { checkRegistryOptions } from "./tool_registry.ts";
 * import { throws } from "node:assert/strict";
 * throws(() => checkRegistryOptions({ abortGraceMs: 0 }), RangeError);
 * ```
 */
export function checkRegistryOptions(options: ToolRegistryOptions): void {
  if (options.defaultTimeoutMs !== undefined) {
    assertPositive("defaultTimeoutMs", options.defaultTimeoutMs);
  }
  if (options.abortGraceMs !== undefined) assertPositive("abortGraceMs", options.abortGraceMs);
}

class ToolRegistryService {
  readonly #ctx: Context;
  readonly #defaultTimeoutMs: number | undefined;
  readonly #graceMs: number;
  #guards: readonly Guard[] = [];
  readonly #lifetimes = new WeakMap<Context, Lifetime>();
  readonly #table = new ToolTable(CODE_RUNNER_NAME);

  constructor(ctx: Context, defaultTimeoutMs: number | undefined, graceMs: number) {
    this.#ctx = ctx;
    this.#defaultTimeoutMs = defaultTimeoutMs;
    this.#graceMs = graceMs;
  }

  /** The caller-bound view (`register`/`guard` become effects of `caller`'s fiber). */
  bind(caller: Context): ToolRegistry & { [BIND_SERVICE](ctx: Context): ToolRegistry } {
    return {
      register: (definition, options) =>
        this.#register(caller, definition, false, checkScope("register a tool", options?.scope)),
      registerCodeRunner: (definition) => this.#register(caller, definition, true, undefined),
      get: (name, options) => this.#table.resolve(name, options?.scope)?.definition,
      list: (options) => this.#table.list(options?.scope),
      schemas: (options) => this.#table.schemas(options?.mode ?? "native", options?.scope),
      guard: (guard) => this.#guard(caller, guard),
      restrict: (filter, options) =>
        this.#restrict(caller, filter, checkScope("restrict tools", options?.scope)),
      execute: (request) => this.#execute(request, caller),
      isConcurrencySafe: (name, args, options) =>
        this.#isConcurrencySafe(name, args, options?.scope),
      [BIND_SERVICE]: (ctx: Context) => this.bind(ctx),
    };
  }

  #register(
    caller: Context,
    definition: AnyToolDefinition,
    codeRunner: boolean,
    scope: string | undefined,
  ): () => void {
    if (definition.background === true) {
      // The jobs layer (when loaded) adds `run_in_background`; wrapping is idempotent.
      definition = caller.get<BackgroundWrapper>("jobs")?.wrap(definition) ?? definition;
    }
    const schema = checkDefinition(definition);
    const name = definition.name;
    if (codeRunner && name !== CODE_RUNNER_NAME) {
      throw new TypeError(
        `Cannot register a code runner named ${
          JSON.stringify(name)
        }: the code runner must be named "${CODE_RUNNER_NAME}"`,
      );
    }
    if (!codeRunner && name === CODE_RUNNER_NAME) {
      throw new HarnessError(
        "RESERVED_TOOL",
        `tool "${CODE_RUNNER_NAME}" is reserved for the Code Mode runner: use registerCodeRunner()`,
      );
    }
    if (this.#table.has(name, scope)) {
      throw new HarnessError(
        "DUPLICATE_TOOL",
        `tool "${name}" is already registered in this scope`,
      );
    }
    const entry: Entry = { definition, schema };
    const dispose = caller.effect(() => {
      const remove = this.#table.add(name, entry, scope);
      this.#ctx.emit("tools/changed");
      return () => {
        if (remove()) this.#ctx.emit("tools/changed");
      };
    });
    return () => void dispose();
  }

  #guard(caller: Context, guard: Guard): () => void {
    if (typeof guard !== "function") {
      throw new TypeError(
        `Cannot add a guard: expected a function, received ${describeValue(guard)}`,
      );
    }
    const dispose = caller.effect(() => {
      this.#guards = [...this.#guards, guard];
      return () => {
        this.#guards = this.#guards.filter((g) => g !== guard);
      };
    });
    return () => void dispose();
  }

  #restrict(caller: Context, filter: ToolFilter, scope: string | undefined): () => void {
    const visible = compileToolFilter(filter, "filter");
    const dispose = caller.effect(() => {
      const remove = this.#table.mask(visible, scope);
      this.#ctx.emit("tools/changed");
      return () => {
        remove();
        this.#ctx.emit("tools/changed");
      };
    });
    return () => void dispose();
  }

  #isConcurrencySafe(name: string, args: unknown, scope: string | undefined): boolean {
    const classify = this.#table.resolve(name, scope)?.definition.isConcurrencySafe;
    if (classify === undefined) return false;
    try {
      return classify(args) === true;
    } catch {
      return false;
    }
  }

  /**
   * Never rejects: the request is read once (a throwing getter gives an error outcome), and any
   * fault of the pipeline itself becomes an error outcome instead of a rejection.
   */
  #execute(request: ExecuteRequest, caller: Context): Promise<ToolOutcome> {
    let copy: ExecuteRequest;
    try {
      copy = readRequest(request);
    } catch (error) {
      return Promise.resolve(
        errorOutcome(`tool execution request could not be read: ${errorMessage(error)}`, {
          name: "TypeError",
        }),
      );
    }
    const failed = (error: unknown): ToolOutcome => {
      this.#ctx.logger.error(`call to a tool failed inside the registry: ${errorMessage(error)}`);
      return errorOutcome(`tool execution failed: ${errorMessage(error)}`);
    };
    try {
      const lifetime = this.#lifetime(caller);
      // A signal that is not an AbortSignal is named by checkRequest() in #run.
      const signal = copy?.signal instanceof AbortSignal
        ? lifetime.with(copy.signal)
        : lifetime.signal;
      return this.#run(copy, signal).catch(failed);
    } catch (error) {
      return Promise.resolve(failed(error));
    }
  }

  /**
   * A signal aborted when `caller`'s fiber is disposed (or restarts), so its running calls end
   * with `ABORTED` and later calls through its stale view with `ABORTED_BEFORE_DISPATCH`.
   */
  #lifetime(caller: Context): Lifetime {
    const known = this.#lifetimes.get(caller);
    if (known !== undefined) return known;
    const controller = new AbortController();
    const lifetime = new Lifetime(controller.signal);
    this.#lifetimes.set(caller, lifetime);
    const reason = () =>
      new DOMException("the fiber that started the call was disposed", "AbortError");
    try {
      caller.effect(() => () => controller.abort(reason()));
    } catch {
      // The context is no longer active: its fiber is already gone.
      controller.abort(reason());
    }
    return lifetime;
  }

  async #run(request: ExecuteRequest, signal: AbortSignal): Promise<ToolOutcome> {
    const ctx = this.#ctx;
    const malformed = checkRequest(request);
    if (malformed !== undefined) return errorOutcome(malformed, { name: "TypeError" });
    const name = request.name;
    // Generation pinning: the call runs on the definition visible now, whatever happens later.
    const entry = this.#table.resolve(name, request.agent?.sessionId);
    const state: CallState = {
      abortable: true,
      deferred: undefined,
      settled: false,
      published: false,
      bodyOutcome: undefined,
    };
    let args: JsonValue;
    try {
      args = snapshotJson(request.arguments);
    } catch (error) {
      // The contract text, then the offending path and the value's kind, so the model can fix
      // the call.
      const problem = error instanceof JsonSnapshotError
        ? error.describe("arguments")
        : `the arguments could not be read (${errorMessage(error).slice(0, 200)})`;
      ctx.logger.debug(`call "${request.callId}" to "${name}": ${errorMessage(error)}`);
      return this.#publish(
        makeExecution(request, name, null, signal, state, ctx),
        errorOutcome(`${NON_JSON_ARGS_MESSAGE}: ${problem}`, { code: "INVALID_ARGS" }),
        state,
      );
    }
    const exec = makeExecution(request, name, args, signal, state, ctx);
    if (request.mode === "code" && name !== CODE_RUNNER_NAME && entry !== undefined) {
      return this.#publish(
        exec,
        errorOutcome(
          `unknown tool "${name}": only \`${CODE_RUNNER_NAME}\` is callable directly — call \`${name}\` from inside a \`${CODE_RUNNER_NAME}\` program instead`,
          { code: "UNKNOWN_TOOL", name: "ToolNotFoundError" },
        ),
        state,
      );
    }
    let outcome: ToolOutcome | undefined;
    try {
      if (entry === undefined) {
        outcome = errorOutcome(`unknown tool "${name}"`, {
          code: "UNKNOWN_TOOL",
          name: "ToolNotFoundError",
        });
      } else {
        if (signal.aborted) return this.#publish(exec, abortedBeforeDispatch(), state);
        const policy = ctx.listenerCount("tools/pre-execute") > 0 || this.#guards.length > 0
          ? await runPolicy(ctx, this.#guards, exec, signal)
          : undefined;
        if (policy === ABORTED_DURING_POLICY || (policy === undefined && signal.aborted)) {
          return this.#publish(exec, abortedBeforeDispatch(), state);
        }
        outcome = policy ?? await this.#dispatch(entry.definition, exec, signal, state);
      }
      if (ctx.listenerCount("tools/post-execute") > 0) outcome = await runPost(ctx, exec, outcome);
    } catch (error) {
      outcome = thrownOutcome(error, state.deferred);
    }
    return this.#publish(exec, outcome, state);
  }

  /** The `tools/execute` around chain (skipped without wrappers) and the body. */
  #dispatch(
    definition: AnyToolDefinition,
    exec: ToolExecution,
    callerSignal: AbortSignal,
    state: CallState,
  ): Promise<ToolOutcome> {
    if (this.#ctx.listenerCount("tools/execute") === 0) {
      return this.#body(definition, exec, callerSignal, callerSignal, state);
    }
    const { view, target } = aroundView(exec);
    return this.#ctx.around(
      "tools/execute",
      view,
      () => this.#body(definition, exec, callerSignal, target.signal, state),
    ).then((result) => result === state.bodyOutcome ? result : normalizeAuthored(result));
  }

  async #body(
    definition: AnyToolDefinition,
    exec: ToolExecution,
    callerSignal: AbortSignal,
    wrapperSignal: AbortSignal,
    state: CallState,
  ): Promise<ToolOutcome> {
    const name = exec.name;
    const timeoutMs = definition.timeoutMs ?? this.#defaultTimeoutMs;
    const timeout = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
    const sources = wrapperSignal === callerSignal ? [callerSignal] : [callerSignal, wrapperSignal];
    if (timeout !== undefined) sources.push(timeout);
    const composed = sources.length > 1;
    const signal = composed ? AbortSignal.any(sources) : callerSignal;
    const bodyExec = signal === exec.signal ? exec : Object.freeze({ ...exec, signal });
    const timedOut = () =>
      thrownOutcome(
        new HarnessError("TOOL_TIMEOUT", `tool "${name}" timed out after ${timeoutMs} ms`),
        state.deferred,
      );
    let outcome: ToolOutcome;
    try {
      const returned = definition.execute(exec.arguments, bodyExec);
      const value = !isThenable(returned)
        ? returned
        : state.abortable || composed
        ? await settle(Promise.resolve(returned), signal, {
          name,
          graceMs: this.#graceMs,
          logger: this.#ctx.logger,
        })
        : await returned;
      if (timeout?.aborted) {
        outcome = timedOut();
      } else if (value === ABANDONED) {
        state.abandoned = true;
        outcome = callerSignal.aborted
          ? aborted(state.deferred)
          : thrownOutcome(signal.reason, state.deferred);
      } else {
        try {
          outcome = normalizeReturn(name, value, state.deferred);
        } catch (error) {
          outcome = errorOutcome(errorMessage(error), {
            code: "TOOL_ERROR",
            additionalContexts: state.deferred,
          });
        }
        // Only a success is overwritten by ABORTED; a malformed result stays the tool's failure.
        if (!outcome.isError && callerSignal.aborted) {
          this.#dropBackgroundStart(exec, outcome, state);
          outcome = aborted(state.deferred);
        }
      }
    } catch (error) {
      if (timeout?.aborted) {
        outcome = timedOut();
      } else if (callerSignal.aborted && (error === callerSignal.reason || isAbortError(error))) {
        outcome = aborted(state.deferred);
      } else {
        outcome = thrownOutcome(error, state.deferred);
      }
    } finally {
      state.settled = true;
    }
    state.bodyOutcome = outcome;
    return outcome;
  }

  /**
   * contracts.md §7, "no id is left behind": a background start whose call was aborted before
   * its id could be returned is killed, and the ABORTED result names the killed job.
   */
  #dropBackgroundStart(exec: ToolExecution, outcome: ToolOutcome, state: CallState): void {
    const jobId = backgroundJobId(outcome.meta);
    if (jobId === undefined) return;
    const jobs = this.#ctx.get<JobKiller>("jobs");
    const reason = "the call that started it was aborted before it could return the job id";
    jobs?.kill(jobId, { reason }).catch((error) => {
      this.#ctx.logger.warn(`Cannot kill background job ${jobId}: ${errorMessage(error)}`);
    });
    (state.deferred ??= []).push(Object.freeze([Object.freeze({
      type: "text" as const,
      text: `background job ${jobId} (${exec.name}) was started and then killed: ${reason}`,
    })]));
  }

  #publish(exec: ToolExecution, outcome: ToolOutcome, state: CallState): ToolOutcome {
    state.settled = true;
    state.published = true;
    if (this.#ctx.listenerCount("tools/result") > 0) this.#ctx.emit("tools/result", exec, outcome);
    return outcome;
  }
}

/**
 * The signal of one caller's fiber, and its composition with caller signals: one
 * `AbortSignal.any` per distinct caller signal (an agent turn's), not one per call.
 */
class Lifetime {
  readonly signal: AbortSignal;
  readonly #composed = new WeakMap<AbortSignal, AbortSignal>();

  constructor(signal: AbortSignal) {
    this.signal = signal;
  }

  /** `AbortSignal.any([signal, this.signal])`, shared by every call with the same `signal`. */
  with(signal: AbortSignal): AbortSignal {
    let composed = this.#composed.get(signal);
    if (composed === undefined) {
      composed = AbortSignal.any([signal, this.signal]);
      this.#composed.set(signal, composed);
    }
    return composed;
  }
}

/** The slice of `ctx.jobs` used to kill an orphaned background start. */
interface JobKiller {
  kill(id: string, options: { readonly reason?: string }): Promise<unknown>;
}

/** The job id of a background-start handle (`meta: { kind: "background", jobId }`), if it is one. */
function backgroundJobId(meta: JsonValue | undefined): string | undefined {
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return undefined;
  const { kind, jobId } = meta as { readonly kind?: JsonValue; readonly jobId?: JsonValue };
  return kind === "background" && typeof jobId === "string" ? jobId : undefined;
}

/**
 * Reads every request field exactly once into a plain object (a getter runs once; a throwing
 * getter throws here). A non-object is returned as is for {@linkcode checkRequest} to name.
 */
function readRequest(request: ExecuteRequest): ExecuteRequest {
  if (typeof request !== "object" || request === null) return request;
  const copy: { -readonly [K in keyof ExecuteRequest]: ExecuteRequest[K] } = {
    callId: request.callId,
    name: request.name,
    arguments: request.arguments,
  };
  const { signal, agent, parent, mode, onOutput } = request;
  if (signal !== undefined) copy.signal = signal;
  if (agent !== undefined) copy.agent = agent;
  if (parent !== undefined) copy.parent = parent;
  if (mode !== undefined) copy.mode = mode;
  if (onOutput !== undefined) copy.onOutput = onOutput;
  return copy;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}

function isAbortError(error: unknown): boolean {
  try {
    return error instanceof Error && error.name === "AbortError";
  } catch {
    return false;
  }
}

/** Checks an optional `scope` option: a non-empty string (a session id) or `undefined`. */
function checkScope(action: string, scope: unknown): string | undefined {
  if (scope === undefined || (typeof scope === "string" && scope !== "")) return scope;
  throw new TypeError(
    `Cannot ${action}: scope is ${describeValue(scope)}, expected a non-empty session id string`,
  );
}
