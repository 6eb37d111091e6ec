/**
 * The `ctx.tools` service: registration (effects of the calling fiber), the model-facing schema
 * projection, guards and the execution pipeline of contracts.md §2.
 *
 * @module
 */
import { BIND_SERVICE, type Context } from "../core/context.ts";
import { errorMessage } from "../core/error_message.ts";
import { HarnessError } from "../core/errors.ts";
import { type JsonValue, snapshotJson } from "../core/json.ts";
import type { ContentBlock } from "../tools/content.ts";
import type { AnyToolDefinition, JsonSchema, ToolExecution } from "../tools/definition.ts";
import { TOOL_NAME_REGEXP } from "../tools/define_tool.ts";
import { aroundView } from "./_around_view.ts";
import { addDeadline } from "./_deadline.ts";
import {
  aborted,
  abortedBeforeDispatch,
  describe,
  errorOutcome,
  feedbackText,
  materializeContent,
  materializeContexts,
  normalizeAuthored,
  normalizeReturn,
  successOutcome,
  thrownOutcome,
} from "./_outcome.ts";
import type {
  ApprovalService,
  ExecuteRequest,
  Guard,
  PostExecuteDecision,
  PreExecuteDecision,
  ToolMode,
  ToolOutcome,
  ToolRegistry,
  ToolSchema,
} from "./types.ts";

/** The slice of `ctx.jobs` the registry uses for `background: true` definitions. */
interface BackgroundWrapper {
  wrap(definition: AnyToolDefinition): AnyToolDefinition;
}

/** The reserved name of the Code Mode transport tool. */
export const CODE_RUNNER_NAME = "run_code";

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

interface Entry {
  readonly definition: AnyToolDefinition;
  readonly schema: ToolSchema;
}

interface CallState {
  /** False when the caller passed no signal (nothing can abort the body but a deadline). */
  readonly abortable: boolean;
  deferred: (readonly ContentBlock[])[] | undefined;
  settled: boolean;
  bodyOutcome: ToolOutcome | undefined;
}

const ALLOW: PreExecuteDecision = Object.freeze({ kind: "allow" });
const ACCEPT: PostExecuteDecision = Object.freeze({ kind: "accept" });
const ABANDONED: unique symbol = Symbol("abandoned");

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
  readonly #tools = new Map<string, Entry>();
  #guards: readonly Guard[] = [];
  #sorted: readonly AnyToolDefinition[] | undefined;
  readonly #schemas = new Map<ToolMode, readonly ToolSchema[]>();

  constructor(ctx: Context, defaultTimeoutMs: number | undefined, graceMs: number) {
    this.#ctx = ctx;
    this.#defaultTimeoutMs = defaultTimeoutMs;
    this.#graceMs = graceMs;
  }

  /** The caller-bound view (`register`/`guard` become effects of `caller`'s fiber). */
  bind(caller: Context): ToolRegistry & { [BIND_SERVICE](ctx: Context): ToolRegistry } {
    return {
      register: (definition) => this.#register(caller, definition, false),
      registerCodeRunner: (definition) => this.#register(caller, definition, true),
      get: (name) => this.#tools.get(name)?.definition,
      list: () => this.#list(),
      schemas: (options) => this.#schemasFor(options?.mode ?? "native"),
      guard: (guard) => this.#guard(caller, guard),
      execute: (request) => this.#execute(request),
      isConcurrencySafe: (name, args) => this.#isConcurrencySafe(name, args),
      [BIND_SERVICE]: (ctx: Context) => this.bind(ctx),
    };
  }

  #register(caller: Context, definition: AnyToolDefinition, codeRunner: boolean): () => void {
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
    if (this.#tools.has(name)) {
      throw new HarnessError("DUPLICATE_TOOL", `tool "${name}" is already registered`);
    }
    const entry: Entry = { definition, schema };
    const dispose = caller.effect(() => {
      this.#tools.set(name, entry);
      this.#changed();
      return () => {
        if (this.#tools.get(name) !== entry) return;
        this.#tools.delete(name);
        this.#changed();
      };
    });
    return () => void dispose();
  }

  #changed(): void {
    this.#sorted = undefined;
    this.#schemas.clear();
    this.#ctx.emit("tools/changed");
  }

  #list(): readonly AnyToolDefinition[] {
    return this.#sorted ??= Object.freeze(
      [...this.#tools.values()].map((e) => e.definition).sort((a, b) => compare(a.name, b.name)),
    );
  }

  #schemasFor(mode: ToolMode): readonly ToolSchema[] {
    if (mode !== "native" && mode !== "code" && mode !== "both") {
      throw new TypeError(
        `Cannot list tool schemas: mode is ${describe(mode)}, expected "native", "code" or "both"`,
      );
    }
    let schemas = this.#schemas.get(mode);
    if (schemas === undefined) {
      schemas = Object.freeze(
        this.#list().filter((d) =>
          mode === "both" || (mode === "code") === (d.name === CODE_RUNNER_NAME)
        ).map((d) => this.#tools.get(d.name)!.schema),
      );
      this.#schemas.set(mode, schemas);
    }
    return schemas;
  }

  #guard(caller: Context, guard: Guard): () => void {
    if (typeof guard !== "function") {
      throw new TypeError(`Cannot add a guard: expected a function, received ${describe(guard)}`);
    }
    const dispose = caller.effect(() => {
      this.#guards = [...this.#guards, guard];
      return () => {
        this.#guards = this.#guards.filter((g) => g !== guard);
      };
    });
    return () => void dispose();
  }

  #isConcurrencySafe(name: string, args: unknown): boolean {
    const classify = this.#tools.get(name)?.definition.isConcurrencySafe;
    if (classify === undefined) return false;
    try {
      return classify(args) === true;
    } catch {
      return false;
    }
  }

  async #execute(request: ExecuteRequest): Promise<ToolOutcome> {
    const ctx = this.#ctx;
    const malformed = checkRequest(request);
    if (malformed !== undefined) return errorOutcome(malformed, { name: "TypeError" });
    const name = request.name;
    // Generation pinning: the call runs on the definition visible now, whatever happens later.
    const entry = this.#tools.get(name);
    const signal = request.signal ?? new AbortController().signal;
    const state: CallState = {
      abortable: request.signal !== undefined,
      deferred: undefined,
      settled: false,
      bodyOutcome: undefined,
    };
    let args: JsonValue;
    try {
      args = snapshotJson(request.arguments);
    } catch (error) {
      return this.#publish(
        makeExecution(request, name, null, signal, state, ctx),
        errorOutcome(
          `tool execution arguments must be losslessly JSON-serializable: ${errorMessage(error)}`,
          { code: "INVALID_ARGS" },
        ),
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
        if (ctx.listenerCount("tools/pre-execute") > 0 || this.#guards.length > 0) {
          outcome = await this.#policy(exec, signal);
        }
        if (outcome === undefined) {
          if (signal.aborted) return this.#publish(exec, abortedBeforeDispatch(), state);
          outcome = await this.#dispatch(entry.definition, exec, signal, state);
        } else if (outcome === ABORTED_BEFORE_DISPATCH_OUTCOME) {
          return this.#publish(exec, abortedBeforeDispatch(), state);
        }
      }
      if (ctx.listenerCount("tools/post-execute") > 0) outcome = await this.#post(exec, outcome);
    } catch (error) {
      outcome = thrownOutcome(error, state.deferred);
    }
    return this.#publish(exec, outcome, state);
  }

  /** Pre-execute, approval and guards: a denial outcome, the abort marker, or `undefined`. */
  async #policy(exec: ToolExecution, signal: AbortSignal): Promise<ToolOutcome | undefined> {
    const ctx = this.#ctx;
    const name = exec.name;
    if (ctx.listenerCount("tools/pre-execute") > 0) {
      const decision = checkPreDecision(
        await ctx.waterfall<unknown>("tools/pre-execute", ALLOW, exec),
      );
      if (decision.kind === "deny") {
        return denied(
          decision.reason === "" ? `tool "${name}" was denied by policy` : decision.reason,
        );
      }
      if (decision.kind === "ask") {
        const approval = ctx.get<ApprovalService>("approval");
        if (approval === undefined) {
          return denied(decision.reason ?? `tool "${name}" requires approval`);
        }
        const answer = await approval.request(
          exec,
          decision.reason === undefined ? {} : { reason: decision.reason },
        );
        switch (answer) {
          case "allowed-once":
          case "allowed-always":
            break;
          case "rejected":
            return denied(`the user rejected tool "${name}"`);
          case "cancelled":
            return signal.aborted
              ? ABORTED_BEFORE_DISPATCH_OUTCOME
              : denied(`approval for tool "${name}" was cancelled`);
          case "unavailable":
            return denied(`tool "${name}" requires approval, but no approval channel is available`);
          default:
            throw new TypeError(
              `the approval service answered ${
                describe(answer)
              }: expected "allowed-once", "allowed-always", "rejected", "cancelled" or "unavailable"`,
            );
        }
      }
    }
    const guards = this.#guards;
    for (let i = 0; i < guards.length; i++) {
      const reason: unknown = guards[i]!(exec);
      if (reason === undefined) continue;
      if (typeof reason !== "string") {
        throw new TypeError(
          `a tools guard returned ${
            describe(reason)
          }: expected a string (deny) or undefined (pass)`,
        );
      }
      return denied(reason === "" ? `tool "${name}" was denied by a guard` : reason);
    }
    return undefined;
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
    const sources = wrapperSignal === callerSignal ? [callerSignal] : [callerSignal, wrapperSignal];
    let timeout: AbortController | undefined;
    let cancelDeadline: (() => void) | undefined;
    if (timeoutMs !== undefined) {
      const controller = timeout = new AbortController();
      cancelDeadline = addDeadline(timeoutMs, () =>
        controller.abort(
          new HarnessError("TOOL_TIMEOUT", `tool "${name}" timed out after ${timeoutMs} ms`),
        ));
      sources.push(controller.signal);
    }
    const fused = sources.length === 1 ? undefined : fuse(sources);
    const signal = fused?.signal ?? callerSignal;
    const bodyExec = signal === exec.signal ? exec : Object.freeze({ ...exec, signal });
    let outcome: ToolOutcome;
    try {
      const returned = definition.execute(exec.arguments, bodyExec);
      const value = !isThenable(returned)
        ? returned
        : state.abortable || fused !== undefined
        ? await this.#settle(Promise.resolve(returned), signal, name)
        : await returned;
      if (timeout?.signal.aborted) {
        outcome = thrownOutcome(timeout.signal.reason, state.deferred);
      } else if (value === ABANDONED) {
        outcome = callerSignal.aborted
          ? aborted(state.deferred)
          : thrownOutcome(signal.reason, state.deferred);
      } else if (callerSignal.aborted) {
        outcome = aborted(state.deferred);
      } else {
        try {
          outcome = normalizeReturn(name, value, state.deferred);
        } catch (error) {
          outcome = errorOutcome(errorMessage(error), {
            code: "TOOL_ERROR",
            additionalContexts: state.deferred,
          });
        }
      }
    } catch (error) {
      if (timeout?.signal.aborted) {
        outcome = thrownOutcome(timeout.signal.reason, state.deferred);
      } else if (callerSignal.aborted && (error === callerSignal.reason || isAbortError(error))) {
        outcome = aborted(state.deferred);
      } else {
        outcome = thrownOutcome(error, state.deferred);
      }
    } finally {
      state.settled = true;
      cancelDeadline?.();
      fused?.release();
    }
    state.bodyOutcome = outcome;
    return outcome;
  }

  /** Awaits the body; once its signal aborts, waits at most the grace period. */
  #settle(
    promise: Promise<unknown>,
    signal: AbortSignal,
    name: string,
  ): Promise<unknown> {
    const { promise: result, resolve, reject } = Promise.withResolvers<unknown>();
    let grace: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      grace = setTimeout(() => {
        this.#ctx.logger.warn(
          `tool "${name}" ignored its aborted signal for ${this.#graceMs} ms; its promise is left to settle in the background`,
        );
        promise.then(
          () => this.#ctx.logger.info(`abandoned tool "${name}" settled after all`),
          (error) =>
            this.#ctx.logger.info(
              `abandoned tool "${name}" failed after all: ${errorMessage(error)}`,
            ),
        );
        resolve(ABANDONED);
      }, this.#graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject);
    return result.finally(() => {
      signal.removeEventListener("abort", onAbort);
      if (grace !== undefined) clearTimeout(grace);
    });
  }

  async #post(exec: ToolExecution, outcome: ToolOutcome): Promise<ToolOutcome> {
    const decision = checkPostDecision(
      await this.#ctx.waterfall<unknown>("tools/post-execute", ACCEPT, exec, outcome),
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

  #publish(exec: ToolExecution, outcome: ToolOutcome, state: CallState): ToolOutcome {
    state.settled = true;
    if (this.#ctx.listenerCount("tools/result") > 0) this.#ctx.emit("tools/result", exec, outcome);
    return outcome;
  }
}

/** Marker for "approval cancelled while the caller aborted". */
const ABORTED_BEFORE_DISPATCH_OUTCOME: ToolOutcome = abortedBeforeDispatch();

function denied(reason: string): ToolOutcome {
  return errorOutcome(reason, { code: "DENIED" });
}

function makeExecution(
  request: ExecuteRequest,
  name: string,
  args: JsonValue,
  signal: AbortSignal,
  state: CallState,
  ctx: Context,
): ToolExecution {
  const onOutput = request.onOutput;
  let decoder: TextDecoder | undefined;
  const exec: {
    callId: string;
    name: string;
    arguments: JsonValue;
    agent?: NonNullable<ToolExecution["agent"]>;
    token: symbol;
    parent?: symbol;
    signal: AbortSignal;
    output: ToolExecution["output"];
    deferContext: ToolExecution["deferContext"];
  } = {
    callId: request.callId,
    name,
    arguments: args,
    token: Symbol(name),
    signal,
    output: Object.freeze({
      write(chunk: string | Uint8Array): void {
        if (onOutput === undefined) return;
        const text = typeof chunk === "string"
          ? chunk
          : (decoder ??= new TextDecoder()).decode(chunk, { stream: true });
        try {
          onOutput(text);
        } catch (error) {
          ctx.logger.warn(`onOutput threw for call "${exec.callId}": ${errorMessage(error)}`);
        }
      },
    }),
    deferContext(content: readonly ContentBlock[]): void {
      const blocks = materializeContent(content, "exec.deferContext() received invalid content");
      if (state.settled) {
        ctx.logger.warn(`deferContext() after call "${exec.callId}" settled was dropped`);
        return;
      }
      (state.deferred ??= []).push(blocks);
    },
  };
  if (request.agent !== undefined) exec.agent = request.agent;
  if (request.parent !== undefined) exec.parent = request.parent;
  return Object.freeze(exec);
}

/** Why `request` cannot be executed at all (no events are published for it), if it cannot. */
function checkRequest(request: ExecuteRequest): string | undefined {
  if (typeof request !== "object" || request === null) {
    return `tool execution request must be an object, received ${describe(request)}`;
  }
  if (typeof request.name !== "string") {
    return `tool execution request name must be a string, received ${describe(request.name)}`;
  }
  if (typeof request.callId !== "string") {
    return `tool execution request callId must be a string, received ${describe(request.callId)}`;
  }
  if (request.signal !== undefined && !(request.signal instanceof AbortSignal)) {
    return `tool execution request signal must be an AbortSignal, received ${
      describe(request.signal)
    }`;
  }
  return undefined;
}

function checkDefinition(definition: AnyToolDefinition): ToolSchema {
  if (typeof definition !== "object" || definition === null) {
    throw new TypeError(
      `Cannot register a tool: expected a definition object, received ${describe(definition)}`,
    );
  }
  const { name, description, parameters, execute } = definition;
  if (typeof name !== "string" || !TOOL_NAME_REGEXP.test(name)) {
    throw new TypeError(
      `Cannot register a tool: name is ${
        describe(name)
      }, expected a string matching ${TOOL_NAME_REGEXP}`,
    );
  }
  if (typeof description !== "string") {
    throw new TypeError(
      `Cannot register tool "${name}": description must be a string, received ${
        describe(description)
      }`,
    );
  }
  if (typeof execute !== "function") {
    throw new TypeError(
      `Cannot register tool "${name}": execute must be a function, received ${describe(execute)}`,
    );
  }
  if (definition.timeoutMs !== undefined) {
    assertPositive(`tool "${name}" timeoutMs`, definition.timeoutMs);
  }
  let schema: JsonValue;
  try {
    schema = snapshotJson(parameters);
  } catch (error) {
    throw new TypeError(
      `Cannot register tool "${name}": parameters must be lossless JSON: ${errorMessage(error)}`,
    );
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new TypeError(
      `Cannot register tool "${name}": parameters must be a JSON Schema object, received ${
        describe(schema)
      }`,
    );
  }
  return Object.freeze({ name, description, parameters: schema as JsonSchema });
}

function checkPreDecision(value: unknown): PreExecuteDecision {
  const d = value as { kind?: unknown; reason?: unknown } | null;
  if (typeof d === "object" && d !== null) {
    if (d.kind === "allow") return d as PreExecuteDecision;
    if (d.kind === "deny" && typeof d.reason === "string") return d as PreExecuteDecision;
    if (d.kind === "ask" && (d.reason === undefined || typeof d.reason === "string")) {
      return d as PreExecuteDecision;
    }
  }
  throw new TypeError(
    `tools/pre-execute produced an invalid decision ${
      describe(value)
    }: expected {kind: "allow"}, {kind: "deny", reason} or {kind: "ask", reason?}`,
  );
}

function checkPostDecision(value: unknown): PostExecuteDecision {
  const d = value as { kind?: unknown } | null;
  if (typeof d === "object" && d !== null && (d.kind === "accept" || d.kind === "block")) {
    return d as PostExecuteDecision;
  }
  throw new TypeError(
    `tools/post-execute produced an invalid decision ${
      describe(value)
    }: expected {kind: "accept", content?, additionalContexts?} or {kind: "block", feedback}`,
  );
}

/** A controller aborted by the first of `sources`, with listeners removed by `release()`. */
function fuse(sources: readonly AbortSignal[]): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const aborted = sources.find((s) => s.aborted);
  if (aborted !== undefined) {
    controller.abort(aborted.reason);
    return { signal: controller.signal, release() {} };
  }
  const listeners = sources.map((source) => {
    const listener = () => controller.abort(source.reason);
    source.addEventListener("abort", listener, { once: true });
    return listener;
  });
  return {
    signal: controller.signal,
    release() {
      for (let i = 0; i < sources.length; i++) {
        sources[i]!.removeEventListener("abort", listeners[i]!);
      }
    },
  };
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

function assertPositive(what: string, value: number): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(
      `Cannot use ${what}: current value is ${describe(value)}, expected a positive finite number`,
    );
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
