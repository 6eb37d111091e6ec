/**
 * The `session/update` payloads dsh sends, as plain types: exactly the fields the bridge emits
 * (docs/contracts.md §4). Each is structurally a subset of the ACP schema's `SessionUpdate`, so
 * embedders need no SDK types to read or forward them.
 *
 * @module
 */
import type { ToolKind } from "../tools/views.ts";

/** A text content block. */
export interface TextContentWire {
  /** Discriminant. */
  readonly type: "text";
  /** The text. */
  readonly text: string;
}

/**
 * One item of a card's `content`: text, a file diff (`oldText: null` for a new file) or the
 * display terminal of the call.
 */
export type ToolCallContentWire =
  | {
    /** Discriminant. */
    readonly type: "content";
    /** The text. */
    readonly content: TextContentWire;
  }
  | {
    /** Discriminant. */
    readonly type: "diff";
    /** Absolute file path. */
    readonly path: string;
    /** The old text, or `null` for a new file. */
    readonly oldText: string | null;
    /** The new text. */
    readonly newText: string;
  }
  | {
    /** Discriminant. */
    readonly type: "terminal";
    /** The terminal id (dsh uses the tool call id). */
    readonly terminalId: string;
  };

/** A file location a capable editor can follow. */
export interface ToolCallLocationWire {
  /** Absolute path. */
  readonly path: string;
  /** 1-based line. */
  readonly line?: number;
}

/** A card's fields, as a permission prompt shows them (`session/request_permission`'s `toolCall`). */
export interface ToolCallCardWire {
  /** The tool call id. */
  readonly toolCallId: string;
  /** The card title. */
  readonly title: string;
  /** Icon hint. */
  readonly kind?: ToolKind;
  /** The raw input shown by generic clients. */
  readonly rawInput?: unknown;
  /** File locations. */
  readonly locations?: ToolCallLocationWire[];
  /** The card body. */
  readonly content?: ToolCallContentWire[];
  /** Extension data (`terminal_info` for a display terminal). */
  readonly _meta?: Record<string, unknown>;
}

/** The `tool_call` update that creates a card. */
export interface ToolCallWire extends ToolCallCardWire {
  /** Discriminant. */
  readonly sessionUpdate: "tool_call";
  /** Icon hint. */
  readonly kind: ToolKind;
  /** Always `in_progress`: a card is created when its call starts. */
  readonly status: "in_progress";
}

/**
 * A `tool_call_update`: completes a card (with `status`) or streams its output (without).
 */
export interface ToolCallUpdateWire {
  /** Discriminant. */
  readonly sessionUpdate: "tool_call_update";
  /** The tool call id. */
  readonly toolCallId: string;
  /**
   * The final status (`completed`, `failed`), `pending` while permission is asked and
   * `in_progress` once granted; absent while output streams.
   */
  readonly status?: "pending" | "in_progress" | "completed" | "failed";
  /** A new card title. */
  readonly title?: string;
  /** The new card body (replaces the old one). */
  readonly content?: ToolCallContentWire[];
  /** The raw output shown by generic clients (`{output, exit_code?, signal?}` for terminals). */
  readonly rawOutput?: unknown;
  /** Extension data (`terminal_output`, `terminal_exit` for a display terminal). */
  readonly _meta?: Record<string, unknown>;
}

/** A `tool_call` or `tool_call_update` session update. */
export type ToolWireUpdate = ToolCallWire | ToolCallUpdateWire;

/** A chunk of a user message (replay), an agent message or the agent's reasoning. */
export interface MessageChunkWire {
  /** Discriminant. */
  readonly sessionUpdate: "user_message_chunk" | "agent_message_chunk" | "agent_thought_chunk";
  /** The text. */
  readonly content: TextContentWire;
}

/** Every `session/update` payload dsh sends. */
export type SessionUpdateWire = MessageChunkWire | ToolWireUpdate;
