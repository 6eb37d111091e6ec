/**
 * The per-session card presenter: runs tool presenters on `tool/call` and `tool/result`
 * (live and on replay), applies the generic fallback and the orphan guard, and maps the
 * views to the wire.
 *
 * @module
 */
import { describeValue, errorMessage } from "../core/error_message.ts";
import type { JsonValue } from "../core/json.ts";
import type {
  AnyToolDefinition,
  ArgsValidation,
  ToolResult,
  ValidatedTool,
} from "../tools/definition.ts";
import type { ToolCallView, ToolResultView } from "../tools/views.ts";
import type { ToolCallUpdateWire, ToolCallWire } from "./session_update_wire.ts";
import { callToWire, resultToWire, terminalEndToWire } from "./wire.ts";

/** The logger a presenter reports presenter throws to. */
export interface PresenterLogger {
  /** Logs a warning. */
  warn(message: string, data?: unknown): void;
}

/** Options of {@linkcode CardPresenter}. */
export interface CardPresenterOptions {
  /** The session working directory (absolute). */
  readonly cwd: string;
  /** True when the client advertised `_meta.terminal_output`. */
  readonly terminalOutput: boolean;
  /** Looks up a tool definition by name (`ctx.tools.get`). */
  readonly lookup: (name: string) => AnyToolDefinition | undefined;
  /** Where presenter throws are reported. @default {undefined} */
  readonly logger?: PresenterLogger;
}

/**
 * What a call's presenters receive: the arguments parsed once by the loop (the `args` of the
 * `tool/call` event), or the raw text when it is not lossless JSON. A `defineTool` tool's are
 * validated once per call, when its card is built, and the parsed value goes to its
 * `presentCall` and then `presentResult`.
 */
export type PresenterArgs = JsonValue;

interface PendingCall {
  readonly name: string;
  readonly presenters: Presenters;
  readonly card: ToolCallView["card"];
  readonly wire: ToolCallWire;
}

/** A call's presenters, bound to its arguments. */
interface Presenters {
  readonly call?: () => ToolCallView | undefined;
  readonly result?: (result: ToolResult) => ToolResultView | undefined;
}

/**
 * The presenters of one call: a `defineTool` tool's are handed its arguments validated once, here
 * (invalid arguments select the generic cards); other definitions' get the arguments as they are.
 */
function presentersOf(
  definition: AnyToolDefinition | undefined,
  args: unknown,
  known?: ArgsValidation,
): Presenters {
  if (definition === undefined) return {};
  const { validate, validated: typed } = definition;
  if (validate === undefined || typed === undefined) return bound(definition, args);
  let validation = known;
  try {
    validation ??= validate(args);
  } catch {
    return {};
  }
  return validation.ok ? bound(typed, validation.args) : {};
}

/** `source`'s presenters, bound to `args`. */
function bound(
  source: Pick<ValidatedTool, "presentCall" | "presentResult">,
  args: unknown,
): Presenters {
  const { presentCall, presentResult } = source;
  return {
    ...(presentCall === undefined ? {} : { call: () => presentCall(args) }),
    ...(presentResult === undefined ? {} : { result: (r) => presentResult(args, r) }),
  };
}

/**
 * Turns tool calls and results into cards for one session.
 *
 * @example Usage
 * ```ts
 * import { CardPresenter } from "./card_presenter.ts";
 * import { equal } from "node:assert/strict";
 * const presenter = new CardPresenter({ cwd: "/w", terminalOutput: false, lookup: () => undefined });
 * const call = presenter.call("c1", "mystery", { x: 1 });
 * equal(call.sessionUpdate, "tool_call");
 * equal(call.title, "mystery");
 * const result = presenter.result("c1", { content: [{ type: "text", text: "done" }], isError: false });
 * equal(result?.sessionUpdate, "tool_call_update");
 * ```
 */
export class CardPresenter {
  #options: CardPresenterOptions;
  #pending = new Map<string, PendingCall>();

  /**
   * Creates a presenter for one session.
   *
   * @param options The session cwd, terminal capability and tool lookup.
   */
  constructor(options: CardPresenterOptions) {
    this.#options = options;
  }

  /**
   * Builds the `tool_call` for a call and remembers it until its result.
   *
   * @param callId The call id.
   * @param name The tool name.
   * @param args The parsed arguments (the `args` of the `tool/call` event), or the raw text
   *   when it did not parse.
   * @param validation The registry's validation of them (the event's `validation`), when known.
   * @returns The `tool_call` update.
   */
  call(
    callId: string,
    name: string,
    args: PresenterArgs,
    validation?: ArgsValidation,
  ): ToolCallWire {
    const presenters = presentersOf(this.#options.lookup(name), args, validation);
    const { card, wire } = this.#callCard(callId, name, args, presenters);
    this.#pending.set(callId, { name, presenters, card, wire });
    return wire;
  }

  /**
   * The `tool_call` already sent for a pending call (used to show the card in a permission prompt).
   *
   * @param callId The call id.
   * @returns The update, or `undefined` when the call is unknown or settled.
   */
  pendingCard(callId: string): ToolCallWire | undefined {
    return this.#pending.get(callId)?.wire;
  }

  /**
   * Builds a call's card without remembering it (for calls with no `tool/call` event, such as
   * Code Mode sub-calls asking for permission).
   *
   * @param callId The call id.
   * @param name The tool name.
   * @param args The parsed arguments.
   * @returns The `tool_call` update.
   */
  preview(callId: string, name: string, args: unknown): ToolCallWire {
    return this.#callCard(callId, name, args, presentersOf(this.#options.lookup(name), args)).wire;
  }

  /**
   * Whether a pending call renders as a terminal card (its output may stream).
   *
   * @param callId The call id.
   * @returns True for a pending terminal card.
   */
  isTerminal(callId: string): boolean {
    return this.#pending.get(callId)?.card === "terminal";
  }

  /**
   * Builds the `tool_call_update` for a result and forgets the call.
   *
   * @param callId The call id.
   * @param result The logged result.
   * @param options `surfaceOp` (a non-`append` op is skipped), the `streamed` output and the
   *   received but `unsent` output of a terminal card.
   * @returns The update, or `undefined` when the result is skipped.
   */
  result(
    callId: string,
    result: ToolResult,
    options: {
      readonly surfaceOp?: string;
      readonly streamed?: string;
      readonly unsent?: string;
    } = {},
  ): ToolCallUpdateWire | undefined {
    if (options.surfaceOp !== undefined && options.surfaceOp !== "append") return undefined;
    const pending = this.#pending.get(callId);
    this.#pending.delete(callId);
    const wireOptions = {
      ...this.#wireOptions(callId),
      isError: result.isError,
      ...(options.streamed !== undefined ? { streamed: options.streamed } : {}),
      ...(options.unsent !== undefined ? { unsent: options.unsent } : {}),
    };
    const raw: ToolResultView = { card: "generic", content: result.content };
    if (pending !== undefined) {
      const wire = this.#present(pending.name, "presentResult", () => {
        let view = pending.presenters.result?.(result);
        if (!isView(view)) return checked(view);
        // Orphan guard: a terminal result needs a terminal card to land in.
        if (view.card === "terminal" && pending.card !== "terminal") return undefined;
        // A terminal card ends as a terminal (below), whatever the view.
        if (view.card !== "terminal" && pending.card === "terminal") return undefined;
        if (view.card === "generic" && view.content === undefined) {
          view = { ...raw, ...(view.title !== undefined ? { title: view.title } : {}) };
        }
        return resultToWire(view, wireOptions);
      });
      if (wire !== undefined) return wire;
      // A failed or cancelled command keeps the output it showed, and its terminal ends.
      if (pending.card === "terminal") {
        return terminalEndToWire(result.content, pending.wire, wireOptions);
      }
    }
    return resultToWire(raw, wireOptions);
  }

  #callCard(
    callId: string,
    name: string,
    args: unknown,
    presenters: Presenters,
  ): { card: ToolCallView["card"]; wire: ToolCallWire } {
    const options = this.#wireOptions(callId);
    const presented = this.#present(name, "presentCall", () => {
      const view = presenters.call?.();
      if (!isView(view)) return checked(view);
      return { card: view.card, wire: callToWire(view, options) };
    });
    if (presented !== undefined) return presented;
    const fallback: ToolCallView = {
      card: "generic",
      title: name,
      kind: "other",
      rawInput: args as JsonValue,
    };
    return { card: "generic", wire: callToWire(fallback, options) };
  }

  #wireOptions(toolCallId: string) {
    return { toolCallId, cwd: this.#options.cwd, terminalOutput: this.#options.terminalOutput };
  }

  #present<T>(name: string, which: string, fn: () => T | undefined): T | undefined {
    try {
      return fn();
    } catch (error) {
      this.#options.logger?.warn(
        `Presenter ${which} of tool "${name}" failed; using the generic card`,
        { error: errorMessage(error) },
      );
      return undefined;
    }
  }
}

const CARDS: ReadonlySet<string> = new Set(["generic", "terminal", "diff"]);

function isView<T extends { readonly card: string }>(value: T | undefined): value is T {
  return typeof value === "object" && value !== null && CARDS.has(value.card);
}

/** `undefined` selects the generic card; any other non-view value is a presenter bug. */
function checked(value: unknown): undefined {
  if (value === undefined || value === null) return undefined;
  throw new TypeError(
    `Cannot present the card: expected a view with "card" generic, terminal or diff: received ${
      describeValue(value)
    }`,
  );
}
