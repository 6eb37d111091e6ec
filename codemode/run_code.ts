/**
 * The `run_code` tool: runs a program in a {@linkcode CodeRuntime} and routes each
 * `await tools.<name>(args)` back through the full registry pipeline.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../core/json.ts";
import { type ContentBlock, contentText } from "../tools/content.ts";
import type { ToolDefinition, ToolExecution } from "../tools/definition.ts";
import type { GenericCallView } from "../tools/views.ts";
import type { ToolRegistry } from "../registry/types.ts";
import { CodeRunFailedError } from "./code_run_failed_error.ts";
import type { CodeRunLimits, CodeRunResult, CodeRuntime, CodeToolCall } from "./runtime.ts";
import { CODE_RUNNER_NAME } from "./tool_mode.ts";
import { subprocessRuntime } from "./subprocess_runtime.ts";

/** Arguments of `run_code`. */
export interface RunCodeArgs {
  /** The body of an async function (TypeScript allowed). */
  readonly code: string;
  /** A short title for the card. */
  readonly description?: string;
}

/** Options of {@linkcode createRunCodeTool}. */
export interface RunCodeOptions {
  /** The executor. @default {subprocessRuntime()} */
  readonly runtime?: CodeRuntime;
  /** Limits per run; missing fields use the runtime defaults. */
  readonly limits?: Partial<CodeRunLimits>;
}

/** The text of a run with neither logs nor a value. */
export const EMPTY_RUN_TEXT = "(run_code completed with no output)";

const PARAMETERS = {
  type: "object",
  properties: {
    code: {
      type: "string",
      description:
        "The body of an async function in TypeScript: call tools with `await tools.<name>(args)`, log with `console.log`, and `return` the result.",
    },
    description: {
      type: "string",
      description: "A short title (5-10 words) for what the program does.",
    },
  },
  required: ["code"],
  additionalProperties: false,
} as const;

/**
 * The model-facing text of a successful run: the logs joined by newlines, then the returned value
 * (strings raw, anything else as indented JSON); {@linkcode EMPTY_RUN_TEXT} when both are empty.
 *
 * @param result The run's logs and value.
 * @returns The text.
 *
 * @example Usage
 * ```ts
 * import { formatRunOutput } from "./run_code.ts";
 * import { equal } from "node:assert/strict";
 * equal(formatRunOutput({ logs: ["a"], value: { n: 1 } }), 'a\n{\n  "n": 1\n}');
 * equal(formatRunOutput({ logs: [] }), "(run_code completed with no output)");
 * ```
 */
export function formatRunOutput(result: Pick<CodeRunResult, "logs" | "value">): string {
  const parts = [...result.logs];
  if (result.value !== undefined) {
    parts.push(
      typeof result.value === "string" ? result.value : JSON.stringify(result.value, null, 2),
    );
  }
  const text = parts.join("\n");
  return text === "" ? EMPTY_RUN_TEXT : text;
}

function parseArgs(args: unknown): RunCodeArgs {
  const record = (args ?? {}) as Record<string, unknown>;
  if (typeof record.code !== "string") {
    throw new TypeError(
      `invalid arguments: "code" must be a string (the body of an async function): current value is ${
        clip(JSON.stringify(record.code) ?? "undefined")
      }`,
    );
  }
  if (record.description !== undefined && typeof record.description !== "string") {
    throw new TypeError(
      `invalid arguments: "description" must be a string: current value is ${
        clip(JSON.stringify(record.description))
      }`,
    );
  }
  return record as unknown as RunCodeArgs;
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function appendDispatch(exec: ToolExecution, data: JsonObject): void {
  try {
    exec.agent?.appendEvent("tool/code-dispatch", data);
  } catch { /* a disposed agent: the log is gone, the call already happened */ }
}

/**
 * Creates the `run_code` definition, to be registered with
 * `ctx.tools.register(definition, { reserved: true })` (the Code Mode plugin does).
 *
 * Each program call re-enters `tools.execute()` as callId `<outer>:code:<n>` with `parent` = the
 * run_code token, the same agent, the run-scoped abort and `mode: "native"`; it is logged as a
 * `tool/code-dispatch` event. Success resolves to the result's text (non-text blocks become
 * placeholders); failure rejects with `ToolCallError` carrying the error message. Sub-call
 * `additionalContexts` and image-bearing successes are deferred through the outer call. A failed
 * run throws {@linkcode CodeRunFailedError}.
 *
 * @param tools The registry the calls re-enter (`ctx.tools`).
 * @param options Runtime and limits.
 * @returns The definition.
 *
 * @example Usage
 * ```ts
 * import { createRunCodeTool } from "./run_code.ts";
 * import type { ToolRegistry } from "../registry/types.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 * const tool = createRunCodeTool({} as ToolRegistry);
 * equal(tool.name, "run_code");
 * deepEqual(tool.presentCall?.({ code: "return 1", description: "One" }), {
 *   card: "generic",
 *   title: "One",
 *   kind: "execute",
 *   rawInput: "return 1",
 * });
 * ```
 */
export function createRunCodeTool(
  tools: ToolRegistry,
  options: RunCodeOptions = {},
): ToolDefinition<RunCodeArgs> {
  const runtime = options.runtime ?? subprocessRuntime();
  const limits = options.limits ?? {};

  async function callTool(exec: ToolExecution, call: CodeToolCall): Promise<string> {
    if (call.name === CODE_RUNNER_NAME) {
      throw new Error(`"${CODE_RUNNER_NAME}" cannot be called from inside a program`);
    }
    const subCallId = `${exec.callId}:code:${call.index}`;
    const outcome = await tools.execute({
      callId: subCallId,
      name: call.name,
      arguments: call.args,
      parent: exec.token,
      signal: call.signal,
      mode: "native",
      ...(exec.agent === undefined ? {} : { agent: exec.agent }),
    });
    appendDispatch(exec, {
      parentCallId: exec.callId,
      subCallId,
      name: call.name,
      arguments: call.args,
      isError: outcome.isError,
      content: outcome.content as unknown as JsonValue,
    });
    for (const context of outcome.additionalContexts ?? []) exec.deferContext(context);
    if (outcome.isError) {
      throw new Error(
        outcome.error?.message ?? contentText(outcome.content).replace(/^Error: /, ""),
      );
    }
    if (outcome.content.some((block) => block.type === "image")) exec.deferContext(outcome.content);
    return contentText(outcome.content);
  }

  return {
    name: CODE_RUNNER_NAME,
    description:
      "Runs a TypeScript program that calls tools as `await tools.<name>(args)` (see the Code Mode section of the system prompt for the API). Returns the program's logs and its returned value.",
    parameters: PARAMETERS,
    async execute(args: RunCodeArgs, exec: ToolExecution): Promise<readonly ContentBlock[]> {
      const { code } = parseArgs(args);
      const result = await runtime.run({
        program: code,
        signal: exec.signal,
        limits,
        callTool: (call) => callTool(exec, call),
        ...(exec.agent === undefined
          ? {}
          : { sessionId: exec.agent.sessionId, cwd: exec.agent.cwd }),
      });
      if (result.error) {
        throw new CodeRunFailedError(result.error.kind, result.error.message, result.logs);
      }
      return [{ type: "text", text: formatRunOutput(result) }];
    },
    presentCall(args: RunCodeArgs): GenericCallView {
      const record = (args ?? {}) as unknown as Partial<Record<string, unknown>>;
      const title = typeof record.description === "string" && record.description.trim() !== ""
        ? record.description.trim()
        : "Run code";
      const view: GenericCallView = { card: "generic", title, kind: "execute" };
      return typeof record.code === "string" ? { ...view, rawInput: record.code } : view;
    },
    isConcurrencySafe: () => false,
  };
}
