/**
 * The tool contract shared by `defineTool`, raw JSON-Schema tools, the registry and every caller.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../core/json.ts";
import type { ContentBlock } from "./content.ts";
import type { ToolCallView, ToolResultView } from "./views.ts";

/** Where injected context came from. */
export interface InjectSource {
  /** Source kind. */
  readonly kind: "plugin" | "tool" | "system" | "user";
  /** Plugin name, for `kind: "plugin"`. */
  readonly plugin?: string;
}

/** Options for {@linkcode AgentHandle.inject}. */
export interface InjectOptions {
  /** Where the context came from. @default {kind: "plugin"} */
  readonly source?: InjectSource;
}

/**
 * The agent a call runs for, as a tool sees it (`exec.agent`).
 * Implemented by `agent/`; tools use it for notices and tool-owned log events.
 */
export interface AgentHandle {
  /** Agent id (unique per process). */
  readonly id: string;
  /** The session this agent owns; also the owner fence for jobs. */
  readonly sessionId: string;
  /** The session working directory (absolute). */
  readonly cwd: string;
  /** True once the agent was disposed. */
  readonly disposed: boolean;
  /**
   * Appends durable context that the NEXT model request sees. Not a wake-up.
   * Deferred until after the current tool batch's results. Throws on a disposed agent.
   */
  inject(content: string | readonly ContentBlock[], options?: InjectOptions): void;
  /** Appends a tool-owned durable session event (for example `fs/observed`, `tool/code-dispatch`). */
  appendEvent(type: string, data: JsonObject): void;
}

/** Incremental output of a running call (foreground or background). */
export interface OutputSink {
  /** Appends text (or bytes) to the call's output stream. */
  write(chunk: string | Uint8Array): void;
}

/**
 * The immutable identity of one execution, handed to `execute(args, exec)`.
 * Only `signal` is operational; everything else is frozen identity.
 */
export interface ToolExecution {
  /** The model's call id (`<outer>:code:<n>` for Code Mode sub-calls). */
  readonly callId: string;
  /** The tool name. */
  readonly name: string;
  /** Detached, deep-frozen lossless JSON arguments. */
  readonly arguments: JsonValue;
  /** The agent, when the call comes from one. */
  readonly agent?: AgentHandle;
  /** An opaque token, unique per execution; identity only, never serialized. */
  readonly token: symbol;
  /** The enclosing execution's token (Code Mode), identity only. */
  readonly parent?: symbol;
  /** Cancellation: fires on caller abort, deadline or around-chain policy. */
  readonly signal: AbortSignal;
  /** Incremental output (streamed to observers; captured by the jobs layer in background mode). */
  readonly output: OutputSink;
  /** Context appended after this call's result (FIFO); survives a throw, dropped by a post-execute block. */
  deferContext(content: readonly ContentBlock[]): void;
  /** The job this body runs as, in background mode (set by the jobs layer); absent in the foreground. */
  readonly job?: BackgroundJob;
}

/** What a body running in the background may tell its job (the jobs layer's `JobControl`). */
export interface BackgroundJob {
  /** The job id. */
  readonly id: string;
  /** Registers a process so a kill takes its whole tree down (`group: true` for its own process group). */
  trackProcess(pid: number, options?: { readonly group?: boolean }): void;
  /** Records the exit code or signal as soon as they are known. */
  setExit(exit: { readonly exitCode?: number; readonly signal?: string }): void;
}

/**
 * The soft validation of one call's arguments: `ok` with the arguments presenters and
 * `isConcurrencySafe` receive, or the violations. Computed once per call by the registry.
 */
export type ArgsValidation =
  | { readonly ok: true; readonly args: unknown }
  | {
    readonly ok: false;
    readonly violations: readonly string[];
    /** The arguments could not be checked now (an asynchronous schema): the body checks them. */
    readonly pending?: true;
  };

/**
 * The author's callbacks behind a `defineTool` definition, for arguments its `validate` accepted
 * (the parsed value): the registry calls them with a call's `args`, so a call is validated once,
 * where it is prepared. The presenters and `isConcurrencySafe` are soft (`undefined` / `false`
 * on a throw). A non-enumerable field: a wrapper that spreads a definition
 * (`{ ...definition, execute }`) does not carry it, so the wrapper's own `execute` runs.
 *
 * @typeParam Args The parsed argument type.
 */
export interface ValidatedTool<Args = unknown> {
  /** The body, without validating again. */
  readonly execute: (args: Args, exec: ToolExecution) => ExecuteReturn | Promise<ExecuteReturn>;
  /** The pending card. */
  readonly presentCall?: (args: Args) => ToolCallView | undefined;
  /** The completed card. */
  readonly presentResult?: (args: Args, result: ToolResult) => ToolResultView | undefined;
  /** Whether the call may overlap concurrency-safe siblings. */
  readonly isConcurrencySafe?: (args: Args) => boolean;
}

/**
 * What `execute` may return: content blocks, or content plus durable presentation `meta`. There is
 * no `isError` field (a result carrying one is rejected as malformed): throw to fail the call, and
 * report domain failures (a non-zero exit code) in the content text.
 */
export type ExecuteReturn =
  | readonly ContentBlock[]
  | { readonly content: readonly ContentBlock[]; readonly meta?: JsonValue };

/** What presenters and the durable log see of a result. */
export interface ToolResult {
  /** Model-facing content. */
  readonly content: readonly ContentBlock[];
  /** True for failures (throws, denials, aborts); false for domain failures reported in text. */
  readonly isError: boolean;
  /** The tool's presentation payload. */
  readonly meta?: JsonValue;
}

/** A model-facing JSON Schema object (the projection sent to the model). */
export type JsonSchema = JsonObject;

/**
 * A tool definition as the registry holds it. `defineTool` builds one with typed args and
 * validation; raw JSON-Schema tools (MCP) build one directly with `args: unknown`.
 *
 * @typeParam Args The argument type `execute` receives.
 */
export interface ToolDefinition<Args = unknown> {
  /** Tool name the model calls (`^[a-zA-Z0-9_-]{1,64}$`). */
  readonly name: string;
  /** What the model sees. */
  readonly description: string;
  /** The model-facing JSON Schema of the arguments (an object schema). */
  readonly parameters: JsonSchema;
  /** The body. Throw for infrastructure failures; report domain failures in text. */
  readonly execute: (args: Args, exec: ToolExecution) => ExecuteReturn | Promise<ExecuteReturn>;
  /** The pending card; pure. `undefined` selects the generic card. */
  readonly presentCall?: (args: Args) => ToolCallView | undefined;
  /** The completed card; pure. `undefined` selects the generic card. */
  readonly presentResult?: (args: Args, result: ToolResult) => ToolResultView | undefined;
  /** `true` lets the loop overlap this call with concurrency-safe siblings. */
  readonly isConcurrencySafe?: (args: Args) => boolean;
  /** Deadline enforced by the registry (`TOOL_TIMEOUT`). */
  readonly timeoutMs?: number;
  /** Opt in to the jobs layer: adds `run_in_background` and runs the body as a job. */
  readonly background?: boolean;
  /**
   * Soft-validates arguments (`defineTool` sets it; raw definitions have none, so their
   * arguments are taken as they are). The registry calls it once per call, when the call is
   * prepared, and hands the parsed arguments to {@linkcode ToolDefinition.validated}.
   */
  readonly validate?: (args: unknown) => ArgsValidation;
  /** The callbacks for arguments `validate` accepted (`defineTool` sets it, non-enumerable). */
  readonly validated?: ValidatedTool<unknown>;
}

/** A definition of any argument type, as registries and callers hold it. */
// deno-lint-ignore no-explicit-any
export type AnyToolDefinition = ToolDefinition<any>;
