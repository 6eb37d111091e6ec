/**
 * Types of the `ctx.tools` service, its requests, middleware and hooks (the phase order is
 * docs/contracts.md §2's; the hook types live in `hooks.ts`).
 *
 * @module
 */
import type { AgentHandle, AnyToolDefinition } from "../tools/definition.ts";
import type { ToolFilter } from "../tools/tool_filter.ts";
import type { JsonValue } from "../core/json.ts";
import type { ContentBlock } from "../tools/content.ts";
import type { ArgsValidation, JsonSchema, ToolExecution } from "../tools/definition.ts";

import type { ApprovalScope, Guard, PreExecuteDecision, ToolPhase } from "./hooks.ts";
import type { ToolOutcome } from "../tools/outcome.ts";

/** A model-facing tool schema. */
export interface ToolSchema {
  /** Tool name. */
  readonly name: string;
  /** Description. */
  readonly description: string;
  /** JSON Schema of the arguments. */
  readonly parameters: JsonSchema;
}

/** Input of {@linkcode ToolRegistry.execute}. */
export interface ExecuteRequest {
  /** The model's call id. */
  readonly callId: string;
  /** The tool name. */
  readonly name: string;
  /** The parsed arguments (snapshotted losslessly and frozen by the registry). */
  readonly arguments: unknown;
  /** The caller's cancellation. */
  readonly signal?: AbortSignal;
  /** The calling agent. */
  readonly agent?: AgentHandle;
  /** The enclosing execution's token (Code Mode sub-calls). */
  readonly parent?: symbol;
  /** The listing (`schemas({ mode })`) the caller's model saw, for the middleware. @default {"native"} */
  readonly mode?: string;
  /** Receives incremental output written by the body (`exec.output`). */
  readonly onOutput?: (chunk: string) => void;
}

/** Runs the rest of the chain; `tools/execute` middleware may pass a new signal (the body sees it with the caller's). */
export type Next = (signal?: AbortSignal) => Promise<ToolOutcome>;

/**
 * Middleware of one call, Hono-style: code before `await next()` runs inward, code after it
 * outward, and not calling `next` short-circuits. What it may do depends on its phase
 * (`TOOL_PHASES`): `tools/pre-execute` and `guard` either call `next()` and return its outcome, or
 * deny (return an error outcome without calling it); `tools/execute` may pass a new signal,
 * `next(signal)`, and a result it authors is normalized; `tools/post-execute` may replace the
 * outcome but never turn a failure into a success; `tools/result` observes (its return value is
 * ignored, its throws logged). `route` and `body` are unrestricted.
 *
 * @example Usage
 * ```ts
 * import { createHarness } from "./tools_plugin.ts";
 * import type { ToolMiddleware } from "./types.ts";
 * import { equal } from "node:assert/strict";
 * const ctx = await createHarness();
 * const seen: string[] = [];
 * const log: ToolMiddleware = async (call, next) => {
 *   seen.push(call.name);
 *   return await next();
 * };
 * ctx.tools.use("tools/pre-execute", log);
 * await ctx.tools.execute({ callId: "c1", name: "nope", arguments: {} });
 * equal(seen.length, 0); // an unknown tool never reaches pre-execute
 * await ctx.fiber.dispose();
 * ```
 */
export type ToolMiddleware = (
  call: ToolCall,
  next: Next,
) => Promise<ToolOutcome> | ToolOutcome;

/**
 * `tools/pre-execute` middleware, which may also return a decision: a `deny` ends the phase, an
 * `ask` is held until every pre-execute middleware passed (a later ask replaces it), `allow` passes.
 *
 * @example Usage
 * ```ts
 * import type { PreExecuteMiddleware } from "./types.ts";
 * const noRm: PreExecuteMiddleware = (call, next) =>
 *   call.name === "rm" ? { kind: "deny", reason: "no rm" } : next();
 * ```
 */
export type PreExecuteMiddleware = (
  call: ToolCall,
  next: Next,
) => Promise<ToolOutcome | PreExecuteDecision> | ToolOutcome | PreExecuteDecision;

/**
 * Whether `schemas({ mode })` lists `definition` to a model under `mode` (an opaque name,
 * `"native"` by default); a tool is listed when every installed hook says `true`. A throw (an
 * unknown mode, say) propagates out of `schemas()`. Code Mode's `codeModeListing` is one.
 */
export type ListingHook = (definition: AnyToolDefinition, mode: string) => boolean;

/** Rewrites a definition at registration (background mode adds `run_in_background`). */
export type DefinitionHook = (definition: AnyToolDefinition) => AnyToolDefinition;

/** Options of {@linkcode ToolRegistry.register}. */
export interface RegisterOptions {
  /** A session id: the tool is visible only to that scope, where it shadows a global tool. */
  readonly scope?: string;
  /**
   * Presentation infrastructure, never masked: only (and required for) a global tool named in
   * `ToolRegistryOptions.reservedNames` (`run_code`). @default {false}
   */
  readonly reserved?: boolean;
}

/** The `ctx.tools` service. */
export interface ToolRegistry {
  /**
   * Registers a tool (rewritten by the {@linkcode DefinitionHook}s); disposing the caller's fiber
   * unregisters it. Throws on duplicates (per layer: global, or one scope) and reserved names.
   */
  register(definition: AnyToolDefinition, options?: RegisterOptions): () => void;
  /** The visible definition of `name` (in `scope`, when given). */
  get(name: string, options?: { readonly scope?: string }): AnyToolDefinition | undefined;
  /** Every visible definition (in `scope`, when given), sorted by name. */
  list(options?: { readonly scope?: string }): readonly AnyToolDefinition[];
  /** The model-facing projection of what the {@linkcode ListingHook}s list, sorted by name. */
  schemas(
    options?: { readonly mode?: string; readonly scope?: string },
  ): readonly ToolSchema[];
  /** Installs a {@linkcode ListingHook} (an effect of the caller's fiber; `tools/changed`). */
  listing(hook: ListingHook): () => void;
  /** Installs a {@linkcode DefinitionHook} for later registrations (an effect of the caller's fiber). */
  define(hook: DefinitionHook): () => void;
  /** Adds a final monotonic guard (an effect of the caller's fiber). */
  guard(guard: Guard): () => void;
  /**
   * Hides global tools from the model (docs/contracts.md §1): `allow` keeps only names matching one of
   * its globs, `deny` removes matching names. With `scope` (a session id) only that agent's view
   * is masked, otherwise every view. Masks stack, so each only narrows; tools registered for the
   * scope itself and reserved registrations (`run_code`) are never hidden. A hidden tool is absent from
   * `get`/`list`/`schemas` (and so from the Code Mode SDK), and a call to it fails with
   * `unknown tool`. An effect of the caller's fiber; the returned function lifts the mask.
   */
  restrict(filter: ToolFilter, options?: { readonly scope?: string }): () => void;
  /**
   * Builds the {@linkcode ToolCall} of a request without running it: arguments snapshotted,
   * definition resolved (in `request.agent?.sessionId`'s scope), identity minted. Arguments that
   * are not lossless JSON still yield a call (`arguments: null`), whose execution is the error.
   * Throws a TypeError naming the field when the request itself is malformed.
   */
  prepare(request: ExecuteRequest): ToolCall;
  /**
   * Runs one call (a request, or a call from `prepare()`, at most once) through the whole
   * pipeline; never throws or rejects.
   */
  execute(request: ExecuteRequest | ToolCall): Promise<ToolOutcome>;
  /**
   * Installs middleware in `phase` (an effect of the caller's fiber: disposing it removes the
   * middleware). The chain runs middleware by phase (`TOOL_PHASES`), then by installation.
   */
  use(phase: "tools/pre-execute", middleware: PreExecuteMiddleware): () => void;
  /** Installs middleware in `phase`; see {@linkcode ToolMiddleware} for what each phase allows. */
  use(phase: ToolPhase, middleware: ToolMiddleware): () => void;
  /** Installs middleware in the `tools/execute` phase (around dispatch). */
  use(middleware: ToolMiddleware): () => void;
  /**
   * Asks the user about `call` through `ctx.approval`, for `tools/pre-execute` middleware:
   * `undefined` when allowed, otherwise the outcome to return (the denial of docs/contracts.md §2
   * step 3, or `ABORTED_BEFORE_DISPATCH` when the caller aborted meanwhile).
   */
  ask(
    call: ToolCall,
    options?: { readonly reason?: string; readonly scope?: ApprovalScope },
  ): Promise<ToolOutcome | undefined>;
  /** Whether a call may overlap with siblings (`isConcurrencySafe(args) === true`, soft). */
  isConcurrencySafe(name: string, args: unknown, options?: { readonly scope?: string }): boolean;
}

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
  /** The listing the caller's model saw (`ExecuteRequest.mode`, `"native"` by default). */
  readonly mode: string;
  /** The definition visible when the call was built (generation pinning); `undefined` when unknown. */
  readonly definition: AnyToolDefinition | undefined;
  /** Caller cancellation composed with the calling fiber's lifetime (`AbortSignal.any`). */
  readonly signal: AbortSignal;
  /** The frozen execution the body and the hooks receive. */
  readonly exec: ToolExecution;
  /**
   * The one validation of `arguments`, made when the call was prepared (raw definitions: ok, with
   * the arguments as they are).
   */
  readonly validation: ArgsValidation;
  /**
   * The validated arguments (`validation.args`: the parsed value, deep-frozen) that the body, the
   * presenters and `isConcurrencySafe` receive; `undefined` when they did not validate.
   */
  readonly args: unknown;
  /** `definition.isConcurrencySafe(args) === true` on valid arguments; computed once. */
  readonly concurrencySafe: boolean;
  /** The published outcome; `undefined` until then. */
  readonly outcome: ToolOutcome | undefined;
  /** Adds context after this call's result (for layers; unlike `exec.deferContext` it works until publication). */
  defer(content: readonly ContentBlock[]): void;
}
