/**
 * The plugin context: fibers, effects, services and events (cordis-shaped, in house).
 *
 * A {@linkcode Context} is what a plugin's `apply(ctx, config)` receives. Everything a plugin
 * adds through it (effects, listeners, services, child plugins, tools) is tied to the plugin's
 * {@linkcode Fiber} and undone when the fiber is disposed or restarted.
 *
 * @module
 */
import { Fiber } from "./fiber.ts";
import { createLogger, type Logger } from "./logger.ts";
import { type Listener, Listeners } from "./_events.ts";
import {
  type ContextOptions,
  ContextSeed,
  type Disposer,
  type FiberControls,
  type FiberInit,
  FiberSeed,
  type Runtime,
  type Scope,
} from "./_runtime.ts";
import { BIND_SERVICE, Services } from "./_services.ts";

// Re-exported so that existing imports of "core/context.ts" keep working.
export { Fiber } from "./fiber.ts";
export type { FiberState } from "./fiber.ts";
export type { ContextOptions, Disposer } from "./_runtime.ts";
export type { Listener } from "./_events.ts";
export { BIND_SERVICE } from "./_services.ts";

/**
 * A plugin object or module namespace: `{ name, inject, apply }` (declared here, next to the
 * `Context` its `apply` receives, so that core has no import cycle).
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

const resolved: Promise<void> = Promise.resolve();
/** The declared service getters: valid `provide()` names although they are Context members. */
const SERVICE_SLOTS: ReadonlySet<string> = new Set(["tools", "jobs", "approval"]);

/**
 * The plugin context. `new Context(options)` makes a root; plugins get child contexts from
 * {@linkcode Context.plugin}. Provided services are read with `ctx.get(name)` on every context of
 * the same root, and the harness's own through the declared getters `ctx.tools`, `ctx.jobs` and
 * `ctx.approval`, typed by `S` (Hono's `Env` pattern): `Context<{ tools: ToolRegistry }>` types
 * `ctx.tools`; an optional key adds `| undefined`, a missing one types it `unknown`.
 *
 * @typeParam S The services `ctx.tools`, `ctx.jobs` and `ctx.approval` are typed with.
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
export class Context<S extends object = object> {
  readonly #runtime: Runtime<Fiber<Context>, Context>;
  readonly #scope: Scope<Fiber<Context>, Context>;
  #bound: Map<string, { service: object; view: object }> | undefined;

  /**
   * Creates a root context with an active root fiber.
   *
   * @param options Root name and logging.
   */
  constructor(options: ContextOptions = {}) {
    if (options instanceof ContextSeed) {
      // A plugin's context (made by its fiber): it joins the tree of its parent.
      this.#runtime = options.runtime;
      this.#scope = options.scope;
      return;
    }
    const { name = "root" } = options;
    const logger = options.logger ??
      createLogger({
        name,
        ...(options.logLevel === undefined ? {} : { level: options.logLevel }),
        ...(options.logSink === undefined ? {} : { sink: options.logSink }),
      });
    const runtime: Runtime<Fiber<Context>, Context> = {
      services: new Services((name) => name in Context.prototype && !SERVICE_SLOTS.has(name)),
      listeners: new Listeners(logger),
      logger,
      newContext: (scope) => new Context(new ContextSeed(runtime, scope)),
    };
    const root = { runtime, parent: undefined, apply: () => {}, config: undefined, inject: [] };
    const scope = createFiber({ ...root, name }).controls.activateRoot();
    scope.ctx = this;
    this.#runtime = runtime;
    this.#scope = scope;
  }

  /** The tool registry, once `registry/`'s `tools` plugin is loaded (list `"tools"` in `inject`). */
  get tools(): S extends { readonly tools: infer T } ? T
    : S extends { readonly tools?: infer T } ? T | undefined
    : unknown {
    return this.get("tools") as never;
  }

  /** Long-running work; `undefined` unless `jobs/`'s plugin is loaded. */
  get jobs(): S extends { readonly jobs: infer T } ? T
    : S extends { readonly jobs?: infer T } ? T | undefined
    : unknown {
    return this.get("jobs") as never;
  }

  /** Where `ask` decisions go; `undefined` unless an approval channel (the ACP server) is loaded. */
  get approval(): S extends { readonly approval: infer T } ? T
    : S extends { readonly approval?: infer T } ? T | undefined
    : unknown {
    return this.get("approval") as never;
  }

  /** The fiber this context belongs to. */
  get fiber(): Fiber<Context> {
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
  plugin<C = undefined>(plugin: PluginFunction<C>, config?: C): Fiber<Context>;
  /**
   * Loads a plugin object or module namespace `{ name, inject, apply }` as a child fiber.
   *
   * @typeParam C The plugin's config type.
   * @param plugin The plugin.
   * @param config The config `apply` receives.
   * @returns The child fiber.
   */
  plugin<C = undefined>(plugin: Plugin<C>, config?: C): Fiber<Context>;
  plugin<C = undefined>(plugin: Plugin<C> | PluginFunction<C>, config?: C): Fiber<Context> {
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
    const { fiber, controls } = createFiber({
      runtime: this.#runtime,
      parent: this.#scope,
      apply,
      config,
      inject: (inject as readonly string[] | undefined) ?? [],
      name: typeof name === "string" && name !== "" ? name : "anonymous",
    });
    controls.start();
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
   * Provides a service as `ctx.get(name)` on every context of this root (`tools`, `jobs` and
   * `approval` also as the getters of the same name). Replacing a service restarts the plugins that
   * inject it; the service goes away with this context's fiber.
   *
   * @param name The service name (an identifier that is not another Context member).
   * @param service The service object.
   * @returns Withdraws the service (if it is still the current one).
   * @throws {TypeError} When the name is reserved or not an identifier.
   */
  provide(name: string, service: object): () => void {
    this.#assertOpen("provide a service");
    const withdraw = this.#runtime.services.provide(name, service);
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
    const remove = this.#runtime.listeners.add(event, listener, this.#scope.fiber);
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
    return this.#runtime.listeners.count(event);
  }

  /**
   * A number that changes whenever a listener is added to or removed from this root's tree (lets a
   * hot path cache what it built from the listeners, as the registry does with its chain).
   *
   * @example Usage
   * ```ts
   * import { Context } from "./context.ts";
   * import { notEqual } from "node:assert/strict";
   * const root = new Context();
   * const before = root.listenerVersion;
   * root.on("ping", () => {});
   * notEqual(root.listenerVersion, before);
   * ```
   */
  get listenerVersion(): number {
    return this.#runtime.listeners.version;
  }

  /**
   * Calls every listener with `args`, observe-only: throws and rejections are logged under the
   * listener's plugin and never reach the caller or the other listeners.
   *
   * @param event The event name.
   * @param args The arguments.
   */
  emit(event: string, ...args: unknown[]): void {
    this.#runtime.listeners.emit(event, args);
  }

  /**
   * Calls listeners in order until one returns something other than `undefined`.
   *
   * @param event The event name.
   * @param args The arguments.
   * @returns The first defined result, or `undefined`.
   * @throws Whatever a listener throws.
   */
  bail(event: string, ...args: unknown[]): Promise<unknown> {
    return this.#runtime.listeners.bail(event, args);
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
  waterfall<T>(event: string, value: T, ...args: unknown[]): Promise<T> {
    return this.#runtime.listeners.waterfall(event, value, args);
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
    return this.#runtime.listeners.around(event, arg, body);
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

/** A new fiber and the controls its constructor handed back. */
function createFiber(
  init: FiberInit<Fiber<Context>, Context>,
): { fiber: Fiber<Context>; controls: FiberControls<Fiber<Context>, Context> } {
  const seed = new FiberSeed(init);
  const fiber = new Fiber<Context>(seed);
  return { fiber, controls: seed.controls! };
}
