/**
 * Type-level inference from the schema DSL: `InferArgs<P>` for a parameters map and
 * `InferValue<S>` for one value spec (docs/contracts.md §1 "Type-level inference").
 *
 * @module
 */
import type { JsonValue } from "../core/json.ts";

/** Container levels inferred before falling back to `JsonValue` (keeps the checker stack-safe). */
export type MaxInferDepth = 16;

/** Depth countdown: `PrevDepth[D]` is `D - 1`. */
export type PrevDepth = [never, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/**
 * Flattens an intersection into one object type, so hovers read `{ path: string; limit?: number }`.
 *
 * @typeParam T The type to flatten.
 */
export type Flatten<T> = { [K in keyof T]: T[K] } & unknown;

/**
 * The keys of a properties map whose spec says `required: true`.
 *
 * @typeParam P The properties map.
 */
export type RequiredKeys<P> = {
  [K in keyof P]-?: P[K] extends { readonly required: true } ? K : never;
}[keyof P];

/**
 * The object type of a properties map: keys with `required: true` are required, the rest
 * optional.
 *
 * @typeParam P The properties map.
 * @typeParam D Remaining container levels.
 */
export type InferProperties<P, D extends number = MaxInferDepth> = string extends keyof P
  // A wide map (no literal keys) would expand every spec kind at every level.
  ? { [key: string]: JsonValue }
  : Flatten<
    & { -readonly [K in RequiredKeys<P>]: InferValue<P[K], D> }
    & { -readonly [K in Exclude<keyof P, RequiredKeys<P>>]?: InferValue<P[K], D> }
  >;

/**
 * The type of an object spec (open, closed or empty).
 *
 * @typeParam S The object spec.
 * @typeParam D Remaining container levels.
 */
export type InferObject<S, D extends number> = S extends { readonly properties: infer P }
  ? [keyof P] extends [never] ? InferEmptyObject<S>
  : S extends { readonly additionalProperties: true }
    ? Flatten<InferProperties<P, D> & { [key: string]: JsonValue }>
  : InferProperties<P, D>
  : InferEmptyObject<S>;

/**
 * The type of an object spec without properties.
 *
 * @typeParam S The object spec.
 */
export type InferEmptyObject<S> = S extends { readonly additionalProperties: true }
  ? Record<string, JsonValue>
  : Record<string, never>;

/**
 * The type of a spec by its `type` keyword.
 *
 * @typeParam S The spec.
 * @typeParam T Its `type`.
 * @typeParam D Remaining container levels.
 */
export type InferType<S, T, D extends number> = T extends "string" ? string
  : T extends "number" | "integer" ? number
  : T extends "boolean" ? boolean
  : T extends "null" ? null
  : T extends "array"
    ? S extends { readonly items: infer I } ? InferValue<I, PrevDepth[D]>[] : JsonValue[]
  : T extends "object" ? InferObject<S, PrevDepth[D]>
  : JsonValue;

/**
 * The TypeScript type of a value spec: `const` gives its literal, `enum` the union of its
 * members, `oneOf` the union of its branches, `json` `JsonValue`; objects and arrays nest up to
 * {@linkcode MaxInferDepth} container levels, then fall back to `JsonValue`.
 *
 * @typeParam S The value spec (declare it with `as const` or through `defineTool`).
 * @typeParam D Remaining container levels.
 *
 * @example Usage
 * ```ts
 * import type { InferValue } from "./infer.ts";
 * const mode = { type: "string", enum: ["fast", "slow"] } as const;
 * const value: InferValue<typeof mode> = "fast";
 * ```
 */
export type InferValue<S, D extends number = MaxInferDepth> = [D] extends [0] ? JsonValue
  : S extends { readonly const: infer C } ? C
  : S extends { readonly enum: readonly (infer E)[] } ? E
  : S extends { readonly oneOf: readonly (infer B)[] }
    ? B extends unknown ? InferValue<B, D> : never
  : S extends { readonly type: infer T } ? InferType<S, T, D>
  : JsonValue;

/**
 * The argument type of a tool from its parameters map: required keys for `required: true`,
 * optional keys otherwise, flattened for readable hovers.
 *
 * @typeParam P The parameters map.
 *
 * @example Usage
 * ```ts
 * import type { InferArgs } from "./infer.ts";
 * const parameters = {
 *   path: { type: "string", required: true },
 *   limit: { type: "number" },
 * } as const;
 * const args: InferArgs<typeof parameters> = { path: "/etc/hosts" };
 * ```
 */
export type InferArgs<P> = InferProperties<P, MaxInferDepth>;
