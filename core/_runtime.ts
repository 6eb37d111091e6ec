/**
 * Private: the state one context tree shares, and the explicit arguments `Context` and `Fiber`
 * construct each other with (no module-level hand-off).
 *
 * @module
 */
import type { Logger, LogLevel, LogSink } from "./logger.ts";
import type { Listeners } from "./_events.ts";
import type { Services } from "./_services.ts";

/** Options of the root `Context` (re-exported by `context.ts`). */
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

/** Undoes an effect. May be async. */
export type Disposer = () => void | Promise<void>;

/**
 * The shapes below are generic over the fiber type `F` and the context type `X` (Hono's way of
 * typing `c.env`), so that this file imports neither `fiber.ts` nor `context.ts`: `Context`
 * instantiates them with itself and `Fiber<Context>`, and core has no import cycle.
 */
interface Named {
  readonly name: string;
}

/** One activation of a fiber: its effects and (lazily) its context. */
export interface Scope<F, X> {
  readonly fiber: F;
  readonly effects: Set<Disposer>;
  closed: boolean;
  ctx?: X;
}

/** Shared state of one context tree (one root). */
export interface Runtime<F, X> {
  readonly services: Services;
  readonly listeners: Listeners;
  readonly logger: Logger;
  /** Makes the context of `scope` (a child `Context` bound to this runtime). */
  readonly newContext: (scope: Scope<F, X>) => X;
}

/** What a new fiber is built from. */
export interface FiberInit<F, X> {
  readonly runtime: Runtime<F, X>;
  readonly parent: Scope<F, X> | undefined;
  readonly apply: (ctx: X, config: unknown) => void | Promise<void>;
  readonly config: unknown;
  readonly inject: readonly string[];
  readonly name: string;
}

/** What a fiber's constructor hands back to core: the operations that reach its private state. */
export interface FiberControls<F, X> {
  /** Schedules the first activation (waits when an `inject` service is missing). */
  start(): void;
  /** Makes a root fiber active at once and returns its scope. */
  activateRoot(): Scope<F, X>;
}

/**
 * The argument core passes to `new Fiber()`; nothing outside core can make one, so nothing else can
 * construct a fiber. The constructor fills in `controls`.
 */
export class FiberSeed<F, X> {
  readonly init: FiberInit<F, X>;
  controls: FiberControls<F, X> | undefined;

  constructor(init: FiberInit<F, X>) {
    this.init = init;
  }
}

/** The options `new Context()` gets for a child context: the tree it joins and its activation. */
export class ContextSeed<F extends Named, X> {
  readonly name: string;
  readonly runtime: Runtime<F, X>;
  readonly scope: Scope<F, X>;

  constructor(runtime: Runtime<F, X>, scope: Scope<F, X>) {
    this.name = scope.fiber.name;
    this.runtime = runtime;
    this.scope = scope;
  }
}
