/**
 * Private: the state one context tree shares, and the explicit arguments `Context` and `Fiber`
 * construct each other with (no module-level hand-off).
 *
 * @module
 */
import type { Context, ContextOptions } from "./context.ts";
import type { Fiber } from "./fiber.ts";
import type { Logger } from "./logger.ts";
import type { Disposer } from "./plugin.ts";
import type { Listeners } from "./_events.ts";
import type { Services } from "./_services.ts";

/** One activation of a fiber: its effects and (lazily) its context. */
export interface Scope {
  readonly fiber: Fiber;
  readonly effects: Set<Disposer>;
  closed: boolean;
  ctx?: Context;
}

/** Shared state of one context tree (one root). */
export interface Runtime {
  readonly services: Services;
  readonly listeners: Listeners;
  readonly logger: Logger;
  /** Makes the context of `scope` (a child `Context` bound to this runtime). */
  readonly newContext: (scope: Scope) => Context;
}

/** What a new fiber is built from. */
export interface FiberInit {
  readonly runtime: Runtime;
  readonly parent: Scope | undefined;
  readonly apply: (ctx: Context, config: unknown) => void | Promise<void>;
  readonly config: unknown;
  readonly inject: readonly string[];
  readonly name: string;
}

/** What a fiber's constructor hands back to core: the operations that reach its private state. */
export interface FiberControls {
  /** Schedules the first activation (waits when an `inject` service is missing). */
  start(): void;
  /** Makes a root fiber active at once and returns its scope. */
  activateRoot(): Scope;
}

/**
 * The argument core passes to `new Fiber()`; nothing outside core can make one, so nothing else can
 * construct a fiber. The constructor fills in `controls`.
 */
export class FiberSeed {
  readonly init: FiberInit;
  controls: FiberControls | undefined;

  constructor(init: FiberInit) {
    this.init = init;
  }
}

/** The options `new Context()` gets for a child context: the tree it joins and its activation. */
export class ContextSeed implements ContextOptions {
  readonly name: string;
  readonly runtime: Runtime;
  readonly scope: Scope;

  constructor(runtime: Runtime, scope: Scope) {
    this.name = scope.fiber.name;
    this.runtime = runtime;
    this.scope = scope;
  }
}
