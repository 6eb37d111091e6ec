/**
 * The `ctx.tools` service: registration (effects of the calling fiber), the model-facing schema
 * projection, guards and the execution pipeline of docs/contracts.md §2.
 *
 * @module
 */
import { BIND_SERVICE, type Context } from "../core/context.ts";
import { describeValue, errorMessage } from "../core/error_message.ts";
import { HarnessError } from "../core/errors.ts";
import type { AnyToolDefinition } from "../tools/definition.ts";
import { errorOutcome, thrownOutcome, type ToolOutcome } from "../tools/outcome.ts";
import { compileToolFilter, type ToolFilter } from "../tools/tool_filter.ts";
import { assertPositive, checkDefinition } from "./_check_definition.ts";
import { type Entry, ToolTable } from "./_tool_table.ts";
import type { BodyOptions } from "./_run_body.ts";
import { askFor, buildChain, type Installed, observeResult, type Run } from "./_chain.ts";
import { runGuard, TOOL_PHASES, type ToolPhase } from "./hooks.ts";
import { CallRecord, checkScope, lifetime, readRequest, safe, type ToolCall } from "./tool_call.ts";
import type { Guard } from "./hooks.ts";
import type { ExecuteRequest, ToolLayer, ToolMiddleware, ToolMode, ToolRegistry } from "./types.ts";
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
  readonly #body: Omit<BodyOptions, "abortSuccess">;
  /** Every installed middleware (guards and layers included), in installation order. */
  #installed: readonly Installed[] = [];
  /** The `tools/result` middleware, in installation order. */
  #observers: readonly Installed[] = [];
  #seq = 0;
  /** The composed chain, and the listener version it was built for (`undefined`: build again). */
  #run: Run | undefined;
  #builtFor = -1;
  readonly #lifetimes = new WeakMap<Context, ReturnType<typeof lifetime>>();
  readonly #table = new ToolTable((name) => name === CODE_RUNNER_NAME);

  constructor(ctx: Context, defaultTimeoutMs: number | undefined, graceMs: number) {
    this.#ctx = ctx;
    this.#body = { defaultTimeoutMs, graceMs, logger: ctx.logger };
  }

  /** The caller-bound view (`register`/`guard` become effects of `caller`'s fiber). */
  bind(caller: Context): ToolRegistry & { [BIND_SERVICE](ctx: Context): ToolRegistry } {
    return {
      register: (definition, options) =>
        this.#register(caller, definition, false, checkScope("register a tool", options?.scope)),
      registerCodeRunner: (definition) => this.#register(caller, definition, true, undefined),
      get: (name, options) => this.#table.resolve(name, options?.scope)?.definition,
      list: (options) => this.#table.list(options?.scope),
      schemas: (options) => {
        const mode = options?.mode ?? "native";
        return this.#table.schemas(mode, listedIn(mode), options?.scope);
      },
      guard: (guard) => this.#guard(caller, guard),
      restrict: (filter, options) =>
        this.#restrict(caller, filter, checkScope("restrict tools", options?.scope)),
      prepare: (request) => this.#prepare(request, caller),
      execute: (request) => this.#execute(request, caller),
      use: (first: unknown, middleware?: unknown) => this.#use(caller, first, middleware),
      ask: (call, options) => askFor(this.#ctx, call, options ?? {}),
      isConcurrencySafe: (name, args, options) =>
        safe(this.#table.resolve(name, options?.scope)?.definition, args),
      [BIND_SERVICE]: (ctx: Context) => this.bind(ctx),
    };
  }

  #register(
    caller: Context,
    definition: AnyToolDefinition,
    codeRunner: boolean,
    scope: string | undefined,
  ): () => void {
    for (const { define } of this.#installed) if (define) definition = define(definition);
    const schema = checkDefinition(definition);
    const name = definition.name;
    checkReserved(name, codeRunner);
    this.#table.checkFree(name, scope);
    const entry: Entry = { definition, schema };
    return effect(caller, () => {
      const remove = this.#table.add(name, entry, scope);
      this.#ctx.emit("tools/changed");
      return () => {
        if (remove()) this.#ctx.emit("tools/changed");
      };
    });
  }

  /** `guard(fn)`: sugar for `guard`-phase middleware that denies with the string `fn` returns. */
  #guard(caller: Context, guard: Guard): () => void {
    if (typeof guard !== "function") {
      throw new TypeError(
        `Cannot add a guard: expected a function, received ${describeValue(guard)}`,
      );
    }
    return this.#install(caller, {
      phase: "guard",
      guard,
      run: (call, next) => runGuard(guard, call.exec) ?? next(),
    });
  }

  #restrict(caller: Context, filter: ToolFilter, scope: string | undefined): () => void {
    const visible = compileToolFilter(filter, "filter");
    return effect(caller, () => {
      const remove = this.#table.mask(visible, scope);
      this.#ctx.emit("tools/changed");
      return () => {
        remove();
        this.#ctx.emit("tools/changed");
      };
    });
  }

  /** `use(phase, middleware)`, `use(middleware)` (`tools/execute`) or `use(layer)`. */
  #use(caller: Context, first: unknown, middleware: unknown): () => void {
    if (typeof first === "function") [first, middleware] = ["tools/execute", first];
    if (typeof first === "string") {
      if (!(TOOL_PHASES as readonly string[]).includes(first)) {
        throw useError(`an unknown phase ${JSON.stringify(first)}`);
      }
      if (typeof middleware !== "function") throw useError(describeValue(middleware));
      return this.#install(caller, {
        phase: first as ToolPhase,
        run: middleware as ToolMiddleware,
      });
    }
    const layer = first as ToolLayer;
    if (
      typeof layer !== "object" || layer === null || !["route", "body"].includes(layer.position)
    ) {
      throw useError(describeValue(layer));
    }
    return this.#install(caller, { phase: layer.position, run: layer.run, define: layer.define });
  }

  /** Installs `entry`, an effect of `caller`'s fiber. */
  #install(caller: Context, entry: Omit<Installed, "seq">): () => void {
    const installed: Installed = { ...entry, seq: this.#seq++ };
    return effect(caller, () => {
      this.#installed = [...this.#installed, installed];
      this.#changed();
      return () => {
        this.#installed = this.#installed.filter((e) => e !== installed);
        this.#changed();
      };
    });
  }

  #changed(): void {
    this.#observers = this.#installed.filter((e) => e.phase === "tools/result");
    this.#run = undefined;
  }

  /** Builds the record of a call; throws a TypeError for a malformed request. */
  #prepare(request: ExecuteRequest, caller: Context): CallRecord {
    const read = readRequest(request);
    if (typeof read === "string") throw new TypeError(read);
    return this.#build(read, caller);
  }

  #build(request: ExecuteRequest, caller: Context): CallRecord {
    let signals = this.#lifetimes.get(caller);
    if (signals === undefined) this.#lifetimes.set(caller, signals = lifetime(caller));
    // Generation pinning: the call runs on the definition visible now, whatever happens later.
    const definition = this.#table.resolve(request.name, request.agent?.sessionId)?.definition;
    return new CallRecord(this, request, definition, signals(request.signal), this.#body.logger);
  }

  /**
   * Never rejects: the request is read once (a throwing getter gives an error outcome), and any
   * fault of the pipeline itself becomes an error outcome instead of a rejection.
   */
  #execute(request: ExecuteRequest | ToolCall, caller: Context): Promise<ToolOutcome> {
    let call: CallRecord;
    try {
      if (request instanceof CallRecord && request.owner === this) {
        if (request.started || request.outcome !== undefined) {
          return Promise.resolve(
            errorOutcome(`tool call "${request.callId}" was already executed`, {
              name: "TypeError",
            }),
          );
        }
        call = request;
      } else {
        let read: ExecuteRequest | string;
        try {
          read = readRequest(request as ExecuteRequest);
        } catch (error) {
          read = `tool execution request could not be read: ${errorMessage(error)}`;
        }
        if (typeof read === "string") {
          return Promise.resolve(errorOutcome(read, { name: "TypeError" }));
        }
        call = this.#build(read, caller);
      }
    } catch (error) {
      this.#ctx.logger.error(`call to a tool failed inside the registry: ${errorMessage(error)}`);
      return Promise.resolve(errorOutcome(`tool execution failed: ${errorMessage(error)}`));
    }
    call.started = true;
    if (call.rejected !== undefined) return Promise.resolve(this.#publish(call, call.rejected));
    let running: Promise<ToolOutcome>;
    try {
      running = this.#chain()(call, call.signal);
    } catch (error) {
      running = Promise.reject(error);
    }
    return running.then(
      (outcome) => this.#publish(call, outcome),
      // Outer normalization (step 8): a pipeline throw is final.
      (error) => this.#publish(call, thrownOutcome(error, call.deferred)),
    );
  }

  /** The chain for the installed middleware and listeners (composed again after a change). */
  #chain(): Run {
    const ctx = this.#ctx;
    const version = ctx.listenerVersion;
    if (this.#run !== undefined && this.#builtFor === version) return this.#run;
    this.#builtFor = version;
    return this.#run = buildChain(ctx, this.#installed, this.#body);
  }

  /** Publishes the outcome (step 11); `emit` logs observer throws, so this cannot throw. */
  #publish(call: CallRecord, outcome: ToolOutcome): ToolOutcome {
    call.settled = true;
    call.outcome = outcome;
    if (this.#ctx.listenerCount("tools/result") > 0) {
      this.#ctx.emit("tools/result", call.exec, outcome);
    }
    if (this.#observers.length > 0) observeResult(this.#ctx, this.#observers, call, outcome);
    return outcome;
  }
}

const LISTED: Readonly<Record<ToolMode, (definition: AnyToolDefinition) => boolean>> = {
  both: () => true,
  code: (definition) => definition.name === CODE_RUNNER_NAME,
  native: (definition) => definition.name !== CODE_RUNNER_NAME,
};

/** Which definitions `schemas({ mode })` lists: under `code` only the runner, under `native` the rest. */
function listedIn(mode: ToolMode): (definition: AnyToolDefinition) => boolean {
  if (typeof mode === "string" && Object.hasOwn(LISTED, mode)) return LISTED[mode];
  throw new TypeError(
    `Cannot list tool schemas: mode is ${describeValue(mode)}, expected "native", "code" or "both"`,
  );
}

/** The code runner's name only by `registerCodeRunner()`, which takes no other. */
function checkReserved(name: string, codeRunner: boolean): void {
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
}

/** The TypeError of a malformed `use()` argument. */
function useError(received: string): TypeError {
  return new TypeError(
    `Cannot add tool middleware: expected (phase, middleware), (middleware) or a layer { position: "route" | "body", run?, define? }, received ${received}`,
  );
}

/** `caller.effect(setup)`, its disposer returning nothing. */
function effect(caller: Context, setup: () => () => void): () => void {
  const dispose = caller.effect(setup);
  return () => void dispose();
}
