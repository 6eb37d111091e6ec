/**
 * The Code Mode executor seam: a `CodeRuntime` runs one program and routes its tool calls back
 * to the host. The default implementation is {@linkcode subprocessRuntime}; alternatives are
 * described in `codemode/mod.ts`.
 *
 * @module
 */
import type { JsonValue } from "../core/json.ts";

/** Host-enforced limits of one run. */
export interface CodeRunLimits {
  /** Wall-clock deadline of the whole run, tool calls included; then the sandbox is killed. @default {120000} */
  readonly timeoutMs: number;
  /**
   * V8 heap cap of the sandbox in MB (`--max-old-space-size`, per realm). The subprocess runtime
   * also caps the whole process, every Worker included, at this plus 256 MB. @default {256}
   */
  readonly heapMb: number;
  /** Tool calls allowed per run; one more fails the run (`call-limit`). @default {1000} */
  readonly maxCalls: number;
  /** Tool calls dispatched at once; later calls wait in submission order. @default {10} */
  readonly maxInFlight: number;
  /** Largest single bridge frame the sandbox may send, in bytes. @default {8388608} */
  readonly maxFrameBytes: number;
  /** Captured logs plus the returned value, in bytes. @default {1000000} */
  readonly maxOutputBytes: number;
}

/**
 * The default limits.
 *
 * @example Usage
 * ```ts
 * import { DEFAULT_CODE_RUN_LIMITS } from "./runtime.ts";
 * import { equal } from "node:assert/strict";
 * equal(DEFAULT_CODE_RUN_LIMITS.maxInFlight, 10);
 * ```
 */
export const DEFAULT_CODE_RUN_LIMITS: CodeRunLimits = Object.freeze({
  timeoutMs: 120_000,
  heapMb: 256,
  maxCalls: 1000,
  maxInFlight: 10,
  maxFrameBytes: 8 * 1024 * 1024,
  maxOutputBytes: 1_000_000,
});

/** One `await tools.<name>(args)` from a program, as the runtime hands it to the host. */
export interface CodeToolCall {
  /** The tool name the program used. */
  readonly name: string;
  /** The arguments (lossless JSON, checked in the sandbox and parsed on the host). */
  readonly args: JsonValue;
  /** 1-based submission index within the run. */
  readonly index: number;
  /** The run-scoped abort: fires when the run settles for any reason or the caller aborts. */
  readonly signal: AbortSignal;
}

/** Why a run failed. */
export type CodeRunFailureKind =
  | "exception"
  | "timeout"
  | "abort"
  | "exit"
  | "out-of-memory"
  | "invalid-output"
  | "output-limit"
  | "call-limit";

/** The outcome of one run. */
export interface CodeRunResult {
  /** The returned value (absent when the program returned `undefined` or failed). */
  readonly value?: JsonValue;
  /** Captured console output, one entry per call. */
  readonly logs: readonly string[];
  /** Set when the run failed. */
  readonly error?: { readonly kind: CodeRunFailureKind; readonly message: string };
  /** Tool calls the program made. */
  readonly calls: number;
}

/** Input of {@linkcode CodeRuntime.run}. */
export interface CodeRunOptions {
  /** The program: the body of an async function (TypeScript allowed). */
  readonly program: string;
  /**
   * Runs one tool call. Resolve with the text the program receives; reject with an `Error` whose
   * message becomes the program-side `ToolCallError` message.
   */
  readonly callTool: (call: CodeToolCall) => Promise<string>;
  /** Caller cancellation: kills the sandbox (`abort`). */
  readonly signal?: AbortSignal;
  /** Limits; missing fields use {@linkcode DEFAULT_CODE_RUN_LIMITS}. */
  readonly limits?: Partial<CodeRunLimits>;
  /** The calling session, when any: a runtime on an executor runs in that session's environment. */
  readonly sessionId?: string;
  /**
   * The calling session's working directory: a runtime on a remote executor (whose environment
   * runs programs only inside the workspace) starts its sandbox there.
   */
  readonly cwd?: string;
}

/**
 * An executor for Code Mode programs. `run` never throws for program faults: they come back as
 * `error`. It resolves only after every tool call it started has settled.
 */
export interface CodeRuntime {
  /** A short name for logs (`subprocess`, `worker`, …). */
  readonly name: string;
  /** Runs one program in a fresh sandbox. */
  run(options: CodeRunOptions): Promise<CodeRunResult>;
}

/**
 * Merges partial limits over the defaults and validates them.
 *
 * @param limits Partial limits.
 * @returns The complete limits.
 * @throws {RangeError} When a limit is not a positive integer.
 *
 * @example Usage
 * ```ts
 * import { resolveCodeRunLimits } from "./runtime.ts";
 * import { equal, throws } from "node:assert/strict";
 * equal(resolveCodeRunLimits({ maxCalls: 5 }).maxCalls, 5);
 * throws(() => resolveCodeRunLimits({ heapMb: 0 }), RangeError);
 * ```
 */
export function resolveCodeRunLimits(limits: Partial<CodeRunLimits> = {}): CodeRunLimits {
  const resolved = { ...DEFAULT_CODE_RUN_LIMITS, ...limits };
  for (const [key, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(
        `Cannot run code as '${key}' must be a positive integer: current value is ${
          JSON.stringify(value) ?? String(value)
        }`,
      );
    }
  }
  return resolved;
}
