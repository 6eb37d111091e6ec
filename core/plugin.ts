/**
 * The plugin shapes a {@linkcode Context} loads: an object or module namespace
 * `{ name, inject, apply }`, or a plain function. They are declared in `context.ts` (next to the
 * `Context` their `apply` receives) and `_runtime.ts`, so that core has no import cycle.
 *
 * @module
 */
export type { Disposer } from "./_runtime.ts";
export type { Context, Plugin, PluginFunction } from "./context.ts";
