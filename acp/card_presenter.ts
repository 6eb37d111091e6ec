/**
 * The per-session card presenter: runs tool presenters on `tool/call` and `tool/result`
 * (live and on replay), applies the generic fallback and the orphan guard, and maps the
 * views to the wire.
 *
 * @module
 */
import type { JsonValue } from "../core/json.ts";
import type { AnyToolDefinition, ToolResult } from "../tools/definition.ts";
import type { ToolCallView, ToolResultView } from "../tools/views.ts";
import type { ToolCallUpdateWire, ToolCallWire } from "./session_update_wire.ts";
import { callToWire, resultToWire } from "./wire.ts";

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

interface PendingCall {
  readonly name: string;
  readonly args: unknown;
  readonly card: ToolCallView["card"];
  readonly wire: ToolCallWire;
}

/**
 * Parses logged raw arguments: an empty string is `{}`, invalid JSON stays the raw string.
 *
 * @param raw The raw argument string as the model emitted it.
 * @returns The parsed value.
 *
 * @example Usage
 * ```ts
 * import { parseArguments } from "./card_presenter.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(parseArguments(""), {});
 * deepEqual(parseArguments("{\"a\":1}"), { a: 1 });
 * deepEqual(parseArguments("{oops"), "{oops");
 * ```
 */
export function parseArguments(raw: string): unknown {
  if (raw.trim() === "") return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * Turns tool calls and results into cards for one session.
 *
 * @example Usage
 * ```ts
 * import { CardPresenter } from "./card_presenter.ts";
 * import { equal } from "node:assert/strict";
 * const presenter = new CardPresenter({ cwd: "/w", terminalOutput: false, lookup: () => undefined });
 * const call = presenter.call("c1", "mystery", "{\"x\":1}");
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
   * @param rawArguments The raw argument string as logged.
   * @returns The `tool_call` update.
   */
  call(callId: string, name: string, rawArguments: string): ToolCallWire {
    const args = parseArguments(rawArguments);
    const view = this.#present(name, "presentCall", () => {
      const def = this.#options.lookup(name);
      return def?.presentCall?.(args);
    }) ?? { card: "generic", title: name, kind: "other", rawInput: args as JsonValue };
    const wire = callToWire(view, this.#wireOptions(callId));
    this.#pending.set(callId, { name, args, card: view.card, wire });
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
    const view =
      this.#present(name, "presentCall", () => this.#options.lookup(name)?.presentCall?.(args)) ??
        { card: "generic", title: name, kind: "other", rawInput: args as JsonValue };
    return callToWire(view, this.#wireOptions(callId));
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
    let view: ToolResultView | undefined;
    if (pending !== undefined) {
      view = this.#present(pending.name, "presentResult", () => {
        const def = this.#options.lookup(pending.name);
        return def?.presentResult?.(pending.args, result);
      });
      // Orphan guard: a terminal result needs a terminal card to land in.
      if (view?.card === "terminal" && pending.card !== "terminal") view = undefined;
    }
    if (view === undefined || (view.card === "generic" && view.content === undefined)) {
      view = {
        card: "generic",
        ...(view?.title !== undefined ? { title: view.title } : {}),
        content: result.content,
      };
    }
    return resultToWire(view, {
      ...this.#wireOptions(callId),
      isError: result.isError,
      ...(options.streamed !== undefined ? { streamed: options.streamed } : {}),
      ...(options.unsent !== undefined ? { unsent: options.unsent } : {}),
    });
  }

  #wireOptions(toolCallId: string) {
    return { toolCallId, cwd: this.#options.cwd, terminalOutput: this.#options.terminalOutput };
  }

  #present<T>(name: string, which: string, fn: () => T | undefined): T | undefined {
    try {
      return fn();
    } catch (error) {
      this.#options.logger?.warn(
        `Presenter ${which} of tool "${name}" threw; using the generic card`,
        {
          error: error instanceof Error ? error.message : String(error),
        },
      );
      return undefined;
    }
  }
}
