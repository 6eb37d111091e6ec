/**
 * A harness with the executor-backed tools (bash, read, write, edit with read-before-edit, and
 * optionally Code Mode), all on ONE executor as the agent wires them, for the matrix suites.
 */
import { createHarness, type ToolsContext } from "../mod.ts";
import { bashPlugin } from "../builtins/bash.ts";
import { fsPlugin } from "../builtins/fs_plugin.ts";
import { readBeforeEditPlugin } from "../builtins/read_before_edit.ts";
import { codeModePlugin } from "../codemode/mod.ts";
import { jobsPlugin } from "../jobs/mod.ts";
import type { Executor } from "../tools/executor.ts";
import type { AgentHandle } from "../tools/definition.ts";
import type { ToolOutcome } from "../tools/outcome.ts";
import type { JsonObject } from "../core/json.ts";

/** The harness of one matrix case. */
export interface ExecutorHarness extends AsyncDisposable {
  readonly ctx: ToolsContext;
  /** The agent double the calls carry (session id, cwd = the workspace). */
  readonly agent: AgentHandle;
  /** Calls a tool as the agent. */
  call(name: string, args: unknown): Promise<ToolOutcome>;
}

/**
 * Builds the harness.
 *
 * @param executor The executor every tool uses.
 * @param workspace The agent's cwd.
 * @param options `codeMode` also loads Code Mode on the executor; `sessionId` names the agent's
 * session (default `"s1"`); `spillDir` keeps bash spill files in a known folder;
 * `readBeforeEdit: false` leaves that policy out (to reach the tools' own refusals); `jobs` loads
 * the jobs layer first (bash's `run_in_background`, `job_output`, `job_kill`).
 */
export async function executorHarness(
  executor: Executor,
  workspace: string,
  options: {
    codeMode?: boolean;
    sessionId?: string;
    spillDir?: string;
    readBeforeEdit?: boolean;
    jobs?: boolean;
  } = {},
): Promise<ExecutorHarness> {
  const ctx = await createHarness();
  if (options.jobs) await ctx.plugin(jobsPlugin, { spill: false }).ready;
  await ctx.plugin(bashPlugin, {
    executor,
    background: options.jobs === true,
    ...(options.spillDir === undefined ? {} : { spillDir: options.spillDir }),
  }).ready;
  await ctx.plugin(fsPlugin, { executor }).ready;
  if (options.readBeforeEdit !== false) await ctx.plugin(readBeforeEditPlugin, { executor }).ready;
  if (options.codeMode) await ctx.plugin(codeModePlugin, { executor, mode: "both" }).ready;
  const events: { type: string; data: JsonObject }[] = [];
  const sessionId = options.sessionId ?? "s1";
  const agent: AgentHandle = {
    id: `agent-${sessionId}`,
    sessionId,
    cwd: workspace,
    disposed: false,
    inject() {},
    appendEvent(type, data) {
      events.push({ type, data });
    },
  };
  let n = 0;
  return {
    ctx,
    agent,
    call: (name, args) => ctx.tools.execute({ callId: `c${++n}`, name, arguments: args, agent }),
    [Symbol.asyncDispose]: () => ctx.fiber.dispose(),
  };
}

/** The joined text of an outcome. */
export function outcomeText(outcome: ToolOutcome): string {
  return outcome.content.map((block) => block.type === "text" ? block.text : "").join("");
}
