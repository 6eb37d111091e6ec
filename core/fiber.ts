/**
 * Fibers: the running instances of plugins, with their lifecycle and effects.
 *
 * @module
 */
import { errorMessage } from "./error_message.ts";
import type { Logger } from "./logger.ts";
import { type Disposer, FiberSeed, type Runtime, type Scope } from "./_runtime.ts";

/** A fiber's lifecycle state. */
export type FiberState = "pending" | "active" | "failed" | "disposed";

const resolved: Promise<void> = Promise.resolve();

/**
 * A running plugin: its state, its context and its effects.
 *
 * Created by {@linkcode Context.plugin} (and by `new Context()` for the root). When a service in
 * `inject` is replaced the fiber restarts: its effects are disposed and `apply` runs again; when
 * one is removed it waits (`pending`) until it is provided again.
 *
 * @typeParam X The context type `ctx` returns (`Context` for every fiber core makes; generic so
 * that this file does not import `context.ts`).
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
export class Fiber<X = unknown> {
  /** The plugin name. */
  readonly name: string;
  #state: FiberState = "pending";
  #error: unknown = undefined;
  readonly #runtime: Runtime<Fiber, unknown>;
  readonly #parent: Scope<Fiber, unknown> | undefined;
  readonly #apply: (ctx: unknown, config: unknown) => void | Promise<void>;
  readonly #config: unknown;
  /** The services this fiber waits for. */
  readonly inject: readonly string[];
  #scope: Scope<Fiber, unknown> | undefined;
  #idle: Scope<Fiber, unknown> | undefined;
  #queue: Promise<void> = resolved;
  #busy = 0;
  #disposal: Promise<void> | undefined;
  readonly #parentEffect: Disposer | undefined;
  /** Plugins loaded through this fiber's context (its dependencies for `ready`). */
  readonly #children = new Set<Fiber>();

  /**
   * Internal: fibers are created by {@linkcode Context.plugin} and `new Context()`, which pass a
   * seed that only core can make.
   *
   * @param seed Core's seed of the fiber.
   * @throws {TypeError} When called directly.
   */
  constructor(seed?: unknown) {
    if (!(seed instanceof FiberSeed)) {
      throw new TypeError("Cannot construct a Fiber directly: use ctx.plugin()");
    }
    const init = seed.init as FiberSeed<Fiber, unknown>["init"];
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
      this.#parent.fiber.#children.add(this);
    }
    if (this.inject.length > 0) {
      this.#runtime.services.watch(this, (changed) => this.#refresh(changed));
    }
    seed.controls = {
      start: () => this.#schedule(() => this.#start()),
      activateRoot: () => {
        const scope: Scope<Fiber, unknown> = { fiber: this, effects: new Set(), closed: false };
        this.#scope = scope;
        this.#state = "active";
        return scope;
      },
    };
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
  get ctx(): X {
    const scope = this.#scope ?? (this.#idle ??= { fiber: this, effects: new Set(), closed: true });
    // Only core makes fibers, and `Context` makes them as `Fiber<Context>` with its own runtime.
    return (scope.ctx ??= this.#runtime.newContext(scope)) as X;
  }

  /** The logger, named after the fiber. */
  get logger(): Logger {
    return this.#runtime.logger.child(this.name);
  }

  /**
   * Settles when the fiber's latest transition (apply, restart, dispose) and those of the plugins
   * it loaded have settled. Rejects with the plugin's error when it failed to apply, or with the
   * error of a plugin it loaded (a dependency) that failed. A fiber still waiting for an `inject`
   * service resolves while `pending`. The promise is marked handled, so leaving it unawaited
   * never crashes the host with an unhandled rejection (the failure is logged once either way).
   *
   * @example Usage
   * ```ts
   * import { Context } from "./context.ts";
   * import { rejects } from "node:assert/strict";
   * const root = new Context({ logSink: () => {} });
   * const fiber = root.plugin({
   *   name: "needs-bwrap",
   *   apply() {
   *     throw new Error("bwrap is missing");
   *   },
   * });
   * await rejects(fiber.ready, { message: "bwrap is missing" });
   * await root.fiber.dispose();
   * ```
   */
  get ready(): Promise<void> {
    const settled = this.#busy === 0 ? resolved : this.#queue;
    const ready = settled.then(() => this.#checkReady());
    // Marked handled: a host that never awaits `ready` must not die of an unhandled rejection
    // (the failure is already logged once, by `#fail`); whoever awaits it still gets the error.
    ready.catch(() => {});
    return ready;
  }

  #checkReady(): void | Promise<void> {
    if (this.#state === "failed") throw this.#error;
    if (this.#children.size === 0) return;
    return Promise.all([...this.#children].map((child) => child.ready)).then(() => {});
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
    this.#runtime.services.unwatch(this);
    if (this.#parentEffect !== undefined) this.#parent?.effects.delete(this.#parentEffect);
    if (this.#parent !== undefined) this.#parent.fiber.#children.delete(this);
    // Not queued: an `apply` that never settles must not keep the fiber alive.
    let result: void | Promise<void> = undefined;
    try {
      result = this.#stop();
    } catch (error) {
      this.logger.error(`disposing failed: ${errorMessage(error)}`, error);
    }
    return this.#disposal = result instanceof Promise ? result : resolved;
  }

  /** Restarts (or starts) this fiber when it injects the service `changed`. */
  #refresh(changed: string): void {
    if (!this.inject.includes(changed)) return;
    if (this.#state === "disposed" || this.#state === "failed") return;
    if (this.#scope !== undefined) this.#schedule(() => this.#stop());
    this.#schedule(() => this.#start());
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
    const missing = this.#runtime.services.missing(this.inject);
    if (missing.length > 0) {
      this.#state = "pending";
      this.logger.debug(`waiting for services: ${missing.join(", ")}`);
      return;
    }
    const scope: Scope<Fiber, unknown> = { fiber: this, effects: new Set(), closed: false };
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

  #fail(scope: Scope<Fiber, unknown>, error: unknown): void | Promise<void> {
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

function disposeScope(scope: Scope<unknown, unknown>, logger: Logger): void | Promise<void> {
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
