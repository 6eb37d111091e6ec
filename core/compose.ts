/**
 * The one onion chain of dsh (hono:src/compose.ts): `ctx.around()` listeners and the registry's
 * call chain both run through {@linkcode compose}.
 *
 * @module
 */

/**
 * One layer of a chain: the value, and `next` running the rest of it. `next(extra)` hands the
 * inner layers a replacement for the second argument (the registry's signal); `next()` keeps it.
 *
 * @typeParam T The value every layer receives.
 * @typeParam X The replaceable second argument.
 * @typeParam R The result.
 */
export type Middleware<T, X, R> = (value: T, next: (extra?: X) => Promise<R>) => Promise<R> | R;

/**
 * Composes `middleware` around `handler`, Hono-style: layer `i` gets
 * `next = (extra?) => dispatch(i + 1)`; the first layer is outermost, skipping `next()`
 * short-circuits, calling it twice rejects, and a synchronous throw anywhere becomes a rejection.
 *
 * @typeParam T The value every layer receives.
 * @typeParam X The replaceable second argument.
 * @typeParam R The result.
 * @param middleware The layers, outermost first (read once: later changes to the array are not seen).
 * @param handler The innermost step.
 * @returns The composed chain.
 *
 * @example Usage
 * ```ts
 * import { compose } from "./compose.ts";
 * import { deepEqual } from "node:assert/strict";
 * const run = compose<string, number, string>([
 *   async (value, next) => `<${await next()}>`,
 *   (value, next) => next(2),
 * ], (value, extra) => `${value}${extra}`);
 * deepEqual(await run("a", 1), "<a2>");
 * ```
 */
export function compose<T, X, R>(
  middleware: readonly Middleware<T, X, R>[],
  handler: (value: T, extra: X) => Promise<R> | R,
): (value: T, extra: X) => Promise<R> {
  const layers = middleware.slice();
  const end = layers.length;
  return (value, extra) => {
    let index = -1;
    const dispatch = (i: number, current: X): Promise<R> => {
      if (i <= index) return Promise.reject(new Error("next() called multiple times"));
      index = i;
      try {
        return Promise.resolve(
          i === end
            ? handler(value, current)
            : layers[i]!(value, (next) => dispatch(i + 1, next === undefined ? current : next)),
        );
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return dispatch(0, extra);
  };
}
