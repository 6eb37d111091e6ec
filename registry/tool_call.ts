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
import { invalidArgsOutcome, materializeContent, type ToolOutcome } from "../tools/outcome.ts";
import type { ExecuteRequest, ToolCall } from "./types.ts";

/** The registry's record of one call: the public {@linkcode ToolCall} plus the chain's bookkeeping. */
export class CallRecord implements ToolCall {
  readonly callId: string;
  readonly name: string;
  readonly arguments: JsonValue = null;
  readonly agent?: AgentHandle;
  readonly token: symbol;
  readonly parent?: symbol;
  readonly rootCallId: string;
  readonly mode: string;
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
    request: ExecuteRequest,
    definition: AnyToolDefinition | undefined,
    signal: AbortSignal,
    logger: Logger,
  ) {
    this.owner = owner;
    this.callId = request.callId;
    this.name = request.name;
    try {
      const args = request.arguments;
      this.arguments = isJsonSnapshot(args) ? args : snapshotJson(args);
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
    return this.#safe ??= this.validation.ok &&
      (typed !== undefined ? typed(this.args) === true : safe(this.definition, this.arguments));
  }

  defer(content: readonly ContentBlock[]): void {
    (this.deferred ??= []).push(Object.freeze(content.slice()));
  }
}

/**
 * The frozen {@linkcode ToolExecution} the hooks and the body of `call` receive: its output goes to
 * `onOutput` until the call is published or abandoned, deferred context until it settles.
 */
function createExecution(
  call: CallRecord,
  onOutput: ((chunk: string) => void) | undefined,
  logger: Logger,
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
          logger.warn(`onOutput threw for call "${call.callId}": ${errorMessage(error)}`);
        }
      },
    }),
    deferContext(content: readonly ContentBlock[]): void {
      const blocks = materializeContent(content, "exec.deferContext() received invalid content");
      if (call.settled) {
        logger.warn(`deferContext() after call "${call.callId}" settled was dropped`);
        return;
      }
      (call.deferred ??= []).push(blocks);
    },
  };
  if (call.agent !== undefined) exec.agent = call.agent;
  if (call.parent !== undefined) exec.parent = call.parent;
  return Object.freeze(exec);
}

const NOT_JSON: ArgsValidation = Object.freeze({
  ok: false,
  violations: Object.freeze(["the arguments are not lossless JSON"]),
});

/**
 * The one validation of a call's arguments, made when the registry prepares it (raw definitions:
 * ok, as they are; `null`: the arguments were not lossless JSON).
 */
function validateArgs(
  definition: AnyToolDefinition | undefined | null,
  args: JsonValue,
): ArgsValidation {
  if (definition === null) return NOT_JSON;
  const check = definition?.validate;
  if (check === undefined) return { ok: true, args };
  try {
    return check(args);
  } catch (error) {
    // The body checks them again and fails with what the check threw.
    return { ok: false, pending: true, violations: [errorMessage(error)] };
  }
}

/** Freezes plain objects and arrays all the way down (a Standard Schema's parsed output). */
function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return value;
  for (const item of Object.values(value)) deepFreeze(item);
  return Object.freeze(value);
}

/** `definition.isConcurrencySafe(args) === true`; a throw means no. */
export function safe(definition: AnyToolDefinition | undefined, args: unknown): boolean {
  const classify = definition?.isConcurrencySafe;
  try {
    return classify !== undefined && classify(args) === true;
  } catch {
    return false;
  }
}

/**
 * Reads every request field exactly once (a throwing getter throws here) and checks them; a string
 * says why the request cannot be executed at all (no events are published for it).
 */
export function readRequest(request: ExecuteRequest): ExecuteRequest | string {
  if (typeof request !== "object" || request === null) {
    return `tool execution request must be an object, received ${describeValue(request)}`;
  }
  const { callId, name, arguments: args, signal, agent, parent, mode, onOutput } = request;
  if (typeof name !== "string") return bad("name", "a string", name);
  if (typeof callId !== "string") return bad("callId", "a string", callId);
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    return bad("signal", "an AbortSignal", signal);
  }
  if (mode !== undefined && (typeof mode !== "string" || mode === "")) {
    return bad("mode", "a non-empty string", mode);
  }
  // A fresh request of the fields as read (a later getter call could answer differently).
  const read: { -readonly [K in keyof ExecuteRequest]: ExecuteRequest[K] } = {
    callId,
    name,
    arguments: args,
  };
  if (signal !== undefined) read.signal = signal;
  if (agent !== undefined) read.agent = agent;
  if (parent !== undefined) read.parent = parent;
  if (mode !== undefined) read.mode = mode;
  if (onOutput !== undefined) read.onOutput = onOutput;
  return read;
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
