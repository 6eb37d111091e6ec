/**
 * The Code Mode plugin: registers `run_code` (a reserved registration), installs the listing hook
 * of the three modes and the route that denies direct calls under `code`, and adds the SDK section
 * to the system prompt of agents that present tools as code.
 *
 * @module
 */
import type { Context, Plugin } from "../core/context.ts";
import type { Next, ToolCall, ToolRegistry } from "../registry/types.ts";
import { CODE_RUNNER_NAME, codeModeListing, type ToolMode } from "./tool_mode.ts";
import { errorOutcome, type ToolOutcome } from "../tools/outcome.ts";
import { createRunCodeTool } from "./run_code.ts";
import type { CodeRunLimits, CodeRuntime } from "./runtime.ts";
import { codeModePrompt } from "./sdk.ts";
import { subprocessRuntime } from "./subprocess_runtime.ts";
import type { Executor } from "../tools/executor.ts";

/** Config of {@linkcode codeModePlugin}. */
export interface CodeModeConfig {
  /**
   * The mode assumed for an agent that does not expose its own `toolMode`. The agent's
   * `toolMode` option is what the loop passes to `schemas()` and `execute()`; this only decides
   * whether the SDK section is added for such agents.
   * @default {"code"}
   */
  readonly mode?: ToolMode;
  /** The executor. @default {subprocessRuntime({ executor })} */
  readonly runtime?: CodeRuntime;
  /**
   * Where the default runtime starts each program's sandbox process (each session's own
   * environment, see `executorFor`); ignored with `runtime`. @default {this machine}
   */
  readonly executor?: Executor;
  /** Limits per run. @default {DEFAULT_CODE_RUN_LIMITS} */
  readonly limits?: Partial<CodeRunLimits>;
}

/**
 * Code Mode's direct-call denial, `route` middleware (a `ToolMiddleware`) of the tool chain (the plugin installs it):
 * under `mode: "code"` a direct call to a known tool other than `run_code` is `UNKNOWN_TOOL`,
 * before any policy runs, with the way back in the message.
 *
 * @example Usage
 * ```ts
 * import { codeModeRoute } from "./plugin.ts";
 * import { createHarness } from "../registry/tools_plugin.ts";
 * import { equal } from "node:assert/strict";
 * const ctx = await createHarness();
 * ctx.tools.use("route", codeModeRoute);
 * ctx.tools.register({ name: "read", description: "Read", parameters: { type: "object" }, execute: () => [] });
 * const outcome = await ctx.tools.execute({ callId: "c1", name: "read", arguments: {}, mode: "code" });
 * equal(outcome.error?.code, "UNKNOWN_TOOL");
 * await ctx.fiber.dispose();
 * ```
 */
export function codeModeRoute(call: ToolCall, next: Next): Promise<ToolOutcome> | ToolOutcome {
  if (call.mode !== "code" || call.name === CODE_RUNNER_NAME || call.definition === undefined) {
    return next();
  }
  return errorOutcome(
    `unknown tool "${call.name}": only \`${CODE_RUNNER_NAME}\` is callable directly — call \`${call.name}\` from inside a \`${CODE_RUNNER_NAME}\` program instead`,
    { code: "UNKNOWN_TOOL", name: "ToolNotFoundError" },
  );
}

/** The system-prompt waterfall hook the agent loop runs (`agent/SYSTEM_PROMPT_HOOK`). */
export const CODE_MODE_PROMPT_HOOK = "agent/system-prompt";

/**
 * The Code Mode plugin (injects `tools`). It registers `run_code` with
 * `ctx.tools.register(definition, { reserved: true })`, installs {@linkcode codeModeListing} with
 * `ctx.tools.listing()` and {@linkcode codeModeRoute} as `route` middleware, and listens on
 * `agent/system-prompt`: for an agent whose mode is `code` or `both` (its `toolMode` property, else
 * the config's `mode`) it appends {@linkcode codeModePrompt} for the visible tools. The section is
 * byte-identical while the tool set is unchanged.
 *
 * Modes ({@linkcode ToolMode}): `native` shows the model every tool and not `run_code`; `code`
 * shows only `run_code` (direct calls to other tools get `UNKNOWN_TOOL` with the way back); `both`
 * shows everything; another mode makes `schemas()` throw. An agent picks its mode with
 * `createAgent(ctx, { toolMode: "code" })`.
 *
 * @example Usage
 * ```ts ignore
 * import { createHarness } from "../registry/tools_plugin.ts";
 * import { codeModePlugin } from "./plugin.ts";
 * const ctx = await createHarness();
 * ctx.plugin(codeModePlugin, { limits: { timeoutMs: 30_000 } });
 * ```
 */
export const codeModePlugin: Plugin<CodeModeConfig | undefined> = {
  name: "codemode",
  inject: ["tools"],
  apply(ctx: Context, config: CodeModeConfig | undefined): void {
    const tools = ctx.get<ToolRegistry>("tools");
    if (tools === undefined) {
      throw new TypeError("Cannot apply codemode: ctx.tools is not provided");
    }
    const { mode = "code", runtime, limits, executor } = config ?? {};
    tools.use("route", codeModeRoute);
    tools.listing(codeModeListing);
    const chosen = runtime ??
      (executor === undefined ? undefined : subprocessRuntime({ executor }));
    const runCode = createRunCodeTool(tools, {
      ...(chosen === undefined ? {} : { runtime: chosen }),
      ...(limits === undefined ? {} : { limits }),
    });
    tools.register(runCode, { reserved: true });
    // One section per scope, made again after the tool set changes.
    const sections = new Map<string | undefined, string>();
    ctx.on("tools/changed", () => sections.clear());
    ctx.on(CODE_MODE_PROMPT_HOOK, function addCodeModeSection(prompt: unknown, agent: unknown) {
      const { toolMode: agentMode, sessionId } =
        (agent as { toolMode?: unknown; sessionId?: unknown } | undefined) ?? {};
      const effective = typeof agentMode === "string" ? agentMode : mode;
      if (effective !== "code" && effective !== "both") return undefined;
      // The agent's view: global tools plus its session's own (for example its editor's MCP tools).
      const scope = typeof sessionId === "string" ? sessionId : undefined;
      let section = sections.get(scope);
      if (section === undefined) {
        sections.set(
          scope,
          section = codeModePrompt(tools.list(scope === undefined ? undefined : { scope })),
        );
      }
      return `${typeof prompt === "string" ? prompt : ""}\n\n${section}`;
    });
  },
};
