/**
 * Render intents: the neutral card vocabulary that `presentCall` / `presentResult` return.
 * Only `acp/` knows how these map to the wire; tools never import an ACP type.
 *
 * @module
 */
import type { ContentBlock } from "./content.ts";
import type { JsonValue } from "../core/json.ts";

/** Icon hint for a generic card. */
export type ToolKind =
  | "read"
  | "edit"
  | "delete"
  | "move"
  | "search"
  | "execute"
  | "fetch"
  | "other";

/** A file location a capable editor can follow. */
export interface ToolLocation {
  /** Absolute path (or as given by the tool; the bridge leaves it raw). */
  readonly path: string;
  /** 1-based line. */
  readonly line?: number;
}

/** One file diff; `oldText: null` means a new file. */
export interface FileDiff {
  /** The file path. */
  readonly path: string;
  /** The old text, or `null` for a new file. */
  readonly oldText: string | null;
  /** The new text. */
  readonly newText: string;
}

/** The default pending card. */
export interface GenericCallView {
  /** Discriminant. */
  readonly card: "generic";
  /** Card title. */
  readonly title: string;
  /** Icon hint. */
  readonly kind?: ToolKind;
  /** Raw input shown by generic clients. */
  readonly rawInput?: JsonValue;
  /** Text shown in the card. */
  readonly content?: readonly ContentBlock[];
  /** Files this call touches. */
  readonly locations?: readonly ToolLocation[];
}

/** A pending card for a shell command. */
export interface TerminalCallView {
  /** Discriminant. */
  readonly card: "terminal";
  /** The command. */
  readonly title: string;
  /** Shown above the terminal. */
  readonly description?: string;
  /** Working directory (relative is resolved by the bridge against the session cwd). */
  readonly cwd?: string;
}

/** A pending card for a file mutation. */
export interface DiffCallView {
  /** Discriminant. */
  readonly card: "diff";
  /** Card title. */
  readonly title: string;
  /** The diffs. */
  readonly diffs: readonly FileDiff[];
  /** Files this call touches. */
  readonly locations?: readonly ToolLocation[];
}

/**
 * What `presentCall` returns.
 *
 * @example Usage
 * ```ts
 * import type { ToolCallView } from "./views.ts";
 * const view: ToolCallView = { card: "terminal", title: "ls -la" };
 * ```
 */
export type ToolCallView = GenericCallView | TerminalCallView | DiffCallView;

/** A completed generic card. */
export interface GenericResultView {
  /** Discriminant. */
  readonly card: "generic";
  /** Replacement title. */
  readonly title?: string;
  /** Content; the bridge fills the raw result content when absent. */
  readonly content?: readonly ContentBlock[];
}

/** A completed terminal card: raw output (the bridge adds fences), exit code, signal. */
export interface TerminalResultView {
  /** Discriminant. */
  readonly card: "terminal";
  /** Replacement title. */
  readonly title?: string;
  /** Raw captured output. */
  readonly output?: string;
  /** Exit code. */
  readonly exitCode?: number;
  /** Signal name that ended the process. */
  readonly signal?: string;
}

/** A completed file mutation card. */
export interface DiffResultView {
  /** Discriminant. */
  readonly card: "diff";
  /** Replacement title. */
  readonly title?: string;
  /** The applied hunks. */
  readonly diffs: readonly FileDiff[];
}

/**
 * What `presentResult` returns.
 *
 * @example Usage
 * ```ts
 * import type { ToolResultView } from "./views.ts";
 * const view: ToolResultView = { card: "terminal", output: "ok\n", exitCode: 0 };
 * ```
 */
export type ToolResultView = GenericResultView | TerminalResultView | DiffResultView;
