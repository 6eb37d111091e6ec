/**
 * The service slots of `Context`: the harness services it declares as getters (`ctx.tools`,
 * `ctx.jobs`, `ctx.approval`) and the types they are read with.
 *
 * @module
 */

/**
 * The harness services a context carries, as the type parameter of {@linkcode Context} (Hono's
 * `Env` pattern): `Context<{ tools: ToolRegistry }>` types `ctx.tools`. Each is a declared getter
 * of `Context`; a missing key types it `unknown`.
 *
 * @example Usage
 * ```ts
 * import { Context } from "./context.ts";
 * import { equal } from "node:assert/strict";
 * const root = new Context() as Context<{ tools: { count: number } }>;
 * root.provide("tools", { count: 1 });
 * equal(root.tools.count, 1);
 * ```
 */
export interface ServiceTypes {
  /** `ctx.tools`: the tool registry (`registry/`'s `tools` plugin). */
  readonly tools?: unknown;
  /** `ctx.jobs`: long-running work (`jobs/`'s plugin). */
  readonly jobs?: unknown;
  /** `ctx.approval`: where `ask` decisions go (the ACP server provides it). */
  readonly approval?: unknown;
}

/**
 * The type of the service slot `K` of `S`: required, optional (`| undefined`) or `unknown`.
 *
 * @typeParam S The services.
 * @typeParam K The slot.
 */
export type ServiceSlot<S, K extends keyof ServiceTypes> = S extends { readonly [P in K]: infer T }
  ? T
  : S extends { readonly [P in K]?: infer T } ? T | undefined
  : unknown;

/**
 * The names of the declared service getters of `Context` (valid `provide()` names although they are
 * Context members).
 *
 * @example Usage
 * ```ts
 * import { SERVICE_SLOTS } from "./service_types.ts";
 * import { equal } from "node:assert/strict";
 * equal(SERVICE_SLOTS.has("tools"), true);
 * ```
 */
export const SERVICE_SLOTS: ReadonlySet<string> = new Set(["tools", "jobs", "approval"]);
