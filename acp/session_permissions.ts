/**
 * Permission prompts for one ACP session: an `ask` decision becomes
 * `session/request_permission` carrying the call's card; "always" answers are remembered per
 * tool name for the session.
 *
 * @module
 */
import type { ApprovalOutcome } from "../registry/types.ts";
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
 * Asks the user about calls in one session and remembers "always" answers per tool name.
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
   * Asks about one call unless an "always" answer for `toolName` is remembered.
   * A cancelled prompt, a cancelled turn or a failed request answers `cancelled`.
   *
   * @param toolName The tool name ("always" answers are remembered per name).
   * @param toolCall The call's card (the diff for edits).
   * @param signal The turn's cancellation.
   * @returns The approval outcome.
   */
  async ask(
    toolName: string,
    toolCall: ToolCallCardWire,
    signal?: AbortSignal,
  ): Promise<ApprovalOutcome> {
    const remembered = this.#remembered.get(toolName);
    if (remembered === "allow") return "allowed-always";
    if (remembered === "reject") return "rejected";
    if (signal?.aborted) return "cancelled";
    let response: PermissionResponseWire;
    try {
      response = await this.#request(
        { sessionId: this.#sessionId, toolCall, options: [...PERMISSION_OPTIONS] },
        signal,
      );
    } catch {
      return "cancelled";
    }
    if (signal?.aborted || response.outcome.outcome !== "selected") return "cancelled";
    switch (response.outcome.optionId) {
      case "allow_once":
        return "allowed-once";
      case "allow_always":
        this.#remembered.set(toolName, "allow");
        return "allowed-always";
      case "reject_always":
        this.#remembered.set(toolName, "reject");
        return "rejected";
      default:
        return "rejected";
    }
  }
}
