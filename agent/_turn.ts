/**
 * Private: the step loop of one turn. Each step streams one model answer, then runs its tool
 * calls as a batch whose results are logged in model order; the turn ends when the model stops
 * calling tools, at the step limit, or on abort.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import type { JsonValue } from "../core/json.ts";
import type { ToolOutcome } from "../tools/outcome.ts";
import type { ToolCall } from "../registry/types.ts";
import { errorOutcome } from "../tools/outcome.ts";
import type { AgentHandle } from "../tools/definition.ts";
import type { AgentContext, CreateAgentOptions, PromptResult } from "./agent_options.ts";
import type { ModelMessage, ToolCallBlock } from "./model.ts";
import type { SessionEventMap, SessionEventType } from "./session_event.ts";
import type { LiveEventData } from "./agent_events.ts";
import { errorData, invalidArgs } from "./_agent_util.ts";
import { parseCallArguments } from "./_tool_arguments.ts";
import { stopFor, streamAnswer } from "./_stream_answer.ts";
import { runToolBatch } from "./_tool_batch.ts";

/** What the loop needs from its agent (the agent's `#private` state, handed over as closures). */
export interface TurnHost {
  /** The agent: the tools' `AgentHandle` and the id source of live events. */
  readonly agent: AgentHandle;
  readonly ctx: AgentContext;
  readonly options: CreateAgentOptions;
  /** The system prompt of the next request (after `agent/system-prompt` listeners). */
  systemPrompt(): Promise<string>;
  /** The conversation the next request carries. */
  messages(): ModelMessage[];
  /** Appends to the session log (and emits `session/event`, with `live` when given). */
  append<K extends SessionEventType>(type: K, data: SessionEventMap[K], live?: LiveEventData): void;
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
        const parsed = parseCallArguments(
          call.arguments,
          () => host.ctx.tools.get(call.name, { scope: host.agent.sessionId })?.parameters,
        );
        if (!("args" in parsed)) {
          return { outcome: invalidArgs(call.name, call.arguments, parsed.problem) };
        }
        return { prepared: prepareCall(host, call, parsed.args, { signal, mode: toolMode }) };
      },
      isSafe: (_call, prepared) => !signal.aborted && prepared.concurrencySafe,
      // The presenters get the registry's own frozen arguments and, live, its one validation.
      started: (call, prepared) =>
        host.append("tool/call", {
          turn,
          step,
          callId: call.id,
          name: call.name,
          arguments: call.arguments,
          ...(prepared === undefined ? {} : { args: prepared.arguments }),
        }, prepared === undefined ? undefined : { validation: prepared.validation }),
      execute: (_call, prepared) => executeCall(host, prepared),
      commit: (call, outcome) => commitResult(host, { turn, step }, call, outcome),
    });
    if (signal.aborted) return { stopReason: "cancelled" };
  }
}

interface StepInfo {
  readonly turn: number;
  readonly step: number;
  readonly signal: AbortSignal;
  readonly mode: string;
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

/** The registry's call for one model call: arguments (already a snapshot) taken as they are. */
function prepareCall(
  host: TurnHost,
  call: ToolCallBlock,
  args: JsonValue,
  { signal, mode }: { readonly signal: AbortSignal; readonly mode: string },
): ToolCall {
  const { ctx, agent } = host;
  return ctx.tools.prepare({
    callId: call.id,
    name: call.name,
    arguments: args,
    signal,
    agent,
    mode,
    onOutput: (chunk) =>
      ctx.emit(
        "tool/output",
        { sessionId: agent.sessionId, callId: call.id, chunk },
      ),
  });
}

/** Runs one prepared call through the registry; never rejects. */
async function executeCall(host: TurnHost, prepared: ToolCall): Promise<ToolOutcome> {
  try {
    return await host.ctx.tools.execute(prepared);
  } catch (error) {
    // The registry never throws; this keeps the call/result pairing if one does.
    return errorOutcome(errorMessage(error));
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
