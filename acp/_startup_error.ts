/**
 * Serves a start-up error (a bad `dsh.jsonc`, a bad flag, a missing script) over ACP, so the
 * editor shows the message instead of "the agent exited": `initialize` is answered normally and
 * every other request fails with the message. Uses no SDK (it must work when setup failed).
 *
 * @module
 */
import { initializeResponse } from "./initialize.ts";

/** JSON-RPC "internal error": the agent cannot serve the request. */
export const STARTUP_ERROR_CODE = -32603;

/** The message of a start-up failure (no stack, no `Error:` prefix). */
export function startupErrorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Answers requests from `input` until it ends: `initialize` succeeds (unless already answered),
 * every other request fails with `message`; notifications are ignored.
 *
 * @param message The start-up error.
 * @param input The rest of stdin (NDJSON).
 * @param write Writes one frame (a line without its newline) to stdout.
 */
export async function serveStartupError(
  message: string,
  input: ReadableStream<Uint8Array>,
  write: (line: string) => Promise<void>,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  const answer = async (line: string) => {
    let frame: unknown;
    try {
      frame = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof frame !== "object" || frame === null || Array.isArray(frame)) return;
    const { id, method } = frame as { id?: unknown; method?: unknown };
    if (typeof method !== "string" || (typeof id !== "number" && typeof id !== "string")) return;
    const reply = method === "initialize"
      ? { jsonrpc: "2.0", id, result: initializeResponse() }
      : { jsonrpc: "2.0", id, error: { code: STARTUP_ERROR_CODE, message } };
    await write(JSON.stringify(reply));
  };
  for await (const chunk of input) {
    buffer += decoder.decode(chunk, { stream: true });
    let index: number;
    while ((index = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, index).trim();
      buffer = buffer.slice(index + 1);
      if (line !== "") await answer(line);
    }
  }
  if (buffer.trim() !== "") await answer(buffer.trim());
}
