/**
 * The plugin shapes a {@linkcode Context} loads: an object or module namespace
 * `{ name, inject, apply }`, or a plain function.
 *
 * @module
 */
import type { Context } from "./context.ts";

/** Undoes an effect. May be async. */
export type Disposer = () => void | Promise<void>;

/**
 * A plugin object or module namespace: `{ name, inject, apply }`.
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
