/**
 * The pure card → wire mapping (docs/contracts.md §4): call views become `tool_call`, result views
 * become `tool_call_update`. Field order in the emitted JSON follows the contract.
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import type { ContentBlock } from "../tools/content.ts";
import type { FileDiff, ToolCallView, ToolLocation, ToolResultView } from "../tools/views.ts";
import { relativizeTitle } from "./relativize_title.ts";
import { cardTitle, descriptionItem, safeRawInput } from "./_card_text.ts";
import type {
  ToolCallContentWire,
  ToolCallLocationWire,
  ToolCallUpdateWire,
  ToolCallWire,
} from "./session_update_wire.ts";

/** What the mapping needs to know about the call and the connection. */
export interface WireOptions {
  /** The tool call id (also the display terminal id). */
  readonly toolCallId: string;
  /** The session working directory (absolute). */
  readonly cwd: string;
  /** True when the client advertised `clientCapabilities._meta.terminal_output === true`. */
  readonly terminalOutput: boolean;
}

/** Options of {@linkcode resultToWire}. */
export interface ResultWireOptions extends WireOptions {
  /** True when the result is a failure (`status: failed`). */
  readonly isError: boolean;
  /**
   * Terminal output already streamed for this call. A capable client appends
   * `terminal_output`, so only the part of the final output not yet sent is repeated.
   * @default {""}
   */
  readonly streamed?: string;
  /**
   * Output received but not yet streamed. Sent to a capable client in place of the final tail
   * when the result's output does not continue what was streamed (so nothing is dropped).
   * @default {""}
   */
  readonly unsent?: string;
}

/**
 * Maps content blocks to `content` items; only text blocks map, other types are dropped.
 *
 * @param content The blocks.
 * @returns The tool call content items.
 *
 * @example Usage
 * ```ts
 * import { textItems } from "./wire.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(textItems([{ type: "text", text: "hi" }]), [
 *   { type: "content", content: { type: "text", text: "hi" } },
 * ]);
 * ```
 */
export function textItems(content: readonly ContentBlock[]): ToolCallContentWire[] {
  const items: ToolCallContentWire[] = [];
  for (const block of content) {
    if (block.type === "text") {
      items.push({ type: "content", content: { type: "text", text: block.text } });
    }
  }
  return items;
}

/**
 * Wraps terminal output in a `console` code fence (trailing newlines stripped).
 *
 * @param output The raw output.
 * @returns The fenced text.
 *
 * @example Usage
 * ```ts
 * import { fenceConsole } from "./wire.ts";
 * import { equal } from "node:assert/strict";
 * const fence = "`".repeat(3);
 * equal(fenceConsole("ok\n\n"), `${fence}console\nok\n${fence}`);
 * ```
 */
export function fenceConsole(output: string): string {
  return "```console\n" + output.replace(/\n+$/, "") + "\n```";
}

/** ACP wants absolute paths: a relative tool path is resolved against the session cwd. */
function absolute(path: string, cwd: string): string {
  return isAbsolute(path) || !isAbsolute(cwd) ? path : resolve(cwd, path);
}

function locationsOf(
  locations: readonly ToolLocation[],
  cwd: string,
): ToolCallLocationWire[] {
  return locations.map((l) => ({ ...l, path: absolute(l.path, cwd) }));
}

function diffItems(diffs: readonly FileDiff[], cwd: string): ToolCallContentWire[] {
  return diffs.map((d) => ({
    type: "diff",
    path: absolute(d.path, cwd),
    oldText: d.oldText,
    newText: d.newText,
  }));
}

function terminalCwd(viewCwd: string | undefined, sessionCwd: string): string {
  if (viewCwd === undefined) return sessionCwd;
  return isAbsolute(viewCwd) ? viewCwd : resolve(sessionCwd, viewCwd);
}

/**
 * Maps a call view to the `tool_call` that creates the card. Relative paths in `locations` and
 * `diffs` are resolved against the session cwd (ACP wants absolute paths); absolute ones stay raw.
 *
 * @param view The call view.
 * @param options The call id, session cwd and terminal capability.
 * @returns The `tool_call` update.
 *
 * @example Usage
 * ```ts
 * import { callToWire } from "./wire.ts";
 * import { deepEqual } from "node:assert/strict";
 * const update = callToWire({ card: "terminal", title: "ls" }, {
 *   toolCallId: "c1",
 *   cwd: "/w",
 *   terminalOutput: true,
 * });
 * deepEqual(update, {
 *   sessionUpdate: "tool_call",
 *   toolCallId: "c1",
 *   title: "ls",
 *   kind: "execute",
 *   status: "in_progress",
 *   rawInput: "ls",
 *   content: [{ type: "terminal", terminalId: "c1" }],
 *   _meta: { terminal_info: { terminal_id: "c1", cwd: "/w" } },
 * });
 * ```
 */
export function callToWire(view: ToolCallView, options: WireOptions): ToolCallWire {
  const { toolCallId, cwd, terminalOutput } = options;
  switch (view.card) {
    case "terminal": {
      const content: ToolCallContentWire[] = [];
      if (view.description !== undefined) content.push(descriptionItem(view.description));
      if (terminalOutput) content.push({ type: "terminal", terminalId: toolCallId });
      return {
        sessionUpdate: "tool_call",
        toolCallId,
        title: cardTitle(view.title),
        kind: "execute",
        status: "in_progress",
        rawInput: safeRawInput(view.title),
        ...(content.length > 0 ? { content } : {}),
        ...(terminalOutput
          ? {
            _meta: {
              terminal_info: { terminal_id: toolCallId, cwd: terminalCwd(view.cwd, cwd) },
            },
          }
          : {}),
      };
    }
    case "diff": {
      const titlePath = view.locations?.[0]?.path ?? view.diffs[0]?.path;
      return {
        sessionUpdate: "tool_call",
        toolCallId,
        title: cardTitle(
          titlePath === undefined ? view.title : relativizeTitle(view.title, titlePath, cwd),
        ),
        kind: "edit",
        status: "in_progress",
        ...(view.locations !== undefined ? { locations: locationsOf(view.locations, cwd) } : {}),
        content: diffItems(view.diffs, cwd),
      };
    }
    case "generic": {
      const titlePath = view.locations?.[0]?.path;
      const content = textItems(view.content ?? []);
      return {
        sessionUpdate: "tool_call",
        toolCallId,
        title: cardTitle(
          titlePath === undefined ? view.title : relativizeTitle(view.title, titlePath, cwd),
        ),
        kind: view.kind ?? "other",
        status: "in_progress",
        ...(view.rawInput !== undefined ? { rawInput: safeRawInput(view.rawInput) } : {}),
        ...(view.locations !== undefined ? { locations: locationsOf(view.locations, cwd) } : {}),
        ...(content.length > 0 ? { content } : {}),
      };
    }
  }
}

/**
 * Maps a result view to the `tool_call_update` that completes the card.
 *
 * A terminal result also carries `rawOutput: {output, exit_code?, signal?}` (last field) so
 * generic clients show the output.
 *
 * @param view The result view (a generic view must already carry its content).
 * @param options The call id, session cwd, terminal capability, error flag and streamed output.
 * @returns The `tool_call_update`.
 *
 * @example Usage
 * ```ts
 * import { resultToWire } from "./wire.ts";
 * import { deepEqual } from "node:assert/strict";
 * const update = resultToWire({ card: "terminal", output: "ok\n", exitCode: 0 }, {
 *   toolCallId: "c1",
 *   cwd: "/w",
 *   terminalOutput: true,
 *   isError: false,
 * });
 * deepEqual(update, {
 *   sessionUpdate: "tool_call_update",
 *   toolCallId: "c1",
 *   status: "completed",
 *   _meta: {
 *     terminal_output: { terminal_id: "c1", data: "ok\n" },
 *     terminal_exit: { terminal_id: "c1", exit_code: 0 },
 *   },
 *   rawOutput: { output: "ok\n", exit_code: 0 },
 * });
 * ```
 */
export function resultToWire(
  view: ToolResultView,
  options: ResultWireOptions,
): ToolCallUpdateWire {
  const { toolCallId, cwd, terminalOutput, isError, streamed = "", unsent = "" } = options;
  const status = isError ? "failed" : "completed";
  switch (view.card) {
    case "terminal": {
      const output = view.output ?? streamed + unsent;
      const rawOutput = {
        output,
        ...(view.exitCode !== undefined ? { exit_code: view.exitCode } : {}),
        ...(view.signal !== undefined ? { signal: view.signal } : {}),
      };
      const title = view.title !== undefined ? { title: cardTitle(view.title) } : {};
      if (!terminalOutput) {
        return {
          sessionUpdate: "tool_call_update",
          toolCallId,
          status,
          content: [{ type: "content", content: { type: "text", text: fenceConsole(output) } }],
          ...title,
          rawOutput,
        };
      }
      const full = output;
      const data = full.startsWith(streamed) ? full.slice(streamed.length) : unsent;
      const exit = view.signal !== undefined
        ? { terminal_exit: { terminal_id: toolCallId, signal: view.signal } }
        : view.exitCode !== undefined
        ? { terminal_exit: { terminal_id: toolCallId, exit_code: view.exitCode } }
        : {};
      return {
        sessionUpdate: "tool_call_update",
        toolCallId,
        status,
        ...title,
        _meta: { terminal_output: { terminal_id: toolCallId, data }, ...exit },
        rawOutput,
      };
    }
    case "diff": {
      const first = view.diffs[0]?.path;
      const content = diffItems(view.diffs, cwd);
      return {
        sessionUpdate: "tool_call_update",
        toolCallId,
        status,
        ...(content.length > 0 ? { content } : {}),
        ...(view.title !== undefined
          ? {
            title: cardTitle(
              first === undefined ? view.title : relativizeTitle(view.title, first, cwd),
            ),
          }
          : {}),
      };
    }
    case "generic":
      return {
        sessionUpdate: "tool_call_update",
        toolCallId,
        status,
        content: textItems(view.content ?? []),
        ...(view.title !== undefined ? { title: cardTitle(view.title) } : {}),
      };
  }
}

/**
 * Ends a terminal card whose result is not a terminal view (a failure, such as a cancelled call):
 * the output already shown stays (with what was not yet sent), the result's text is added below
 * it, and on the `_meta` path the terminal is ended with `terminal_exit`.
 *
 * @param content The result's content blocks (for example `Error: tool call aborted`).
 * @param call The `tool_call` that created the card (its content is kept on the `_meta` path).
 * @param options The call id, session cwd, terminal capability, error flag and streamed output.
 * @returns The `tool_call_update`.
 *
 * @example Usage
 * ```ts
 * import { callToWire, terminalEndToWire } from "./wire.ts";
 * import { equal } from "node:assert/strict";
 * const options = { toolCallId: "c1", cwd: "/w", terminalOutput: true };
 * const call = callToWire({ card: "terminal", title: "sleep 9" }, options);
 * const update = terminalEndToWire([{ type: "text", text: "Error: tool call aborted" }], call, {
 *   ...options,
 *   isError: true,
 *   streamed: "partial\n",
 * });
 * equal(update.status, "failed");
 * equal(JSON.stringify(update._meta), '{"terminal_exit":{"terminal_id":"c1","exit_code":null,"signal":null}}');
 * ```
 */
export function terminalEndToWire(
  content: readonly ContentBlock[],
  call: ToolCallWire,
  options: ResultWireOptions,
): ToolCallUpdateWire {
  const { toolCallId, terminalOutput, isError, streamed = "", unsent = "" } = options;
  const output = streamed + unsent;
  const status = isError ? "failed" : "completed";
  if (!terminalOutput) {
    return {
      sessionUpdate: "tool_call_update",
      toolCallId,
      status,
      content: [
        ...(output === "" ? [] : [{
          type: "content" as const,
          content: { type: "text" as const, text: fenceConsole(output) },
        }]),
        ...textItems(content),
      ],
      rawOutput: { output },
    };
  }
  return {
    sessionUpdate: "tool_call_update",
    toolCallId,
    status,
    content: [...(call.content ?? []), ...textItems(content)],
    _meta: {
      ...(unsent === "" ? {} : { terminal_output: { terminal_id: toolCallId, data: unsent } }),
      terminal_exit: { terminal_id: toolCallId, exit_code: null, signal: null },
    },
    rawOutput: { output },
  };
}
