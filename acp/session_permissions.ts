/**
 * Permission prompts for one ACP session: an `ask` decision becomes
 * `session/request_permission` carrying the call's card; "always" answers are remembered for the
 * session per tool name, or per tool name and scope when the ask has one (an fs call outside the
 * workspace is scoped to its folder, a protected path to itself: "always" for one of them never
 * covers another). An "Always reject" for a whole tool also rejects its scoped asks.
 *
 * @module
 */
import type { ApprovalOutcome, ApprovalScope } from "../registry/hooks.ts";
import type { ToolCallCardWire } from "./session_update_wire.ts";

/** One choice of a permission prompt. */
export interface PermissionOptionWire {
  /** The id the client answers with (dsh uses the kind). */
  readonly optionId: string;
  /** The button label. */
  readonly name: string;
  /** What choosing it means. */
  readonly kind: "allow_once" | "allow_always" | "reject_once" | "reject_always";
}

/** The params of `session/request_permission`. */
export interface PermissionRequestWire {
  /** The ACP session id. */
  readonly sessionId: string;
  /** The call's card. */
  readonly toolCall: ToolCallCardWire;
  /** The choices ({@linkcode PERMISSION_OPTIONS}). */
  readonly options: PermissionOptionWire[];
}

/** The client's answer to `session/request_permission` (fields dsh does not read are allowed). */
export interface PermissionResponseWire {
  /** `cancelled` when the prompt was dismissed, else the chosen option. */
  readonly outcome:
    | { readonly outcome: "cancelled" }
    | { readonly outcome: "selected"; readonly optionId: string };
}

/** Sends `session/request_permission` to the client. */
export type PermissionRequester = (
  params: PermissionRequestWire,
  signal: AbortSignal | undefined,
) => Promise<PermissionResponseWire>;

/** The four options every prompt offers (option ids equal their kinds). */
export const PERMISSION_OPTIONS: readonly PermissionOptionWire[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
  { optionId: "reject_always", name: "Always reject", kind: "reject_always" },
];

/**
 * The choices of a scoped prompt: the "always" ones name what they cover.
 *
 * @param scope The ask's scope.
 * @returns The four options (same ids and kinds as {@linkcode PERMISSION_OPTIONS}).
 *
 * @example Usage
 * ```ts
 * import { scopedPermissionOptions } from "./session_permissions.ts";
 * import { equal } from "node:assert/strict";
 * const options = scopedPermissionOptions({ key: "/etc", label: 'reads in "/etc"' });
 * equal(options[1]?.name, 'Always allow reads in "/etc"');
 * ```
 */
export function scopedPermissionOptions(scope: ApprovalScope): PermissionOptionWire[] {
  return PERMISSION_OPTIONS.map((option) =>
    option.kind === "allow_always"
      ? { ...option, name: `Always allow ${scope.label}` }
      : option.kind === "reject_always"
      ? { ...option, name: `Always reject ${scope.label}` }
      : option
  );
}

/**
 * Asks the user about calls in one session and remembers "always" answers per tool name (and
 * scope, when the ask has one).
 *
 * @example Usage
 * ```ts
 * import { SessionPermissions } from "./session_permissions.ts";
 * import { equal } from "node:assert/strict";
 * let asked = 0;
 * const permissions = new SessionPermissions("s1", () => {
 *   asked++;
 *   return Promise.resolve({ outcome: { outcome: "selected", optionId: "allow_always" } });
 * });
 * const card = { toolCallId: "c1", title: "ls" };
 * equal(await permissions.ask("bash", card), "allowed-always");
 * equal(await permissions.ask("bash", { toolCallId: "c2", title: "pwd" }), "allowed-always");
 * equal(asked, 1);
 * ```
 */
export class SessionPermissions {
  #sessionId: string;
  #request: PermissionRequester;
  #remembered = new Map<string, "allow" | "reject">();

  /**
   * Creates the permission state of one session.
   *
   * @param sessionId The ACP session id.
   * @param request Sends the request to the client.
   */
  constructor(sessionId: string, request: PermissionRequester) {
    this.#sessionId = sessionId;
    this.#request = request;
  }

  /**
   * Asks about one call unless an "always" answer for `toolName` (and `scope`) is remembered.
   * A cancelled prompt, a cancelled turn or a failed request answers `cancelled`.
   *
   * @param toolName The tool name ("always" answers are remembered per name).
   * @param toolCall The call's card (the diff for edits).
   * @param signal The turn's cancellation.
   * @param scope What an "always" answer covers (remembered per name and key), else the tool.
   * @returns The approval outcome.
   */
  async ask(
    toolName: string,
    toolCall: ToolCallCardWire,
    signal?: AbortSignal,
    scope?: ApprovalScope,
  ): Promise<ApprovalOutcome> {
    const key = scope === undefined ? toolName : `${toolName}\u0000${scope.key}`;
    // A whole-tool "always reject" covers its scoped asks too; a whole-tool "always allow" does not.
    if (this.#remembered.get(toolName) === "reject") return "rejected";
    const remembered = this.#remembered.get(key);
    if (remembered === "allow") return "allowed-always";
    if (remembered === "reject") return "rejected";
    if (signal?.aborted) return "cancelled";
    const options = scope === undefined ? [...PERMISSION_OPTIONS] : scopedPermissionOptions(scope);
    let response: PermissionResponseWire;
    try {
      response = await this.#request({ sessionId: this.#sessionId, toolCall, options }, signal);
    } catch {
      return "cancelled";
    }
    if (signal?.aborted || response.outcome.outcome !== "selected") return "cancelled";
    switch (response.outcome.optionId) {
      case "allow_once":
        return "allowed-once";
      case "allow_always":
        this.#remembered.set(key, "allow");
        return "allowed-always";
      case "reject_always":
        this.#remembered.set(key, "reject");
        return "rejected";
      default:
        return "rejected";
    }
  }
}
