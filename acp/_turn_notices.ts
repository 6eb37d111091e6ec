/**
 * Private: what the agent says to the user outside any tool call, delivered where every client
 * shows it — inside a turn. A notice (a plugin reload, a plugin error) said during a turn goes
 * to that session at once; said between turns it waits for the session's next prompt (acpx,
 * for one, shows nothing between turns). A plugin file changed on disk is asked about with
 * `session/request_permission` at the same moments: in the session whose turn is running, or
 * at the start of the next prompt, before the model runs, so that an approved reload is what
 * the turn uses. Nothing loads unless the user picks "Reload plugin".
 *
 * @module
 */
import { diffLines } from "diff";
import { relative } from "node:path";
import { hasHiddenText, safeText } from "../core/safe_text.ts";
import type { PluginChange } from "./_plugin_slot.ts";
import type { AgentContext as ClientCaller } from "@agentclientprotocol/sdk";
import type { Logger } from "../core/mod.ts";
import type { SessionUpdateWire, ToolCallContentWire } from "./session_update_wire.ts";
import type { PermissionOptionWire, PermissionResponseWire } from "./session_permissions.ts";
import { cardTitle, reasonItem } from "./_card_text.ts";

/** The two answers of a reload prompt ("always" is not offered: every change is asked about). */
export const RELOAD_OPTIONS: readonly PermissionOptionWire[] = [
  { optionId: "reload", name: "Reload plugin", kind: "allow_once" },
  { optionId: "keep", name: "Keep the loaded version", kind: "reject_once" },
];

/** Notices kept per session between turns; older ones are dropped past this. */
const MAX_QUEUED = 20;

function text(value: string): ToolCallContentWire {
  return { type: "content", content: { type: "text", text: value } };
}

function lineCounts(oldText: string | null, newText: string): string {
  let added = 0;
  let removed = 0;
  for (const part of diffLines(oldText ?? "", newText)) {
    if (part.added) added += part.count ?? 0;
    if (part.removed) removed += part.count ?? 0;
  }
  return `+${added} −${removed} lines`;
}

/** The card of a reload prompt: why it asks, the files with their line counts, the diffs. */
export function reloadCard(
  change: PluginChange,
  cwd: string,
): { title: string; content: ToolCallContentWire[] } {
  const show = (path: string) => {
    const rel = relative(cwd, path);
    return rel.startsWith("..") ? path : rel;
  };
  const what = JSON.stringify(change.plugin);
  const files = change.files.filter((f) => f.newText !== null);
  const summary = files.map((f) =>
    `${show(f.path)} (${f.oldText === null ? "new, " : ""}${lineCounts(f.oldText, f.newText!)})`
  ).join(", ");
  const content: ToolCallContentWire[] = [
    reasonItem(
      `plugin ${what} changed on disk since the agent loaded it: ${summary}. A plugin runs in the agent's own process, outside the sandbox, with the agent's permissions; a tool call may have written this change. Reload only if you made it.`,
    ),
  ];
  if (change.stale.length > 0) {
    content.push(text(cardTitle(
      `Also changed, but not loaded by a reload: ${
        change.stale.map(show).join(", ")
      } (already imported; loads when the agent starts).`,
    )));
  }
  for (const file of files) {
    if (hasHiddenText(file.newText!)) {
      content.push(text(cardTitle(
        `Warning: ${show(file.path)} contains invisible, bidi or control characters.`,
      )));
    }
  }
  for (const file of files) {
    content.push({ type: "diff", path: file.path, oldText: file.oldText, newText: file.newText! });
  }
  return { title: cardTitle(`Reload plugin ${what} from disk?`), content };
}

/** What {@linkcode TurnNotices} reads of its connection's state (`ServerState`). */
export interface NoticeHost {
  /** The open sessions: a running turn, and the workspace the reload card names paths in. */
  readonly sessions: ReadonlyMap<
    string,
    { readonly turn: AbortController | undefined; readonly agent: { readonly cwd: string } }
  >;
  readonly client: ClientCaller | undefined;
  readonly ctx: { readonly logger: Logger };
  /** Sends `session/update` notifications for one session, in order. */
  sender(sessionId: string): (update: SessionUpdateWire) => void;
  /** Says a `[dsh]` notice in a session. */
  notice(sessionId: string, text: string): void;
}

/** Notices and reload prompts of one connection, delivered inside turns. */
export class TurnNotices {
  readonly #state: NoticeHost;
  readonly #queued = new Map<string, string[]>();
  /** Said while no session was open: the next prompt of any session gets them. */
  readonly #unseen: string[] = [];
  readonly #changes = new Map<string, PluginChange>();
  #asking: Promise<void> = Promise.resolve();
  #seq = 0;

  constructor(state: NoticeHost) {
    this.#state = state;
  }

  /** Says `text` now in sessions whose turn runs, and at the next prompt in the others. */
  notice(text: string): void {
    const value = safeText(text, { multiline: true, maxChars: 4000 });
    const { sessions } = this.#state;
    if (sessions.size === 0) return push(this.#unseen, value);
    for (const [sessionId, live] of sessions) {
      if (live.turn !== undefined) this.#state.notice(sessionId, value);
      else {
        const queue = this.#queued.get(sessionId) ?? [];
        this.#queued.set(sessionId, queue);
        push(queue, value);
      }
    }
  }

  /** Holds a plugin change: asked in a running turn now, else at the next prompt. */
  change(change: PluginChange): void {
    this.#changes.set(change.plugin, change);
    for (const [sessionId, live] of this.#state.sessions) {
      if (live.turn === undefined || live.turn.signal.aborted) continue;
      void this.#askAll(sessionId, live.turn.signal);
      return;
    }
  }

  /**
   * The start of a turn: the session's waiting notices, then the waiting reload prompts (an
   * approved reload is done before this resolves).
   */
  async beginTurn(sessionId: string, signal: AbortSignal): Promise<void> {
    const waiting = [...this.#unseen.splice(0), ...this.#queued.get(sessionId) ?? []];
    this.#queued.delete(sessionId);
    for (const value of waiting) this.#state.notice(sessionId, value);
    await this.#askAll(sessionId, signal);
  }

  /** Forgets a closed session's waiting notices. */
  forget(sessionId: string): void {
    this.#queued.delete(sessionId);
  }

  #askAll(sessionId: string, signal: AbortSignal): Promise<void> {
    const run = this.#asking.then(async () => {
      for (const [plugin, change] of [...this.#changes]) {
        if (signal.aborted || !this.#state.sessions.has(sessionId)) return;
        if (this.#changes.get(plugin) !== change) continue;
        const approved = await this.#ask(sessionId, change, signal);
        // Unanswered (cancelled, no client): asked again at the next prompt.
        if (approved === undefined) continue;
        if (this.#changes.get(plugin) === change) this.#changes.delete(plugin);
        await change.decide(approved);
      }
    });
    this.#asking = run.catch((error) => {
      this.#state.ctx.logger.warn("Cannot ask about a plugin change", { error: String(error) });
    });
    return this.#asking;
  }

  async #ask(
    sessionId: string,
    change: PluginChange,
    signal: AbortSignal,
  ): Promise<boolean | undefined> {
    const client = this.#state.client;
    const live = this.#state.sessions.get(sessionId);
    if (client === undefined || live === undefined) return undefined;
    const toolCallId = `dsh-plugin-reload-${++this.#seq}`;
    const { title, content } = reloadCard(change, live.agent.cwd);
    const send = this.#state.sender(sessionId);
    send({ sessionUpdate: "tool_call", toolCallId, title, kind: "other", status: "in_progress" });
    send({ sessionUpdate: "tool_call_update", toolCallId, status: "pending", content });
    let approved: boolean | undefined;
    try {
      const response: PermissionResponseWire = await client.request(
        "session/request_permission",
        {
          sessionId,
          toolCall: { toolCallId, title, kind: "other", content },
          options: [...RELOAD_OPTIONS],
        },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
      const { outcome } = response;
      if (!signal.aborted && outcome.outcome === "selected") {
        approved = outcome.optionId === "reload";
      }
    } catch {
      approved = undefined;
    }
    const result = approved === true
      ? "Approved: reloading the plugin."
      : approved === false
      ? "Not approved: the loaded version stays."
      : "Not answered: asked again at the next prompt.";
    send({
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: approved === true ? "completed" : "failed",
      content: [text(result)],
    });
    return approved;
  }
}

function push(queue: string[], value: string): void {
  queue.push(value);
  if (queue.length > MAX_QUEUED) queue.splice(0, queue.length - MAX_QUEUED);
}
