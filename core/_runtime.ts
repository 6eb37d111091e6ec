/**
 * Private: the state one context tree shares, and the hand-off between `Context` and `Fiber`.
 *
 * `context.ts` and `fiber.ts` need each other at run time (a context starts fibers, a fiber makes
 * the context of each activation). Only types cross between them; the values meet here, so the
 * module graph stays acyclic.
 *
 * @module
 */
import type { Context } from "./context.ts";
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

/** Fiber operations that reach its `#private` state; `fiber.ts` fills them in when it loads. */
export interface FiberOps {
  /** Builds a fiber (the public constructor refuses to). */
  create(init: FiberInit): Fiber;
  /** Schedules the first activation (waits when an `inject` service is missing). */
  start(fiber: Fiber): void;
  /** Restarts (or starts) `fiber` when it injects the service `changed`. */
  refresh(fiber: Fiber, changed: string): void;
  /** Makes a root fiber active at once and returns its scope. */
  activateRoot(fiber: Fiber): Scope;
}

function notLoaded(): never {
  throw new Error("Cannot use a fiber: core/fiber.ts has not been loaded");
}

/** Filled in by `Fiber`'s static block. */
export const fiberOps: FiberOps = {
  create: notLoaded,
  start: notLoaded,
  refresh: notLoaded,
  activateRoot: notLoaded,
};
