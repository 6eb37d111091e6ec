/**
 * Private: the services of one context tree and the fibers waiting on them (`inject`).
 *
 * @module
 */
import type { Fiber } from "./fiber.ts";
import { fiberOps } from "./_runtime.ts";

const SERVICE_NAME_REGEXP = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const RESERVED = new Set(["then", "constructor", "prototype", "__proto__"]);

/** The provided services, their `ctx[name]` accessors and the fibers that inject them. */
export class Services {
  /** The prototype of every context of the tree; each provided name gets a getter here. */
  readonly proto: object;
  readonly #members: object;
  readonly #services = new Map<string, object>();
  readonly #dependents = new Set<Fiber>();

  /** @param members `Context.prototype` (its members are not valid service names). */
  constructor(members: object) {
    this.#members = members;
    this.proto = Object.create(members);
  }

  get(name: string): object | undefined {
    return this.#services.get(name);
  }

  /** The names in `inject` that are not provided. */
  missing(inject: readonly string[]): string[] {
    return inject.filter((name) => !this.#services.has(name));
  }

  /** Tracks a fiber with `inject` names so it restarts when one of them changes. */
  watch(fiber: Fiber): void {
    this.#dependents.add(fiber);
  }

  unwatch(fiber: Fiber): void {
    this.#dependents.delete(fiber);
  }

  /**
   * Sets `name` and restarts its dependents; returns the withdrawal (a no-op once replaced).
   *
   * @throws {TypeError} When the name is reserved or not an identifier.
   */
  provide(name: string, service: object): () => void {
    if (!SERVICE_NAME_REGEXP.test(name) || RESERVED.has(name) || name in this.#members) {
      throw new TypeError(
        `Cannot provide service ${
          JSON.stringify(name)
        }: the name must be an identifier that is not a Context member`,
      );
    }
    if (!Object.hasOwn(this.proto, name)) {
      Object.defineProperty(this.proto, name, {
        configurable: true,
        enumerable: false,
        get(this: { get(name: string): unknown }) {
          return this.get(name);
        },
      });
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
    for (const fiber of [...this.#dependents]) fiberOps.refresh(fiber, name);
  }
}
