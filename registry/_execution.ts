/**
 * The immutable execution identity of one call and the request checks (private to registry/).
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import { describeValue, errorMessage } from "../core/error_message.ts";
import type { JsonValue } from "../core/json.ts";
import type { ContentBlock } from "../tools/content.ts";
import type { ToolExecution } from "../tools/definition.ts";
import { materializeContent } from "./_outcome.ts";
import type { ExecuteRequest, ToolOutcome } from "./types.ts";

/** Mutable bookkeeping of one call, shared by the pipeline and `exec.deferContext()`. */
export interface CallState {
  /** False when the caller passed no signal (nothing can abort the body but a deadline). */
  readonly abortable: boolean;
  deferred: (readonly ContentBlock[])[] | undefined;
  settled: boolean;
  /** Set once the result is published: later body output is dropped. */
  published: boolean;
  /** Set when the body outlived its abort grace period: its later output is dropped. */
  abandoned?: boolean;
  bodyOutcome: ToolOutcome | undefined;
}

/** The frozen {@linkcode ToolExecution} of a request (arguments already snapshotted). */
export function makeExecution(
  request: ExecuteRequest,
  name: string,
  args: JsonValue,
  signal: AbortSignal,
  state: CallState,
  ctx: Context,
): ToolExecution {
  const onOutput = request.onOutput;
  let decoder: TextDecoder | undefined;
  const exec: {
    callId: string;
    name: string;
    arguments: JsonValue;
    agent?: NonNullable<ToolExecution["agent"]>;
    token: symbol;
    parent?: symbol;
    signal: AbortSignal;
    output: ToolExecution["output"];
    deferContext: ToolExecution["deferContext"];
  } = {
    callId: request.callId,
    name,
    arguments: args,
    token: Symbol(name),
    signal,
    output: Object.freeze({
      write(chunk: string | Uint8Array): void {
        // An abandoned body may keep writing after its result was published: drop that.
        if (onOutput === undefined || state.published || state.abandoned) return;
        const text = typeof chunk === "string"
          ? chunk
          : (decoder ??= new TextDecoder()).decode(chunk, { stream: true });
        try {
          onOutput(text);
        } catch (error) {
          ctx.logger.warn(`onOutput threw for call "${exec.callId}": ${errorMessage(error)}`);
        }
      },
    }),
    deferContext(content: readonly ContentBlock[]): void {
      const blocks = materializeContent(content, "exec.deferContext() received invalid content");
      if (state.settled) {
        ctx.logger.warn(`deferContext() after call "${exec.callId}" settled was dropped`);
        return;
      }
      (state.deferred ??= []).push(blocks);
    },
  };
  if (request.agent !== undefined) exec.agent = request.agent;
  if (request.parent !== undefined) exec.parent = request.parent;
  return Object.freeze(exec);
}

/** Why `request` cannot be executed at all (no events are published for it), if it cannot. */
export function checkRequest(request: ExecuteRequest): string | undefined {
  if (typeof request !== "object" || request === null) {
    return `tool execution request must be an object, received ${describeValue(request)}`;
  }
  if (typeof request.name !== "string") {
    return `tool execution request name must be a string, received ${describeValue(request.name)}`;
  }
  if (typeof request.callId !== "string") {
    return `tool execution request callId must be a string, received ${
      describeValue(request.callId)
    }`;
  }
  if (request.signal !== undefined && !(request.signal instanceof AbortSignal)) {
    return `tool execution request signal must be an AbortSignal, received ${
      describeValue(request.signal)
    }`;
  }
  return undefined;
}
