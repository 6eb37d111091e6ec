/**
 * Private: the listener lists of one context tree and the four ways to dispatch them (emit, bail,
 * waterfall, around). `Context` owns the public methods and their docs; this holds the mechanics.
 *
 * @module
 */
import { compose } from "./compose.ts";
import { errorMessage } from "./error_message.ts";
import type { Logger } from "./logger.ts";

/** An event listener; its shape depends on how the event is dispatched. */
// deno-lint-ignore no-explicit-any
export type Listener = (...args: any[]) => unknown;

interface Entry {
  readonly fn: Listener;
  /** The listener's fiber (its name labels the log line of a throw). */
  readonly fiber: { readonly name: string };
}

type Composed = (arg: unknown, body: (arg: unknown) => Promise<unknown>) => Promise<unknown>;
type Body = (arg: unknown) => Promise<unknown>;

/** Every event's listeners, in registration order. Lists are replaced, never mutated. */
export class Listeners {
  readonly #lists = new Map<string, readonly Entry[]>();
  readonly #composed = new Map<string, { list: readonly Entry[]; run: Composed }>();
  readonly #logger: Logger;
  #version = 0;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Adds `fn` for `fiber`; returns its removal (idempotent). */
  add(event: string, fn: Listener, fiber: { readonly name: string }): () => void {
    const lists = this.#lists;
    const entry: Entry = { fn, fiber };
    lists.set(event, [...(lists.get(event) ?? []), entry]);
    this.#version++;
    return () => {
      const list = lists.get(event);
      if (list === undefined || !list.includes(entry)) return;
      const rest = list.filter((e) => e !== entry);
      if (rest.length === 0) lists.delete(event);
      else lists.set(event, rest);
      this.#version++;
    };
  }

  /** Changes whenever a listener is added or removed (for caches built from the lists). */
  get version(): number {
    return this.#version;
  }

  count(event: string): number {
    return this.#lists.get(event)?.length ?? 0;
  }

  emit(event: string, args: unknown[]): void {
    const list = this.#lists.get(event);
    if (list === undefined) return;
    for (const entry of list) {
      try {
        const result = entry.fn(...args);
        if (result instanceof Promise) {
          result.catch((error) => this.#failed(entry, event, error));
        }
      } catch (error) {
        this.#failed(entry, event, error);
      }
    }
  }

  async bail(event: string, args: unknown[]): Promise<unknown> {
    const list = this.#lists.get(event);
    if (list === undefined) return undefined;
    for (const entry of list) {
      const result = await entry.fn(...args);
      if (result !== undefined) return result;
    }
    return undefined;
  }

  async waterfall<T>(event: string, value: T, args: unknown[]): Promise<T> {
    const list = this.#lists.get(event);
    if (list === undefined) return value;
    let current = value;
    for (const entry of list) {
      const next = await entry.fn(current, ...args);
      if (next !== undefined) current = next as T;
    }
    return current;
  }

  around<A, T>(event: string, arg: A, body: (arg: A) => Promise<T>): Promise<T> {
    const list = this.#lists.get(event);
    if (list === undefined) return body(arg);
    // Composed once per listener change, not per call (the registry runs every tool through it).
    let cached = this.#composed.get(event);
    if (cached === undefined || cached.list !== list) {
      const run = compose<unknown, Body, unknown>(
        list.map((entry) => (arg, next) => entry.fn(arg, () => next())),
        (arg, body) => body(arg),
      );
      cached = { list, run };
      this.#composed.set(event, cached);
    }
    return cached.run(arg, body as (arg: unknown) => Promise<unknown>) as Promise<T>;
  }

  #failed(entry: Entry, event: string, error: unknown): void {
    this.#logger.child(entry.fiber.name).error(
      `listener for "${event}" threw: ${errorMessage(error)}`,
      error,
    );
  }
}
