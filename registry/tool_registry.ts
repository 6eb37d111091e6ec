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
import { TOOL_NAME_REGEXP } from "../tools/define_tool.ts";
import { errorOutcome, thrownOutcome, type ToolOutcome } from "../tools/outcome.ts";
import { compileToolFilter, type ToolFilter } from "../tools/tool_filter.ts";
import { assertPositive, checkDefinition } from "./_check_definition.ts";
import { type Entry, ToolTable } from "./_tool_table.ts";
import type { BodyOptions } from "./_run_body.ts";
import { askFor, buildChain, type Installed, observeResult, type Run } from "./_chain.ts";
import { runGuard, TOOL_PHASES } from "./hooks.ts";
import { CallRecord, checkScope, lifetime, readRequest, safe } from "./tool_call.ts";
import type { Guard } from "./hooks.ts";
import type { DefinitionHook, ExecuteRequest, ListingHook } from "./types.ts";
import type { RegisterOptions, ToolCall, ToolMiddleware } from "./types.ts";
import type { ToolRegistry, ToolSchema } from "./types.ts";
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
  /**
   * The names only `register(definition, { reserved: true })` may take (presentation
   * infrastructure, never masked): `run_code` is reserved before Code Mode loads. @default {["run_code"]}
   */
  readonly reservedNames?: readonly string[];
}

/**
 * Creates the `ctx.tools` service. Events are dispatched through `ctx` (the providing plugin's
 * context); each caller gets a view whose `register()`/`guard()` are effects of its own fiber.
 * Most code uses the `tools` plugin or `createHarness()` instead.
 *
 * @param ctx The context events and the optional `approval` service are read from.
 * @param options Deadlines and the reserved names.
 * @returns The service (provide it as `tools`).
 * @throws {RangeError} When a deadline is not a positive finite number.
 * @throws {TypeError} When `reservedNames` is not an array of tool names.
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
  return new ToolRegistryService(ctx, options).bind(ctx);
}

/**
 * Validates {@linkcode ToolRegistryOptions} without creating anything.
 *
 * @param options The options.
 * @throws {RangeError} When a deadline is not a positive finite number.
 * @throws {TypeError} When `reservedNames` is not an array of tool names.
 *
 * @example Usage
 * ```ts
 * import { checkRegistryOptions } from "./tool_registry.ts";
 * import { throws } from "node:assert/strict";
 * throws(() => checkRegistryOptions({ abortGraceMs: 0 }), RangeError);
 * throws(() => checkRegistryOptions({ reservedNames: ["bad name"] }), TypeError);
 * ```
 */
export function checkRegistryOptions(options: ToolRegistryOptions): void {
  if (options.defaultTimeoutMs !== undefined) {
    assertPositive("defaultTimeoutMs", options.defaultTimeoutMs);
  }
  if (options.abortGraceMs !== undefined) assertPositive("abortGraceMs", options.abortGraceMs);
  const names: unknown = options.reservedNames ?? [];
  const bad = Array.isArray(names)
    ? names.find((n) => typeof n !== "string" || !TOOL_NAME_REGEXP.test(n))
    : names;
  if (bad === undefined) return;
  const shown = describeValue(bad);
  throw new TypeError(
    `Invalid reservedNames: expected an array of tool names matching ${TOOL_NAME_REGEXP}, received ${shown}`,
  );
}

/** Joins a caller signal with the caller fiber's lifetime (see `lifetime`). */
type Signals = ReturnType<typeof lifetime>;

class ToolRegistryService {
  readonly #ctx: Context;
  readonly #body: Omit<BodyOptions, "abortSuccess">;
  /** Every installed middleware (guards included), in installation order. */
  #installed: readonly Installed[] = [];
  /** The `tools/result` middleware, in installation order. */
  #observers: readonly Installed[] = [];
  /** The listing hooks (`schemas()` lists what all accept) and definition hooks, as installed. */
  #hooks: readonly Hook[] = [];
  /** The composed chain, and the listener version it was built for (`undefined`: build again). */
  #run: Run | undefined;
  #builtFor = -1;
  readonly #reserved: ReadonlySet<string>;
  readonly #table: ToolTable;

  constructor(ctx: Context, options: ToolRegistryOptions) {
    const { defaultTimeoutMs, abortGraceMs: graceMs = 2000, reservedNames = ["run_code"] } =
      options;
    this.#ctx = ctx;
    this.#body = { defaultTimeoutMs, graceMs, logger: ctx.logger };
    this.#reserved = new Set(reservedNames);
    this.#table = new ToolTable((name) => this.#reserved.has(name));
  }

  /** The caller-bound view (`register`/`guard` become effects of `caller`'s fiber). */
  bind(caller: Context): ToolRegistry & { [BIND_SERVICE](ctx: Context): ToolRegistry } {
    // The caller fiber's lifetime, joined into each call's signal; made at its first call.
    let life: Signals | undefined;
    const signals = () => life ??= lifetime(caller);
    return {
      register: (definition, options) => this.#register(caller, definition, options),
      get: (name, options) => this.#table.resolve(name, options?.scope)?.definition,
      list: (options) => this.#table.list(options?.scope),
      schemas: (options) => this.#schemas(options?.mode ?? "native", options?.scope),
      listing: (hook) => this.#hook(caller, "a listing hook", hook, { listing: hook }),
      define: (hook) => this.#hook(caller, "a definition hook", hook, { define: hook }),
      guard: (guard) => this.#guard(caller, guard),
      restrict: (filter, options) =>
        this.#restrict(caller, filter, checkScope("restrict tools", options?.scope)),
      prepare: (request) => this.#prepare(request, signals()),
      execute: (request) => this.#execute(request, signals),
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
    options: RegisterOptions | undefined,
  ): () => void {
    const scope = checkScope("register a tool", options?.scope);
    const reserved: unknown = options?.reserved ?? false;
    if (typeof reserved !== "boolean") {
      throw new TypeError(
        `Cannot register a tool: reserved is ${describeValue(reserved)}, expected a boolean`,
      );
    }
    for (const hook of this.#hooks) if ("define" in hook) definition = hook.define(definition);
    const schema = checkDefinition(definition);
    const name = definition.name;
    this.#checkReserved(name, reserved, scope);
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

  /** A reserved name only with `reserved: true` (and globally), which only takes such a name. */
  #checkReserved(name: string, reserved: boolean, scope: string | undefined): void {
    const isReserved = this.#reserved.has(name);
    if (!reserved && isReserved) {
      throw new HarnessError(
        "RESERVED_TOOL",
        `tool "${name}" is reserved: only register(definition, { reserved: true }) may take it (Code Mode's codeModePlugin registers run_code)`,
      );
    }
    if (reserved && (!isReserved || scope !== undefined)) {
      const names = [...this.#reserved].map((n) => JSON.stringify(n)).join(", ") || "none";
      const why = isReserved
        ? `a reserved tool is global, not of scope "${scope}"`
        : `it is not a reserved name (reservedNames: ${names})`;
      throw new TypeError(`Cannot register tool "${name}" as reserved: ${why}`);
    }
  }

  /** The schemas of `scope`'s visible tools that every listing hook accepts under `mode`. */
  #schemas(mode: unknown, scope: string | undefined): readonly ToolSchema[] {
    if (typeof mode !== "string" || mode === "") {
      throw new TypeError(
        `Cannot list tool schemas: mode is ${describeValue(mode)}, expected a non-empty string`,
      );
    }
    const hooks = this.#hooks;
    return this.#table.schemas(mode, (definition) =>
      hooks.every((hook) => {
        const listed: unknown = "listing" in hook ? hook.listing(definition, mode) : true;
        if (typeof listed === "boolean") return listed;
        const shown = describeValue(listed);
        throw new TypeError(
          `A listing hook returned ${shown} for tool "${definition.name}" under mode "${mode}", expected a boolean`,
        );
      }), scope);
  }

  /** Installs a listing or definition hook (an effect of `caller`'s fiber). */
  #hook(caller: Context, what: string, hook: unknown, entry: Hook): () => void {
    checkFunction(`add ${what}`, hook);
    const change = (hooks: readonly Hook[]) => {
      this.#hooks = hooks;
      if ("define" in entry) return;
      this.#table.relist();
      this.#ctx.emit("tools/changed");
    };
    return effect(caller, () => {
      change([...this.#hooks, entry]);
      return () => change(this.#hooks.filter((h) => h !== entry));
    });
  }

  /** `guard(fn)`: sugar for `guard`-phase middleware that denies with the string `fn` returns. */
  #guard(caller: Context, guard: Guard): () => void {
    checkFunction("add a guard", guard);
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

  /** `use(phase, middleware)` or `use(middleware)` (`tools/execute`). */
  #use(caller: Context, first: unknown, middleware: unknown): () => void {
    if (typeof first === "function") [first, middleware] = ["tools/execute", first];
    const phase = TOOL_PHASES.find((p) => p === first);
    if (phase === undefined) {
      throw useError(
        typeof first === "string"
          ? `an unknown phase ${JSON.stringify(first)}`
          : describeValue(first),
      );
    }
    if (typeof middleware !== "function") throw useError(describeValue(middleware));
    // Pre-execute middleware may also return decisions: the chain reads its phase's as such.
    return this.#install(caller, { phase, run: middleware as ToolMiddleware });
  }

  /** Installs `entry`, an effect of `caller`'s fiber. */
  #install(caller: Context, installed: Installed): () => void {
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
  #prepare(request: ExecuteRequest, signals: Signals): CallRecord {
    const read = readRequest(request);
    if (typeof read === "string") throw new TypeError(read);
    return this.#build(read, signals);
  }

  #build(request: ExecuteRequest, signals: Signals): CallRecord {
    // Generation pinning: the call runs on the definition visible now, whatever happens later.
    const definition = this.#table.resolve(request.name, request.agent?.sessionId)?.definition;
    return new CallRecord(this, request, definition, signals(request.signal), this.#body.logger);
  }

  /**
   * Never rejects: the request is read once (a throwing getter gives an error outcome), and any
   * fault of the pipeline itself becomes an error outcome instead of a rejection.
   */
  #execute(request: ExecuteRequest | ToolCall, signals: () => Signals): Promise<ToolOutcome> {
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
          read = readRequest(request);
        } catch (error) {
          read = `tool execution request could not be read: ${errorMessage(error)}`;
        }
        if (typeof read === "string") {
          return Promise.resolve(errorOutcome(read, { name: "TypeError" }));
        }
        call = this.#build(read, signals());
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

/** An installed listing or definition hook (a fresh object per installation). */
type Hook = { readonly listing: ListingHook } | { readonly define: DefinitionHook };

/** Throws a TypeError unless `value` is a function. */
function checkFunction(action: string, value: unknown): void {
  if (typeof value !== "function") {
    throw new TypeError(`Cannot ${action}: expected a function, received ${describeValue(value)}`);
  }
}

/** The TypeError of a malformed `use()` argument. */
function useError(received: string): TypeError {
  return new TypeError(
    `Cannot add tool middleware: expected (phase, middleware) or (middleware), received ${received}`,
  );
}

/** `caller.effect(setup)`, its disposer returning nothing. */
function effect(caller: Context, setup: () => () => void): () => void {
  const dispose = caller.effect(setup);
  return () => void dispose();
}
