/**
 * One call, built once by the registry (`ctx.tools.prepare()` or `ctx.tools.execute()`): its
 * lossless arguments, their soft validation, its identity and definition, its composed signal and,
 * once published, its outcome. Every phase of the chain reads the same object.
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import { errorMessage } from "../core/error_message.ts";
import type { JsonValue } from "../core/json.ts";
import type { ContentBlock } from "../tools/content.ts";
import type {
  AgentHandle,
  AnyToolDefinition,
  ArgsValidation,
  ToolExecution,
} from "../tools/definition.ts";
import { materializeContent, type ToolOutcome } from "../tools/outcome.ts";
import type { ExecuteRequest, ToolMode } from "./types.ts";

/**
 * One model call as the chain sees it. Read-only for layers; the registry fills `outcome`.
 *
 * @example Usage
 * ```ts
 * import { createHarness } from "./tools_plugin.ts";
 * import { equal } from "node:assert/strict";
 * const ctx = await createHarness();
 * const call = ctx.tools.prepare({ callId: "c1", name: "nope", arguments: { a: 1 } });
 * equal(call.definition, undefined);
 * equal((await ctx.tools.execute(call)).error?.code, "UNKNOWN_TOOL");
 * equal(call.outcome?.error?.code, "UNKNOWN_TOOL");
 * await ctx.fiber.dispose();
 * ```
 */
export interface ToolCall {
  /** The model's call id (`<outer>:code:<n>` for Code Mode sub-calls). */
  readonly callId: string;
  /** The tool name as called. */
  readonly name: string;
  /** The arguments: a detached, deep-frozen lossless JSON snapshot (`null` when they were not JSON). */
  readonly arguments: JsonValue;
  /** The calling agent. */
  readonly agent?: AgentHandle;
  /** A unique token (identity only; its description is `rootCallId`, which sub-calls inherit). */
  readonly token: symbol;
  /** The enclosing call's token (Code Mode sub-calls). */
  readonly parent?: symbol;
  /** The call id of the outermost call this one runs under (its own for a top-level call). */
  readonly rootCallId: string;
  /** The caller's tool mode. */
  readonly mode: ToolMode;
  /** The definition visible when the call was built (generation pinning); `undefined` when unknown. */
  readonly definition: AnyToolDefinition | undefined;
  /** Caller cancellation composed with the calling fiber's lifetime (`AbortSignal.any`). */
  readonly signal: AbortSignal;
  /** The frozen execution the body and the hooks receive. */
  readonly exec: ToolExecution;
  /**
   * The soft validation of `arguments`, computed on first read and kept: what presenters and
   * `isConcurrencySafe` use (raw definitions: always ok, with the arguments as they are).
   */
  readonly validation: ArgsValidation;
  /** `definition.isConcurrencySafe(args) === true` on valid arguments; computed once. */
  readonly concurrencySafe: boolean;
  /** The published outcome; `undefined` until then. */
  readonly outcome: ToolOutcome | undefined;
  /** Adds context after this call's result (for layers; unlike `exec.deferContext` it works until publication). */
  defer(content: readonly ContentBlock[]): void;
}

/** The registry's record of one call: the public {@linkcode ToolCall} plus the bookkeeping of the chain. */
export class CallRecord implements ToolCall {
  readonly callId: string;
  readonly name: string;
  readonly arguments: JsonValue;
  readonly agent?: AgentHandle;
  readonly token: symbol;
  readonly parent?: symbol;
  readonly rootCallId: string;
  readonly mode: ToolMode;
  readonly definition: AnyToolDefinition | undefined;
  readonly signal: AbortSignal;
  readonly exec: ToolExecution;
  /** The registry that built it (a call runs only there, once). */
  readonly owner: object;
  /** False when the caller passed no signal (nothing can abort the body but a deadline). */
  readonly abortable: boolean;
  /** Set by the registry for arguments that are not lossless JSON. */
  rejected: ToolOutcome | undefined;
  deferred: (readonly ContentBlock[])[] | undefined;
  settled = false;
  started = false;
  /** Set when the body outlived its abort grace period: its later output is dropped. */
  abandoned = false;
  outcome: ToolOutcome | undefined;
  #validation: ArgsValidation | undefined;
  #safe: boolean | undefined;

  constructor(
    owner: object,
    request: ExecuteRequest,
    args: JsonValue,
    init: {
      readonly definition: AnyToolDefinition | undefined;
      readonly signal: AbortSignal;
      readonly rootCallId: string | undefined;
      readonly ctx: Context;
    },
  ) {
    this.owner = owner;
    this.callId = request.callId;
    this.name = request.name;
    this.arguments = args;
    this.rootCallId = init.rootCallId ?? request.callId;
    this.token = Symbol(this.rootCallId);
    this.mode = request.mode ?? "native";
    this.definition = init.definition;
    this.signal = init.signal;
    this.abortable = request.signal !== undefined;
    if (request.agent !== undefined) this.agent = request.agent;
    if (request.parent !== undefined) this.parent = request.parent;
    this.exec = execution(this, request.onOutput, init.ctx);
  }

  get validation(): ArgsValidation {
    return this.#validation ??= this.definition?.validate?.(this.arguments) ??
      { ok: true, args: this.arguments };
  }

  get concurrencySafe(): boolean {
    if (this.#safe !== undefined) return this.#safe;
    const classify = this.definition?.isConcurrencySafe;
    let safe = false;
    try {
      safe = classify !== undefined && this.validation.ok && classify(this.arguments) === true;
    } catch {
      safe = false;
    }
    return this.#safe = safe;
  }

  defer(content: readonly ContentBlock[]): void {
    (this.deferred ??= []).push(Object.freeze(content.slice()));
  }
}

/** The frozen {@linkcode ToolExecution} of a call. */
function execution(
  call: CallRecord,
  onOutput: ((chunk: string) => void) | undefined,
  ctx: Context,
): ToolExecution {
  let decoder: TextDecoder | undefined;
  const exec: { -readonly [K in keyof ToolExecution]: ToolExecution[K] } = {
    callId: call.callId,
    name: call.name,
    arguments: call.arguments,
    token: call.token,
    signal: call.signal,
    output: Object.freeze({
      write(chunk: string | Uint8Array): void {
        // An abandoned body may keep writing after its result was published: drop that.
        if (onOutput === undefined || call.outcome !== undefined || call.abandoned) return;
        const text = typeof chunk === "string"
          ? chunk
          : (decoder ??= new TextDecoder()).decode(chunk, { stream: true });
        try {
          onOutput(text);
        } catch (error) {
          ctx.logger.warn(`onOutput threw for call "${call.callId}": ${errorMessage(error)}`);
        }
      },
    }),
    deferContext(content: readonly ContentBlock[]): void {
      const blocks = materializeContent(content, "exec.deferContext() received invalid content");
      if (call.settled) {
        ctx.logger.warn(`deferContext() after call "${call.callId}" settled was dropped`);
        return;
      }
      (call.deferred ??= []).push(blocks);
    },
  };
  if (call.agent !== undefined) exec.agent = call.agent;
  if (call.parent !== undefined) exec.parent = call.parent;
  return Object.freeze(exec);
}
