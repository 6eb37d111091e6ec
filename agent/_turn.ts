/**
 * Private: the step loop of one turn. Each step streams one model answer, then runs its tool
 * calls as a batch whose results are logged in model order; the turn ends when the model stops
 * calling tools, at the step limit, or on abort.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import type { ToolMode, ToolOutcome } from "../registry/types.ts";
import type { Agent, AgentContext, CreateAgentOptions, PromptResult } from "./agent.ts";
import type { ModelMessage, ToolCallBlock } from "./model.ts";
import type { SessionEventMap, SessionEventType } from "./session_event.ts";
import { errorData, invalidArgs } from "./_agent_util.ts";
import { parseCallArguments } from "./_tool_arguments.ts";
import { stopFor, streamAnswer } from "./_stream_answer.ts";
import { runToolBatch } from "./_tool_batch.ts";

/** What the loop needs from its agent (the agent's `#private` state, handed over as closures). */
export interface TurnHost {
  /** The agent: the tools' `AgentHandle` and the id source of live events. */
  readonly agent: Agent;
  readonly ctx: AgentContext;
  readonly options: CreateAgentOptions;
  /** The system prompt of the next request (after `agent/system-prompt` listeners). */
  systemPrompt(): Promise<string>;
  /** The conversation the next request carries. */
  messages(): ModelMessage[];
  /** Appends to the session log (and emits `session/event`). */
  append<K extends SessionEventType>(type: K, data: SessionEventMap[K]): void;
  /** Logs the `inject()` calls queued while the turn ran. */
  flushInjects(): void;
}

/**
 * Runs the steps of turn `turn`. Rejects only when something outside the contract fails (the log
 * cannot be written); the caller turns that into `stopReason: "error"` or `"cancelled"`.
 */
export async function runSteps(
  host: TurnHost,
  turn: number,
  signal: AbortSignal,
): Promise<PromptResult> {
  const { maxSteps = 50, maxParallelToolCalls = 4, toolMode = "native" } = host.options;
  for (let step = 1;; step++) {
    if (signal.aborted) return { stopReason: "cancelled" };
    if (step > maxSteps) return { stopReason: "max_steps" };
    host.flushInjects();
    const answer = await streamStep(host, { turn, step, signal, mode: toolMode });
    if ("stop" in answer) return answer.stop;
    await runToolBatch(answer.calls, maxParallelToolCalls, {
      parse: (call) => {
        const parsed = parseCallArguments(call.arguments);
        return "args" in parsed
          ? parsed
          : { outcome: invalidArgs(call.name, call.arguments, parsed.problem) };
      },
      isSafe: (call, args) =>
        !signal.aborted && host.ctx.tools.isConcurrencySafe(call.name, args, {
            scope: host.agent.sessionId,
          }) === true,
      started: (call, args) =>
        host.append("tool/call", {
          turn,
          step,
          callId: call.id,
          name: call.name,
          arguments: call.arguments,
          ...(args === undefined ? {} : { args }),
        }),
      execute: (call, args) => executeCall(host, call, args, { signal, mode: toolMode }),
      commit: (call, outcome) => commitResult(host, { turn, step }, call, outcome),
    });
    if (signal.aborted) return { stopReason: "cancelled" };
  }
}

interface StepInfo {
  readonly turn: number;
  readonly step: number;
  readonly signal: AbortSignal;
  readonly mode: ToolMode;
}

/** Streams one answer and logs it; returns its tool calls, or the stop it forces. */
async function streamStep(
  host: TurnHost,
  { turn, step, signal, mode }: StepInfo,
): Promise<{ calls: ToolCallBlock[] } | { stop: PromptResult }> {
  const { ctx, agent } = host;
  const system = await host.systemPrompt();
  const { maxTokens } = host.options;
  const request = {
    model: host.options.model,
    system,
    messages: host.messages(),
    tools: ctx.tools.schemas({ mode, scope: agent.sessionId }),
    signal,
    ...(maxTokens === undefined ? {} : { maxTokens }),
  };
  const { content, finish: reported, finishMessage, usage, failure } = await streamAnswer(
    host.options.adapter,
    request,
    (kind, text) => ctx.emit("agent/delta", { sessionId: agent.sessionId, kind, text }),
    ({ type: _, ...notice }) => host.append("model/retry", { turn, step, ...notice }),
  );
  if (failure) {
    // Keep what streamed (never half a tool call: adapters emit only complete calls).
    const partial = content.filter((block) => block.type !== "tool-call");
    const cancelled = signal.aborted;
    if (partial.length > 0) {
      host.append("assistant/message", {
        turn,
        step,
        content: partial,
        finishReason: cancelled ? "cancelled" : "error",
        ...(usage ? { usage: { ...usage } } : {}),
      });
    }
    if (cancelled) return { stop: { stopReason: "cancelled" } };
    return { stop: { stopReason: "error", error: { message: errorMessage(failure.error) } } };
  }
  const calls = content.filter((block): block is ToolCallBlock => block.type === "tool-call");
  const finish = reported ?? (calls.length > 0 ? "tool-calls" : "stop");
  host.append("assistant/message", {
    turn,
    step,
    content,
    finishReason: finish,
    ...(usage ? { usage: { ...usage } } : {}),
  });
  const stop = stopFor(finish, finishMessage);
  if (stop !== undefined) return { stop };
  if (calls.length === 0) return { stop: { stopReason: "end_turn" } };
  return { calls };
}

/** Runs one call through the registry; never rejects. */
async function executeCall(
  host: TurnHost,
  call: ToolCallBlock,
  args: unknown,
  { signal, mode }: { readonly signal: AbortSignal; readonly mode: ToolMode },
): Promise<ToolOutcome> {
  const { ctx, agent } = host;
  try {
    return await ctx.tools.execute({
      callId: call.id,
      name: call.name,
      arguments: args,
      signal,
      agent,
      mode,
      onOutput: (chunk) =>
        ctx.emit("tool/output", { sessionId: agent.sessionId, callId: call.id, chunk }),
    });
  } catch (error) {
    // The registry never throws; this keeps the call/result pairing if one does.
    const message = errorMessage(error);
    return {
      isError: true,
      content: [{ type: "text", text: `Error: ${message}` }],
      error: { message },
    };
  }
}

/** Logs `tool/result` and then the contexts the call added (called in model order). */
function commitResult(
  host: TurnHost,
  { turn, step }: { readonly turn: number; readonly step: number },
  call: ToolCallBlock,
  outcome: ToolOutcome,
): void {
  host.append("tool/result", {
    turn,
    step,
    callId: call.id,
    content: outcome.content,
    isError: outcome.isError,
    ...(outcome.meta === undefined ? {} : { meta: outcome.meta }),
    ...errorData(outcome.error),
  });
  for (const context of outcome.additionalContexts ?? []) {
    host.append("context/inject", {
      turn,
      content: context,
      source: { kind: "tool", callId: call.id },
    });
  }
}
