/**
 * One call, built once by the registry (`ctx.tools.prepare()` or `ctx.tools.execute()`): its
 * lossless arguments, their soft validation, its identity and definition, its composed signal and,
 * once published, its outcome. Every phase of the chain reads the same object.
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import { describeValue, errorMessage } from "../core/error_message.ts";
import type { Logger } from "../core/logger.ts";
import { isJsonSnapshot, type JsonValue, snapshotJson } from "../core/json.ts";
import type { ContentBlock } from "../tools/content.ts";
import type {
  AgentHandle,
  AnyToolDefinition,
  ArgsValidation,
  ToolExecution,
} from "../tools/definition.ts";
import { invalidArgsOutcome, type ToolOutcome } from "../tools/outcome.ts";
import { type BodyCall, createExecution, deepFreeze, validateArgs } from "../tools/run_body.ts";
import type { ExecuteRequest, ToolCall, ToolMode } from "./types.ts";

export type { ToolCall } from "./types.ts";

/** The registry's record of one call: the public {@linkcode ToolCall} plus the chain's bookkeeping. */
export class CallRecord implements ToolCall, BodyCall {
  readonly callId: string;
  readonly name: string;
  readonly arguments: JsonValue = null;
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
  readonly abortable: boolean;
  /** The `INVALID_ARGS` outcome of arguments that are not lossless JSON. */
  readonly rejected: ToolOutcome | undefined;
  deferred: (readonly ContentBlock[])[] | undefined;
  settled = false;
  started = false;
  abandoned = false;
  outcome: ToolOutcome | undefined;
  readonly validation: ArgsValidation;
  readonly args: unknown;
  #safe: boolean | undefined;

  constructor(
    owner: object,
    request: Request,
    definition: AnyToolDefinition | undefined,
    signal: AbortSignal,
    logger: Logger,
  ) {
    this.owner = owner;
    this.callId = request.callId;
    this.name = request.name;
    try {
      const args = request.arguments;
      this.arguments = isJsonSnapshot(args) ? args as JsonValue : snapshotJson(args);
    } catch (error) {
      logger.debug(`call "${this.callId}" to "${this.name}": ${errorMessage(error)}`);
      this.rejected = invalidArgsOutcome(error);
    }
    // A token's description is its root call id, so a sub-call finds its root without a table.
    this.rootCallId = request.parent?.description ?? request.callId;
    this.token = Symbol(this.rootCallId);
    this.mode = request.mode ?? "native";
    this.definition = definition;
    this.signal = signal;
    this.abortable = request.signal !== undefined;
    if (request.agent !== undefined) this.agent = request.agent;
    if (request.parent !== undefined) this.parent = request.parent;
    // Validated once, here: the body, the presenters and isConcurrencySafe read `args`.
    this.validation = validateArgs(this.rejected === undefined ? definition : null, this.arguments);
    if (this.validation.ok) this.args = deepFreeze(this.validation.args);
    this.exec = createExecution(this, request.onOutput, logger);
  }

  get concurrencySafe(): boolean {
    const typed = this.definition?.validated?.isConcurrencySafe;
    return this.#safe ??= typed !== undefined
      ? this.validation.ok && typed(this.args) === true
      : safe(this.definition, this.arguments, () => this.validation.ok);
  }

  defer(content: readonly ContentBlock[]): void {
    (this.deferred ??= []).push(Object.freeze(content.slice()));
  }
}

/** `isConcurrencySafe(args) === true` (when `valid()`); a throw means no. */
export function safe(
  definition: AnyToolDefinition | undefined,
  args: unknown,
  valid: () => boolean = () => true,
): boolean {
  const classify = definition?.isConcurrencySafe;
  try {
    return classify !== undefined && valid() && classify(args) === true;
  } catch {
    return false;
  }
}

/** A request read once, optional fields possibly `undefined` (`-?` strips it: docs/style.md §2). */
type Optional = { readonly [K in keyof Required<ExecuteRequest>]: ExecuteRequest[K] | undefined };
export type Request = Optional & { readonly callId: string; readonly name: string };

/**
 * Reads every request field exactly once (a throwing getter throws here) and checks them; a string
 * says why the request cannot be executed at all (no events are published for it).
 */
export function readRequest(request: ExecuteRequest): Request | string {
  if (typeof request !== "object" || request === null) {
    return `tool execution request must be an object, received ${describeValue(request)}`;
  }
  const { callId, name, arguments: args, signal, agent, parent, mode, onOutput } = request;
  if (typeof name !== "string") return bad("name", "a string", name);
  if (typeof callId !== "string") return bad("callId", "a string", callId);
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    return bad("signal", "an AbortSignal", signal);
  }
  return { callId, name, arguments: args, signal, agent, parent, mode, onOutput };
}

/** The message naming a malformed request field. */
function bad(field: string, expected: string, value: unknown): string {
  return `tool execution request ${field} must be ${expected}, received ${describeValue(value)}`;
}

/**
 * The lifetime of a caller's fiber as a signal, joined with a caller signal: one
 * `AbortSignal.any` per distinct caller signal (an agent turn's), not one per call.
 */
export function lifetime(caller: Context): (signal: AbortSignal | undefined) => AbortSignal {
  const controller = new AbortController();
  const end = () =>
    controller.abort(
      new DOMException("the fiber that started the call was disposed", "AbortError"),
    );
  try {
    caller.effect(() => end);
  } catch {
    end(); // The context is no longer active: its fiber is already gone.
  }
  const joined = new WeakMap<AbortSignal, AbortSignal>();
  return (signal) => {
    if (signal === undefined) return controller.signal;
    let any = joined.get(signal);
    if (any === undefined) joined.set(signal, any = AbortSignal.any([signal, controller.signal]));
    return any;
  };
}

/** Checks an optional `scope` option: a non-empty string (a session id) or `undefined`. */
export function checkScope(action: string, scope: unknown): string | undefined {
  if (scope === undefined || (typeof scope === "string" && scope !== "")) return scope;
  throw new TypeError(
    `Cannot ${action}: scope is ${describeValue(scope)}, expected a non-empty session id string`,
  );
}
