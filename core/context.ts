/**
 * The plugin context: fibers, effects, services and events (cordis-shaped, in house).
 *
 * A {@linkcode Context} is what a plugin's `apply(ctx, config)` receives. Everything a plugin
 * adds through it (effects, listeners, services, child plugins, tools) is tied to the plugin's
 * {@linkcode Fiber} and undone when the fiber is disposed or restarted.
 *
 * @module
 */
import { errorMessage } from "./error_message.ts";
import { createLogger, type Logger, type LogLevel, type LogSink } from "./logger.ts";

/** Undoes an effect. May be async. */
export type Disposer = () => void | Promise<void>;

/**
 * A plugin object or module namespace: `{ name, inject, apply }`.
 *
 * @typeParam C The config `apply` receives.
 */
export interface Plugin<C = unknown> {
  /** The plugin name used in logs. @default {"anonymous"} */
  readonly name?: string;
  /** Services that must be provided before `apply` runs; replacing one restarts the plugin. */
  readonly inject?: readonly string[];
  /** Sets the plugin up; throwing or rejecting fails only this plugin's fiber. */
  apply(ctx: Context, config: C): void | Promise<void>;
}

/**
 * A plain function plugin `(ctx, config) => …` (its `name` is the function name).
 *
 * @typeParam C The config it receives.
 */
export type PluginFunction<C = unknown> = {
  bivarianceHack(ctx: Context, config: C): void | Promise<void>;
}["bivarianceHack"];

/** A fiber's lifecycle state. */
export type FiberState = "pending" | "active" | "failed" | "disposed";

/** An event listener; its shape depends on how the event is dispatched. */
// deno-lint-ignore no-explicit-any
export type Listener = (...args: any[]) => unknown;

/**
 * A service can implement this hook to hand each caller a view bound to the caller's context
 * (used by `ctx.tools` so that `register()` is an effect of the calling fiber).
 *
 * @example Usage
 * ```ts
 * import { BIND_SERVICE, Context } from "./context.ts";
 * import { equal } from "node:assert/strict";
 * const root = new Context();
 * root.provide("greeter", {
 *   [BIND_SERVICE]: (ctx: Context) => ({ who: () => ctx.fiber.name }),
 * });
 * equal(root.get<{ who(): string }>("greeter")?.who(), "root");
 * ```
 */
export const BIND_SERVICE: unique symbol = Symbol.for("dsh.bindService");

/** Options of the root {@linkcode Context}. */
export interface ContextOptions {
  /** The root fiber's name. @default {"root"} */
  readonly name?: string;
  /** A logger to use instead of the default stderr logger. */
  readonly logger?: Logger;
  /** The default logger's level. @default {"info"} */
  readonly logLevel?: LogLevel;
  /** The default logger's sink. @default {stderrSink} */
  readonly logSink?: LogSink;
}

interface Scope {
  readonly fiber: Fiber;
  readonly effects: Set<Disposer>;
  closed: boolean;
  ctx?: Context;
}

interface Entry {
  readonly fn: Listener;
  readonly fiber: Fiber;
}

type Composed = (arg: unknown, body: (arg: unknown) => Promise<unknown>) => Promise<unknown>;

/** Shared state of one context tree (one root). */
class Runtime {
  readonly services = new Map<string, object>();
  readonly listeners = new Map<string, readonly Entry[]>();
  readonly composed = new Map<string, { list: readonly Entry[]; run: Composed }>();
  readonly dependents = new Set<Fiber>();
  readonly proto: object;
  readonly logger: Logger;
  constructor(logger: Logger) {
    this.logger = logger;
    this.proto = Object.create(Context.prototype);
  }
}

const SERVICE_NAME_REGEXP = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const RESERVED = new Set(["then", "constructor", "prototype", "__proto__"]);
const resolved: Promise<void> = Promise.resolve();
let refreshFiber: (fiber: Fiber, changed: string) => void;
let startFiber: (fiber: Fiber) => void;
let activateRoot: (fiber: Fiber) => Scope;
let childInit: { runtime: Runtime; scope: Scope } | undefined;
let fiberInit:
  | {
    runtime: Runtime;
    parent: Scope | undefined;
    apply: (ctx: Context, config: unknown) => void | Promise<void>;
    config: unknown;
    inject: readonly string[];
    name: string;
  }
  | undefined;

/**
 * A running plugin: its state, its context and its effects.
 *
 * Created by {@linkcode Context.plugin} (and by `new Context()` for the root). When a service in
 * `inject` is replaced the fiber restarts: its effects are disposed and `apply` runs again; when
 * one is removed it waits (`pending`) until it is provided again.
 *
 * @example Usage
 * ```ts
 * import { Context } from "./context.ts";
 * import { equal } from "node:assert/strict";
 * const root = new Context();
 * const fiber = root.plugin({ name: "demo", apply() {} });
 * equal(fiber.state, "active");
 * await fiber.dispose();
 * equal(fiber.state, "disposed");
 * ```
 */
export class Fiber {
  /** The plugin name. */
  readonly name: string;
  #state: FiberState = "pending";
  #error: unknown = undefined;
  readonly #runtime: Runtime;
  readonly #parent: Scope | undefined;
  readonly #apply: (ctx: Context, config: unknown) => void | Promise<void>;
  readonly #config: unknown;
  /** The services this fiber waits for. */
  readonly inject: readonly string[];
  #scope: Scope | undefined;
  #idle: Scope | undefined;
  #queue: Promise<void> = resolved;
  #busy = 0;
  #disposal: Promise<void> | undefined;
  readonly #parentEffect: Disposer | undefined;

  /**
   * Internal: fibers are created by {@linkcode Context.plugin} and `new Context()`.
   *
   * @throws {TypeError} When called directly.
   */
  constructor() {
    const init = fiberInit;
    fiberInit = undefined;
    if (init === undefined) {
      throw new TypeError("Cannot construct a Fiber directly: use ctx.plugin()");
    }
    this.name = init.name;
    this.#runtime = init.runtime;
    this.#parent = init.parent;
    this.#apply = init.apply;
    this.#config = init.config;
    this.inject = Object.freeze([...init.inject]);
    if (this.#parent !== undefined) {
      const effect: Disposer = () => this.dispose();
      this.#parentEffect = effect;
      this.#parent.effects.add(effect);
    }
    if (this.inject.length > 0) this.#runtime.dependents.add(this);
  }

  /** The lifecycle state. */
  get state(): FiberState {
    return this.#state;
  }

  /** Why `apply` failed, when `state` is `failed`. */
  get error(): unknown {
    return this.#error;
  }

  /** The context of the current activation (a fresh one after each restart). */
  get ctx(): Context {
    const scope = this.#scope ?? (this.#idle ??= { fiber: this, effects: new Set(), closed: true });
    return Fiber.#contextFor(this.#runtime, scope);
  }

  /** The logger, named after the fiber. */
  get logger(): Logger {
    return this.#runtime.logger.child(this.name);
  }

  /** Settles when the fiber's latest transition (apply, restart, dispose) has settled; never rejects. */
  get ready(): Promise<void> {
    return this.#busy === 0 ? resolved : this.#queue;
  }

  /**
   * Disposes the fiber: its effects run in reverse order (errors are logged), its children and
   * registrations go away, and it never restarts. Idempotent.
   *
   * @returns Settles when every effect has run.
   */
  dispose(): Promise<void> {
    if (this.#state === "disposed") return this.#disposal ?? resolved;
    this.#state = "disposed";
    this.#runtime.dependents.delete(this);
    if (this.#parentEffect !== undefined) this.#parent?.effects.delete(this.#parentEffect);
    // Not queued: an `apply` that never settles must not keep the fiber alive.
    let result: void | Promise<void> = undefined;
    try {
      result = this.#stop();
    } catch (error) {
      this.logger.error(`disposing failed: ${errorMessage(error)}`, error);
    }
    return this.#disposal = result instanceof Promise ? result : resolved;
  }

  static {
    refreshFiber = (fiber, changed) => {
      if (!fiber.inject.includes(changed)) return;
      if (fiber.#state === "disposed" || fiber.#state === "failed") return;
      if (fiber.#scope !== undefined) fiber.#schedule(() => fiber.#stop());
      fiber.#schedule(() => fiber.#start());
    };
    startFiber = (fiber) => fiber.#schedule(() => fiber.#start());
    activateRoot = (fiber) => {
      const scope: Scope = { fiber, effects: new Set(), closed: false };
      fiber.#scope = scope;
      fiber.#state = "active";
      return scope;
    };
  }

  static #contextFor(runtime: Runtime, scope: Scope): Context {
    if (scope.ctx !== undefined) return scope.ctx;
    childInit = { runtime, scope };
    const ctx = new Context();
    scope.ctx = ctx;
    return ctx;
  }

  /** Runs transitions one at a time; runs synchronously when idle. */
  #schedule(step: () => void | Promise<void>): void {
    this.#busy++;
    const done = () => {
      this.#busy--;
    };
    if (this.#busy === 1) {
      let result: void | Promise<void> = undefined;
      try {
        result = step();
      } catch (error) {
        this.logger.error(`internal fiber transition failed: ${errorMessage(error)}`, error);
      }
      if (result instanceof Promise) {
        this.#queue = result.then(done, done);
      } else {
        done();
      }
      return;
    }
    this.#queue = this.#queue.then(step).then(done, (error) => {
      done();
      this.logger.error(`internal fiber transition failed: ${errorMessage(error)}`, error);
    });
  }

  #start(): void | Promise<void> {
    if (this.#state === "disposed" || this.#state === "failed" || this.#scope !== undefined) {
      return;
    }
    const missing = this.inject.filter((name) => !this.#runtime.services.has(name));
    if (missing.length > 0) {
      this.#state = "pending";
      this.logger.debug(`waiting for services: ${missing.join(", ")}`);
      return;
    }
    const scope: Scope = { fiber: this, effects: new Set(), closed: false };
    this.#scope = scope;
    this.#state = "pending";
    const ctx = this.ctx;
    let result: void | Promise<void>;
    try {
      result = this.#apply(ctx, this.#config);
    } catch (error) {
      return this.#fail(scope, error);
    }
    if (result !== null && typeof result === "object" && "then" in result) {
      return Promise.resolve(result).then(
        () => {
          if (this.#scope === scope && this.#state === "pending") this.#state = "active";
        },
        (error) => this.#fail(scope, error),
      );
    }
    this.#state = "active";
  }

  #fail(scope: Scope, error: unknown): void | Promise<void> {
    if (scope.closed || this.#scope !== scope) {
      this.logger.debug(`apply settled after the plugin stopped: ${errorMessage(error)}`);
      return;
    }
    this.#state = "failed";
    this.#error = error;
    this.logger.error(`plugin "${this.name}" failed to apply: ${errorMessage(error)}`, error);
    return this.#closeScope();
  }

  #stop(): void | Promise<void> {
    if (this.#scope === undefined) return;
    if (this.#state !== "disposed" && this.#state !== "failed") this.#state = "pending";
    return this.#closeScope();
  }

  #closeScope(): void | Promise<void> {
    const scope = this.#scope;
    if (scope === undefined) return;
    this.#scope = undefined;
    return disposeScope(scope, this.logger);
  }
}

function disposeScope(scope: Scope, logger: Logger): void | Promise<void> {
  scope.closed = true;
  const effects = [...scope.effects].reverse();
  scope.effects.clear();
  for (let i = 0; i < effects.length; i++) {
    let result: void | Promise<void> = undefined;
    try {
      result = effects[i]!();
    } catch (error) {
      logger.error(`an effect's disposer threw: ${errorMessage(error)}`, error);
      continue;
    }
    if (result instanceof Promise) return finishAsync(result, effects.slice(i + 1), logger);
  }
}

async function finishAsync(
  first: Promise<void>,
  rest: readonly Disposer[],
  logger: Logger,
): Promise<void> {
  for (const next of [() => first, ...rest]) {
    try {
      await next();
    } catch (error) {
      logger.error(`an effect's disposer threw: ${errorMessage(error)}`, error);
    }
  }
}

/**
 * The plugin context. `new Context(options)` makes a root; plugins get child contexts from
 * {@linkcode Context.plugin}. Provided services appear as properties (`ctx.tools`) on every
 * context of the same root.
 *
 * @example Usage
 * ```ts
 * import { Context } from "./context.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 * const root = new Context();
 * const seen: string[] = [];
 * const fiber = root.plugin({
 *   name: "listener",
 *   apply(ctx) {
 *     ctx.on("greet", (who: string) => seen.push(who));
 *   },
 * });
 * root.emit("greet", "ada");
 * await fiber.dispose();
 * root.emit("greet", "bob");
 * deepEqual(seen, ["ada"]);
 * equal(await root.waterfall("n", 1), 1);
 * ```
 */
export class Context {
  readonly #runtime: Runtime;
  readonly #scope: Scope;
  #bound: Map<string, { service: object; view: object }> | undefined;

  /**
   * Creates a root context with an active root fiber.
   *
   * @param options Root name and logging.
   */
  constructor(options: ContextOptions = {}) {
    const init = childInit;
    childInit = undefined;
    if (init !== undefined) {
      this.#runtime = init.runtime;
      this.#scope = init.scope;
      Object.setPrototypeOf(this, init.runtime.proto);
      return;
    }
    const { name = "root" } = options;
    const logger = options.logger ??
      createLogger({
        name,
        ...(options.logLevel === undefined ? {} : { level: options.logLevel }),
        ...(options.logSink === undefined ? {} : { sink: options.logSink }),
      });
    const runtime = new Runtime(logger);
    fiberInit = {
      runtime,
      parent: undefined,
      apply: () => {},
      config: undefined,
      inject: [],
      name,
    };
    const scope = activateRoot(new Fiber());
    scope.ctx = this;
    this.#runtime = runtime;
    this.#scope = scope;
    Object.setPrototypeOf(this, runtime.proto);
  }

  /** The fiber this context belongs to. */
  get fiber(): Fiber {
    return this.#scope.fiber;
  }

  /** A logger named after this context's fiber (stderr by default). */
  get logger(): Logger {
    return this.#runtime.logger.child(this.#scope.fiber.name);
  }

  /**
   * Loads a plugin as a child fiber of this context. It applies at once when its `inject`
   * services are present, otherwise when they appear.
   *
   * @typeParam C The plugin's config type.
   * @param plugin A plugin object, module namespace or function.
   * @param config The config `apply` receives.
   * @returns The child fiber (disposed with this context's fiber).
   * @throws {TypeError} When `plugin` has no `apply` function.
   */
  plugin<C = undefined>(plugin: PluginFunction<C>, config?: C): Fiber;
  /**
   * Loads a plugin object or module namespace `{ name, inject, apply }` as a child fiber.
   *
   * @typeParam C The plugin's config type.
   * @param plugin The plugin.
   * @param config The config `apply` receives.
   * @returns The child fiber.
   */
  plugin<C = undefined>(plugin: Plugin<C>, config?: C): Fiber;
  plugin<C = undefined>(plugin: Plugin<C> | PluginFunction<C>, config?: C): Fiber {
    this.#assertOpen("load a plugin");
    let apply: (ctx: Context, config: unknown) => void | Promise<void>;
    let name: unknown;
    let inject: unknown;
    if (typeof plugin === "function") {
      apply = plugin as (ctx: Context, config: unknown) => void | Promise<void>;
      name = plugin.name;
      inject = (plugin as { inject?: unknown }).inject;
    } else if (
      typeof plugin === "object" && plugin !== null && typeof plugin.apply === "function"
    ) {
      const target = plugin;
      apply = (ctx, config) => target.apply(ctx, config as C);
      name = plugin.name;
      inject = plugin.inject;
    } else {
      throw new TypeError(
        `Cannot load a plugin: expected a function or an object with an apply() function, received ${typeof plugin}`,
      );
    }
    if (
      inject !== undefined && (!Array.isArray(inject) || inject.some((s) => typeof s !== "string"))
    ) {
      throw new TypeError(
        `Cannot load plugin "${String(name)}": inject must be an array of service names`,
      );
    }
    fiberInit = {
      runtime: this.#runtime,
      parent: this.#scope,
      apply,
      config,
      inject: (inject as readonly string[] | undefined) ?? [],
      name: typeof name === "string" && name !== "" ? name : "anonymous",
    };
    const fiber = new Fiber();
    startFiber(fiber);
    return fiber;
  }

  /**
   * Runs `setup` now and ties the disposer it returns to this context's fiber.
   *
   * @param setup Does the work; returns its undo.
   * @returns Runs the disposer early (once) and forgets it.
   * @throws {Error} When this context's fiber is no longer active.
   */
  effect(setup: () => Disposer | void): () => Promise<void> {
    this.#assertOpen("add an effect");
    const disposer = setup();
    if (typeof disposer !== "function") return () => resolved;
    return this.#track(disposer);
  }

  /**
   * Provides a service as `ctx[name]` on every context of this root. Replacing a service
   * restarts the plugins that inject it; the service goes away with this context's fiber.
   *
   * @param name The service name (an identifier that is not a Context member).
   * @param service The service object.
   * @returns Withdraws the service (if it is still the current one).
   * @throws {TypeError} When the name is reserved or not an identifier.
   */
  provide(name: string, service: object): () => void {
    this.#assertOpen("provide a service");
    if (!SERVICE_NAME_REGEXP.test(name) || RESERVED.has(name) || name in Context.prototype) {
      throw new TypeError(
        `Cannot provide service ${
          JSON.stringify(name)
        }: the name must be an identifier that is not a Context member`,
      );
    }
    const runtime = this.#runtime;
    if (!Object.hasOwn(runtime.proto, name)) {
      Object.defineProperty(runtime.proto, name, {
        configurable: true,
        enumerable: false,
        get(this: Context) {
          return this.get(name);
        },
      });
    }
    runtime.services.set(name, service);
    this.#notify(name);
    const withdraw = () => {
      if (runtime.services.get(name) !== service) return;
      runtime.services.delete(name);
      this.#notify(name);
    };
    const dispose = this.#track(withdraw);
    return () => void dispose();
  }

  /**
   * The service `name` as seen from this context (bound through {@linkcode BIND_SERVICE} when the
   * service supports it), or `undefined`.
   *
   * @typeParam T The service type.
   * @param name The service name.
   * @returns The service or `undefined`.
   */
  get<T = unknown>(name: string): T | undefined {
    const service = this.#runtime.services.get(name);
    if (service === undefined) return undefined;
    const bind = (service as { [BIND_SERVICE]?: unknown })[BIND_SERVICE];
    if (typeof bind !== "function") return service as T;
    const bound = this.#bound ??= new Map();
    const cached = bound.get(name);
    if (cached !== undefined && cached.service === service) return cached.view as T;
    const view = bind.call(service, this) as object;
    bound.set(name, { service, view });
    return view as T;
  }

  /**
   * Adds a listener (an effect of this context's fiber).
   *
   * @param event The event name.
   * @param listener The listener; its shape depends on how the event is dispatched.
   * @returns Removes the listener.
   */
  on(event: string, listener: Listener): () => void {
    this.#assertOpen("add a listener");
    const runtime = this.#runtime;
    const entry: Entry = { fn: listener, fiber: this.#scope.fiber };
    runtime.listeners.set(event, [...(runtime.listeners.get(event) ?? []), entry]);
    const remove = () => {
      const list = runtime.listeners.get(event);
      if (list === undefined || !list.includes(entry)) return;
      const rest = list.filter((e) => e !== entry);
      if (rest.length === 0) runtime.listeners.delete(event);
      else runtime.listeners.set(event, rest);
    };
    const dispose = this.#track(remove);
    return () => void dispose();
  }

  /**
   * How many listeners `event` has (lets hot paths skip dispatch).
   *
   * @param event The event name.
   * @returns The listener count.
   */
  listenerCount(event: string): number {
    return this.#runtime.listeners.get(event)?.length ?? 0;
  }

  /**
   * Calls every listener with `args`, observe-only: throws and rejections are logged under the
   * listener's plugin and never reach the caller or the other listeners.
   *
   * @param event The event name.
   * @param args The arguments.
   */
  emit(event: string, ...args: unknown[]): void {
    const list = this.#runtime.listeners.get(event);
    if (list === undefined) return;
    for (const entry of list) {
      try {
        const result = entry.fn(...args);
        if (result instanceof Promise) {
          result.catch((error) => this.#listenerFailed(entry, event, error));
        }
      } catch (error) {
        this.#listenerFailed(entry, event, error);
      }
    }
  }

  /**
   * Calls listeners in order until one returns something other than `undefined`.
   *
   * @param event The event name.
   * @param args The arguments.
   * @returns The first defined result, or `undefined`.
   * @throws Whatever a listener throws.
   */
  async bail(event: string, ...args: unknown[]): Promise<unknown> {
    const list = this.#runtime.listeners.get(event);
    if (list === undefined) return undefined;
    for (const entry of list) {
      const result = await entry.fn(...args);
      if (result !== undefined) return result;
    }
    return undefined;
  }

  /**
   * Passes `value` through every listener `(value, ...args) => next | undefined` in order;
   * `undefined` keeps the current value.
   *
   * @typeParam T The value type.
   * @param event The event name.
   * @param value The initial value.
   * @param args Extra arguments for every listener.
   * @returns The final value.
   * @throws Whatever a listener throws.
   */
  async waterfall<T>(event: string, value: T, ...args: unknown[]): Promise<T> {
    const list = this.#runtime.listeners.get(event);
    if (list === undefined) return value;
    let current = value;
    for (const entry of list) {
      const next = await entry.fn(current, ...args);
      if (next !== undefined) current = next as T;
    }
    return current;
  }

  /**
   * Runs `body` inside the onion of `event`'s listeners `(arg, next) => Promise<T>`: the first
   * listener is outermost; skipping `next()` short-circuits; calling it twice rejects. The chain
   * is composed once per listener change.
   *
   * @typeParam A The argument type.
   * @typeParam T The result type.
   * @param event The event name.
   * @param arg The argument every wrapper and the body receive.
   * @param body The innermost step.
   * @returns The outermost wrapper's result.
   * @throws Whatever the chain throws.
   */
  around<A, T>(event: string, arg: A, body: (arg: A) => Promise<T>): Promise<T> {
    const runtime = this.#runtime;
    const list = runtime.listeners.get(event);
    if (list === undefined) return body(arg);
    let cached = runtime.composed.get(event);
    if (cached === undefined || cached.list !== list) {
      cached = { list, run: compose(list.map((entry) => entry.fn)) };
      runtime.composed.set(event, cached);
    }
    return cached.run(arg, body as (arg: unknown) => Promise<unknown>) as Promise<T>;
  }

  #listenerFailed(entry: Entry, event: string, error: unknown): void {
    this.#runtime.logger.child(entry.fiber.name).error(
      `listener for "${event}" threw: ${errorMessage(error)}`,
      error,
    );
  }

  #notify(name: string): void {
    for (const fiber of [...this.#runtime.dependents]) refreshFiber(fiber, name);
  }

  #track(disposer: Disposer): () => Promise<void> {
    const effects = this.#scope.effects;
    let done = false;
    const once: Disposer = () => {
      if (done) return;
      done = true;
      effects.delete(once);
      return disposer();
    };
    effects.add(once);
    return async () => {
      await once();
    };
  }

  #assertOpen(action: string): void {
    if (this.#scope.closed) {
      throw new Error(
        `Cannot ${action} in plugin "${this.#scope.fiber.name}": its fiber is ${this.#scope.fiber.state} and this context is no longer active`,
      );
    }
  }
}

function compose(wrappers: readonly Listener[]): Composed {
  return function composed(arg, body) {
    let index = -1;
    function dispatch(i: number): Promise<unknown> {
      if (i <= index) return Promise.reject(new Error("next() called multiple times"));
      index = i;
      const wrapper = wrappers[i];
      try {
        return Promise.resolve(
          wrapper === undefined ? body(arg) : wrapper(arg, () => dispatch(i + 1)),
        );
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return dispatch(0);
  };
}
