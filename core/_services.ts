/**
 * Private: the services of one context tree and the fibers waiting on them (`inject`).
 *
 * @module
 */

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

const SERVICE_NAME_REGEXP = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const RESERVED = new Set(["then", "constructor", "prototype", "__proto__"]);

/** The provided services of one tree and the fibers that inject them. */
export class Services {
  readonly #reserved: (name: string) => boolean;
  readonly #services = new Map<string, object>();
  /** Each fiber with `inject` names, and how to restart it when one of them changes. */
  readonly #dependents = new Map<object, (changed: string) => void>();

  /** @param reserved Names that are not valid service names (the non-service Context members). */
  constructor(reserved: (name: string) => boolean) {
    this.#reserved = reserved;
  }

  get(name: string): object | undefined {
    return this.#services.get(name);
  }

  /** The names in `inject` that are not provided. */
  missing(inject: readonly string[]): string[] {
    return inject.filter((name) => !this.#services.has(name));
  }

  /** Tracks a fiber with `inject` names: `refresh(name)` runs when the service `name` changes. */
  watch(fiber: object, refresh: (changed: string) => void): void {
    this.#dependents.set(fiber, refresh);
  }

  unwatch(fiber: object): void {
    this.#dependents.delete(fiber);
  }

  /**
   * Sets `name` and restarts its dependents; returns the withdrawal (a no-op once replaced).
   *
   * @throws {TypeError} When the name is reserved or not an identifier.
   */
  provide(name: string, service: object): () => void {
    if (!SERVICE_NAME_REGEXP.test(name) || RESERVED.has(name) || this.#reserved(name)) {
      throw new TypeError(
        `Cannot provide service ${
          JSON.stringify(name)
        }: the name must be an identifier that is not a Context member`,
      );
    }
    this.#services.set(name, service);
    this.#notify(name);
    return () => {
      if (this.#services.get(name) !== service) return;
      this.#services.delete(name);
      this.#notify(name);
    };
  }

  #notify(name: string): void {
    // A copy: restarting a fiber may add or remove dependents.
    for (const refresh of [...this.#dependents.values()]) refresh(name);
  }
}
