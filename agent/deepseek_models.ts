/**
 * DeepSeek's model ids, current and retired, with no dependencies, so that configuration
 * checks can reject a retired id at start-up without loading the adapter.
 *
 * @module
 */

/**
 * The model ids DeepSeek serves today (`deepseek-v4-flash` is an alias of `deepseek-flash`).
 *
 * @example Usage
 * ```ts
 * import { DEEPSEEK_CURRENT_MODELS } from "./deepseek_models.ts";
 * import { equal } from "node:assert/strict";
 * equal(DEEPSEEK_CURRENT_MODELS[0], "deepseek-flash");
 * ```
 */
export const DEEPSEEK_CURRENT_MODELS: readonly string[] = Object.freeze([
  "deepseek-flash",
  "deepseek-v4-pro",
  "deepseek-v4-flash",
]);

/**
 * The ids DeepSeek retired on 2026-07-24; a request naming one fails.
 *
 * @example Usage
 * ```ts
 * import { DEEPSEEK_RETIRED_MODELS } from "./deepseek_models.ts";
 * import { ok } from "node:assert/strict";
 * ok(DEEPSEEK_RETIRED_MODELS.includes("deepseek-chat"));
 * ```
 */
export const DEEPSEEK_RETIRED_MODELS: readonly string[] = Object.freeze([
  "deepseek-chat",
  "deepseek-reasoner",
]);

/**
 * The current ids in words: `"deepseek-flash" (recommended), "deepseek-v4-pro" or
 * "deepseek-v4-flash" (an alias of "deepseek-flash")`.
 *
 * @returns The list for messages.
 *
 * @example Usage
 * ```ts
 * import { currentModelsText } from "./deepseek_models.ts";
 * import { match } from "node:assert/strict";
 * match(currentModelsText(), /^"deepseek-flash" \(recommended\)/);
 * ```
 */
export function currentModelsText(): string {
  const [recommended, pro, alias] = DEEPSEEK_CURRENT_MODELS;
  return `"${recommended}" (recommended), "${pro}" or "${alias}" (an alias of "${recommended}")`;
}

/**
 * Why a model id cannot work: a retired id names its retirement and the current ids; any other
 * id passes (OpenAI-compatible servers at another base URL serve other models).
 *
 * @param id The model id.
 * @returns The problem, or `undefined` when the id is not retired.
 *
 * @example Usage
 * ```ts
 * import { retiredModelProblem } from "./deepseek_models.ts";
 * import { equal, match } from "node:assert/strict";
 * match(retiredModelProblem("deepseek-chat")!, /^"deepseek-chat" was retired on 2026-07-24/);
 * equal(retiredModelProblem("deepseek-flash"), undefined);
 * ```
 */
export function retiredModelProblem(id: string): string | undefined {
  if (!DEEPSEEK_RETIRED_MODELS.includes(id)) return undefined;
  return `${JSON.stringify(id)} was retired on 2026-07-24: use ${currentModelsText()}`;
}
