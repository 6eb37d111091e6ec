/**
 * Reading and checking an execution request, and the caller lifetime its signal joins (private
 * to registry/).
 *
 * @module
 */
import { describeValue } from "../core/error_message.ts";
import type { ExecuteRequest } from "./types.ts";

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

/**
 * Reads every request field exactly once into a plain object (a getter runs once; a throwing
 * getter throws here). A non-object is returned as is for {@linkcode checkRequest} to name.
 */
export function readRequest(request: ExecuteRequest): ExecuteRequest {
  if (typeof request !== "object" || request === null) return request;
  const copy: { -readonly [K in keyof ExecuteRequest]: ExecuteRequest[K] } = {
    callId: request.callId,
    name: request.name,
    arguments: request.arguments,
  };
  const { signal, agent, parent, mode, onOutput } = request;
  if (signal !== undefined) copy.signal = signal;
  if (agent !== undefined) copy.agent = agent;
  if (parent !== undefined) copy.parent = parent;
  if (mode !== undefined) copy.mode = mode;
  if (onOutput !== undefined) copy.onOutput = onOutput;
  return copy;
}

/**
 * The signal of one caller's fiber, and its composition with caller signals: one
 * `AbortSignal.any` per distinct caller signal (an agent turn's), not one per call.
 */
export class Lifetime {
  readonly signal: AbortSignal;
  readonly #composed = new WeakMap<AbortSignal, AbortSignal>();

  constructor(signal: AbortSignal) {
    this.signal = signal;
  }

  /** `AbortSignal.any([signal, this.signal])`, shared by every call with the same `signal`. */
  with(signal: AbortSignal): AbortSignal {
    let composed = this.#composed.get(signal);
    if (composed === undefined) {
      composed = AbortSignal.any([signal, this.signal]);
      this.#composed.set(signal, composed);
    }
    return composed;
  }
}

/** Checks an optional `scope` option: a non-empty string (a session id) or `undefined`. */
export function checkScope(action: string, scope: unknown): string | undefined {
  if (scope === undefined || (typeof scope === "string" && scope !== "")) return scope;
  throw new TypeError(
    `Cannot ${action}: scope is ${describeValue(scope)}, expected a non-empty session id string`,
  );
}
