/**
 * Private: answering `initialize` before the SDK and the tools load (start-up latency is what
 * editors feel). The first stdin line is read; an `initialize` request is answered here and the
 * rest of stdin goes to the server, any other line is put back in front of it.
 *
 * @module
 */
import { type InitializeRequestWire, initializeResponse } from "./initialize.ts";
import { readFirstLine, withHead } from "./_stdin_prefix.ts";
import { writeFrame } from "./_startup_error.ts";

/**
 * The line a launcher that answered `initialize` itself writes in its place:
 * `{"dsh/initialized":<the request's params>}`.
 */
export const INITIALIZED_FRAME = "dsh/initialized";

/** Stdin as the server reads it, and the `initialize` request answered early (if any). */
export class EarlyInitialize {
  /** What the server reads: stdin, after the first line if it was taken. */
  input: ReadableStream<Uint8Array> = Deno.stdin.readable;
  /** The `initialize` request already answered. */
  initialized: InitializeRequestWire | undefined;

  /** Reads the first line and answers it when it is `initialize`. */
  async take(): Promise<void> {
    const first = await readFirstLine(this.input);
    this.input = first.rest;
    const message = parseMessage(first.line);
    const answered = message?.[INITIALIZED_FRAME];
    if (isRecord(answered) && typeof answered.protocolVersion === "number") {
      // The launcher answered it already and passes the request on (acp/dsh_agent.ts).
      this.initialized = answered as InitializeRequestWire;
    } else if (
      message?.method === "initialize" && message.id !== undefined && isRecord(message.params)
    ) {
      this.initialized = message.params as InitializeRequestWire;
      const response = { jsonrpc: "2.0", id: message.id, result: initializeResponse() };
      await writeFrame(JSON.stringify(response));
    } else if (first.line !== undefined) {
      this.input = withHead(`${first.line}\n`, first.rest);
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseMessage(line: string | undefined): Record<string, unknown> | undefined {
  if (line === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
