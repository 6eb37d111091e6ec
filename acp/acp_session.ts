/**
 * One ACP session's presentation state: turns session-log events (live or replayed), model
 * deltas and streamed tool output into `session/update` payloads, coalescing deltas and
 * terminal output so that nothing is dropped and the wire is not flooded.
 *
 * @module
 */
import { isEventType, type SessionEvent, type SessionEventOf } from "../agent/mod.ts";
import type { AnyToolDefinition, ArgsValidation } from "../tools/definition.ts";
import { CardPresenter, type PresenterLogger } from "./card_presenter.ts";
import type { SessionUpdateWire, ToolCallCardWire } from "./session_update_wire.ts";
import { fenceConsole } from "./wire.ts";
import { reasonItem } from "./_card_text.ts";

/**
 * A session-log event as the bridge reads it: the very event the session log appended (or
 * loaded).
 */
export type BridgeEvent = SessionEvent;

/** Options of {@linkcode AcpSession}. */
export interface AcpSessionOptions {
  /** The session working directory (absolute). */
  readonly cwd: string;
  /** True when the client advertised `_meta.terminal_output`. */
  readonly terminalOutput: boolean;
  /** Looks up tool definitions (`ctx.tools.get`). */
  readonly lookup: (name: string) => AnyToolDefinition | undefined;
  /** Sends one update (in order). */
  readonly send: (update: SessionUpdateWire) => void;
  /** Coalescing window for deltas and terminal output, in ms; `0` sends each piece at once. @default {50} */
  readonly flushMs?: number;
  /** Where presenter throws are reported. @default {undefined} */
  readonly logger?: PresenterLogger;
}

interface OutputState {
  streamed: string;
  pending: string;
}

/**
 * The presentation state of one session.
 *
 * @example Usage
 * ```ts
 * import { AcpSession } from "./acp_session.ts";
 * import { equal } from "node:assert/strict";
 * const sent: string[] = [];
 * const session = new AcpSession({
 *   cwd: "/w",
 *   terminalOutput: false,
 *   lookup: () => undefined,
 *   send: (update) => sent.push(update.sessionUpdate),
 * });
 * session.delta("text", "Hi");
 * const envelope = { seq: 1, time: "t", turn: 1, step: 1, callId: "c1" };
 * session.event({ ...envelope, type: "tool/call", name: "x", arguments: "{}", args: {} }, false);
 * session.event({ ...envelope, type: "tool/result", content: [], isError: false }, false);
 * session.dispose();
 * equal(sent.join(","), "agent_message_chunk,tool_call,tool_call_update");
 * ```
 */
export class AcpSession {
  /** The card presenter of this session. */
  readonly presenter: CardPresenter;
  #options: AcpSessionOptions;
  #delta: { kind: "text" | "reasoning"; text: string } | undefined;
  #outputs = new Map<string, OutputState>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Creates the state of one session.
   *
   * @param options Cwd, capability, tool lookup, sender and coalescing window.
   */
  constructor(options: AcpSessionOptions) {
    this.#options = options;
    this.presenter = new CardPresenter({
      cwd: options.cwd,
      terminalOutput: options.terminalOutput,
      lookup: options.lookup,
      ...(options.logger !== undefined ? { logger: options.logger } : {}),
    });
  }

  /**
   * Handles one session-log event. `replay` also sends the logged user and assistant messages
   * (live runs stream those as deltas).
   *
   * @param event The event.
   * @param replay True during `session/load`.
   * @param validation The registry's validation of a live `tool/call` (its presenters reuse it).
   */
  event(event: SessionEvent, replay: boolean, validation?: ArgsValidation): void {
    if (isEventType(event, "user/message")) {
      if (replay) this.#replayUser(event);
    } else if (isEventType(event, "assistant/message")) {
      this.#flushDelta();
      if (replay) this.#replayAssistant(event);
    } else if (isEventType(event, "model/retry")) {
      // Live and on replay: the wait before a retry shows as a thought of its own.
      this.#flushDelta();
      this.#options.send({
        sessionUpdate: "agent_thought_chunk",
        content: { type: "text", text: `${event.message}\n` },
      });
    } else if (isEventType(event, "tool/call")) {
      this.#flushDelta();
      // The arguments as parsed once by the loop (or at load); the raw text when unparseable.
      this.#options.send(
        this.presenter.call(
          event.callId,
          event.name,
          event.args ?? event.arguments,
          validation,
        ),
      );
    } else if (isEventType(event, "tool/result")) {
      this.#flushDelta();
      this.#result(event);
    } else if (event.type === "turn/end") this.flush();
  }

  #replayUser(event: SessionEventOf<"user/message">): void {
    for (const block of event.content) {
      if (block.type !== "text") continue;
      this.#options.send({
        sessionUpdate: "user_message_chunk",
        content: { type: "text", text: block.text },
      });
    }
  }

  #replayAssistant(event: SessionEventOf<"assistant/message">): void {
    for (const block of event.content) {
      if (block.type !== "text" && block.type !== "reasoning") continue;
      this.#options.send({
        sessionUpdate: block.type === "text" ? "agent_message_chunk" : "agent_thought_chunk",
        content: { type: "text", text: block.text },
      });
    }
  }

  #result(event: SessionEventOf<"tool/result"> & { readonly surfaceOp?: unknown }): void {
    const { callId } = event;
    const output = this.#outputs.get(callId);
    this.#outputs.delete(callId);
    const update = this.presenter.result(
      callId,
      {
        content: event.content,
        isError: event.isError,
        ...(event.meta !== undefined ? { meta: event.meta } : {}),
      },
      {
        ...(typeof event.surfaceOp === "string" ? { surfaceOp: event.surfaceOp } : {}),
        ...(output !== undefined ? { streamed: output.streamed, unsent: output.pending } : {}),
      },
    );
    if (update !== undefined) this.#options.send(update);
  }

  /**
   * Buffers a streamed model delta (sent within the coalescing window).
   *
   * @param kind `text` or `reasoning`.
   * @param text The delta.
   */
  delta(kind: "text" | "reasoning", text: string): void {
    if (this.#delta !== undefined && this.#delta.kind !== kind) this.#flushDelta();
    if (this.#delta === undefined) this.#delta = { kind, text };
    else this.#delta.text += text;
    this.#schedule();
  }

  /**
   * Buffers streamed output of a running call; only terminal cards stream.
   *
   * @param callId The call id.
   * @param chunk The output.
   */
  output(callId: string, chunk: string): void {
    if (!this.presenter.isTerminal(callId) || chunk === "") return;
    const state = this.#outputs.get(callId);
    if (state === undefined) this.#outputs.set(callId, { streamed: "", pending: chunk });
    else state.pending += chunk;
    this.#schedule();
  }

  /** Sends everything buffered now. */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#flushDelta();
    const { send, terminalOutput } = this.#options;
    for (const [callId, state] of this.#outputs) {
      if (state.pending === "") continue;
      const data = state.pending;
      state.streamed += data;
      state.pending = "";
      send(
        terminalOutput
          ? {
            sessionUpdate: "tool_call_update",
            toolCallId: callId,
            _meta: { terminal_output: { terminal_id: callId, data } },
          }
          : {
            sessionUpdate: "tool_call_update",
            toolCallId: callId,
            content: [{
              type: "content",
              content: { type: "text", text: fenceConsole(state.streamed) },
            }],
          },
      );
    }
  }

  /**
   * The card a permission prompt shows for a call (the `tool_call` already sent, else a preview).
   *
   * @param callId The call id.
   * @param name The tool name.
   * @param args The parsed arguments.
   * @param reason Why the rules ask (a permission rule's `reason`), shown after the card body.
   * @returns The `toolCall` of `session/request_permission`.
   */
  permissionCard(callId: string, name: string, args: unknown, reason?: string): ToolCallCardWire {
    this.#flushDelta();
    const card = this.presenter.pendingCard(callId) ?? this.presenter.preview(callId, name, args);
    const { sessionUpdate: _, status: _status, ...toolCall } = card;
    if (reason === undefined || reason === "") return toolCall;
    return { ...toolCall, content: [...(toolCall.content ?? []), reasonItem(reason)] };
  }

  /**
   * Sends a status change of a shown card (`pending` while permission is asked, `in_progress`
   * once granted).
   *
   * @param callId The call id.
   * @param status The new status.
   */
  status(callId: string, status: "pending" | "in_progress"): void {
    this.#flushDelta();
    this.#options.send({ sessionUpdate: "tool_call_update", toolCallId: callId, status });
  }

  /** Stops the coalescing timer (buffered data is sent first). */
  dispose(): void {
    this.flush();
  }

  #schedule(): void {
    if (this.#options.flushMs === 0) return this.flush();
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush();
    }, this.#options.flushMs ?? 50);
  }

  #flushDelta(): void {
    const delta = this.#delta;
    if (delta === undefined) return;
    this.#delta = undefined;
    this.#options.send({
      sessionUpdate: delta.kind === "text" ? "agent_message_chunk" : "agent_thought_chunk",
      content: { type: "text", text: delta.text },
    });
  }
}
