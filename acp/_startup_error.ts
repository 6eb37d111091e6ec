/**
 * Serves a start-up error (a bad `dsh.jsonc`, a bad flag, a missing script) over ACP, so the
 * editor shows the message instead of "the agent exited": `initialize` is answered normally and
 * every other request fails with the message. Uses no SDK (it must work when setup failed).
 *
 * @module
 */
import { readLines } from "../core/lines.ts";
import { MAX_FRAME_BYTES } from "./_frame_limit.ts";
import { errorMessage } from "../core/error_message.ts";
import { initializeResponse } from "./initialize.ts";

/** JSON-RPC "internal error": the agent cannot serve the request. */
const STARTUP_ERROR_CODE = -32603;

const encoder = new TextEncoder();

/**
 * Writes one frame (a line without its newline) to stdout, all of it.
 *
 * @param line The JSON text of the frame.
 */
export async function writeFrame(line: string): Promise<void> {
  const bytes = encoder.encode(line + "\n");
  let offset = 0;
  while (offset < bytes.length) offset += await Deno.stdout.write(bytes.subarray(offset));
}

/**
 * Logs the start-up error to stderr (its message, no stack), then answers requests from `input`
 * on stdout until it ends: `initialize` succeeds, every other request fails with the message;
 * notifications are ignored.
 *
 * @param error The start-up error.
 * @param input The rest of stdin (NDJSON).
 */
export async function serveStartupError(
  error: unknown,
  input: ReadableStream<Uint8Array>,
): Promise<void> {
  const message = errorMessage(error);
  Deno.stderr.writeSync(encoder.encode(`[dsh] ERROR acp: ${message}\n`));
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
    await writeFrame(JSON.stringify(reply));
  };
  // Oversized lines are dropped unbuffered: no request that large is worth an answer here.
  for await (const line of readLines(input, { maxLineBytes: MAX_FRAME_BYTES, oversized: "skip" })) {
    if (line.trim() !== "") await answer(line.trim());
  }
}
