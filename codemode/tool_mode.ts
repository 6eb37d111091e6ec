/**
 * Code Mode's presentation of the tools: the `run_code` transport's name, the three modes and the
 * listing hook that decides what each mode shows the model (`ctx.tools.schemas({ mode })`).
 *
 * @module
 */
import { describeValue } from "../core/error_message.ts";
import type { AnyToolDefinition } from "../tools/definition.ts";

/**
 * The name of the Code Mode transport tool: reserved in every registry (only a reserved
 * registration, which the Code Mode plugin makes, may take it) and never part of the SDK.
 *
 * @example Usage
 * ```ts
 * import { CODE_RUNNER_NAME } from "./tool_mode.ts";
 * import { equal } from "node:assert/strict";
 * equal(CODE_RUNNER_NAME, "run_code");
 * ```
 */
export const CODE_RUNNER_NAME = "run_code";

/**
 * How tools are presented to the model: `native` lists every tool but `run_code`, `code` only
 * `run_code` (the other tools are called from its programs), `both` everything.
 */
export type ToolMode = "native" | "code" | "both";

/** The modes of {@linkcode ToolMode}. */
const MODES: readonly ToolMode[] = Object.freeze(["native", "code", "both"]);

/**
 * Code Mode's listing hook (`ctx.tools.listing(codeModeListing)`, which the plugin installs):
 * under `native` every tool but `run_code`, under `code` only `run_code`, under `both` all.
 *
 * @param definition A visible tool.
 * @param mode The listing mode `schemas({ mode })` was asked for.
 * @returns Whether the model sees `definition` under `mode`.
 * @throws {TypeError} For a mode other than the three.
 *
 * @example Usage
 * ```ts
 * import { codeModeListing } from "./tool_mode.ts";
 * import { equal, throws } from "node:assert/strict";
 * const read = { name: "read", description: "Read", parameters: {}, execute: () => [] };
 * equal(codeModeListing(read, "native"), true);
 * equal(codeModeListing(read, "code"), false);
 * throws(() => codeModeListing(read, "fast"), TypeError);
 * ```
 */
export function codeModeListing(definition: AnyToolDefinition, mode: string): boolean {
  switch (mode) {
    case "native":
      return definition.name !== CODE_RUNNER_NAME;
    case "code":
      return definition.name === CODE_RUNNER_NAME;
    case "both":
      return true;
  }
  throw new TypeError(
    `Cannot list tool schemas: mode is ${describeValue(mode)}, expected ${
      MODES.map((m) => JSON.stringify(m)).join(", ")
    }`,
  );
}
