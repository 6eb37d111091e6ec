/**
 * Reads the first NDJSON line of a byte stream and gives back a stream that replays the rest,
 * so the binary can answer `initialize` before the ACP SDK has loaded.
 *
 * @module
 */
import { concatBytes } from "../core/bytes.ts";
import { MAX_FRAME_BYTES } from "./_frame_limit.ts";

/** The first line and a stream of everything after it. */
export interface FirstLine {
  /** The first line without its newline, or `undefined` at end of input. */
  readonly line: string | undefined;
  /** The bytes after the first line, then the rest of the input. */
  readonly rest: ReadableStream<Uint8Array>;
}

/**
 * Splits off the first line of `input`. A first line longer than `maxBytes` is not read into
 * memory: `line` is then `undefined` and `rest` replays everything from the start.
 *
 * @param input The byte stream (stdin).
 * @param maxBytes The longest first line kept. @default {33554432}
 * @returns The line and the remaining stream.
 */
export async function readFirstLine(
  input: ReadableStream<Uint8Array>,
  maxBytes = MAX_FRAME_BYTES,
): Promise<FirstLine> {
  const reader = input.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let line: string | undefined;
  let leftover: Uint8Array = new Uint8Array();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      if (chunks.length > 0) line = new TextDecoder().decode(concatBytes(chunks));
      break;
    }
    const index = value.indexOf(10);
    if (index < 0) {
      chunks.push(value);
      size += value.length;
      if (size > maxBytes) {
        // Too long to be an initialize request: the framer behind answers it.
        leftover = concatBytes(chunks);
        break;
      }
      continue;
    }
    chunks.push(value.subarray(0, index));
    line = new TextDecoder().decode(concatBytes(chunks));
    leftover = value.subarray(index + 1);
    break;
  }
  return { line, rest: withHead(leftover, reader) };
}

/**
 * `head`, then the rest of `reader`: a stream whose first bytes were read off, or replaced.
 *
 * @param head The bytes to send first (none when empty).
 * @param rest What follows (a stream, or the reader already taken from one).
 * @returns The stream.
 */
export function withHead(
  head: Uint8Array | string,
  rest: ReadableStream<Uint8Array> | ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  const bytes = typeof head === "string" ? new TextEncoder().encode(head) : head;
  const reader = rest instanceof ReadableStream ? rest.getReader() : rest;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.length > 0) controller.enqueue(bytes);
    },
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** The name of the launcher's secrets line: `{"dsh/secrets":{"DEEPSEEK_API_KEY":"…"}}`. */
export const SECRETS_FRAME = "dsh/secrets";

/** Secrets the agent holds in memory only. */
export interface AgentSecrets {
  /** The DeepSeek API key, if any. */
  readonly deepSeekApiKey: string | undefined;
  /**
   * Every string of the secrets line by name (`DEEPSEEK_API_KEY`, and for a remote executor
   * `DENO_DEPLOY_TOKEN` and the variables of its `secrets`); empty without a line.
   */
  readonly values: Readonly<Record<string, string>>;
  /** Stdin after the secrets line (unchanged when there was none). */
  readonly input: ReadableStream<Uint8Array>;
}

/** The line the launcher writes first on the agent's stdin. */
export function secretsLine(secrets: Readonly<Record<string, string>>): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ [SECRETS_FRAME]: secrets }) + "\n");
}

function parseSecrets(line: string | undefined): Record<string, unknown> | undefined {
  if (line === undefined || !line.startsWith(`{"${SECRETS_FRAME}"`)) return undefined;
  try {
    const value = JSON.parse(line)?.[SECRETS_FRAME];
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the agent's secrets once: the launcher's first stdin line (`dsh/secrets`) when present
 * (the launcher keeps the key out of the agent's environment, so `/proc/<agent>/environ` never
 * holds it), else `DEEPSEEK_API_KEY` from the environment (the agent started without the
 * launcher). Either way `DEEPSEEK_API_KEY` is then deleted from `Deno.env`, so nothing in this
 * process reads it there again (that does not change `/proc/self/environ`; only the launcher can).
 *
 * @param input Stdin.
 * @param readPrefix False when stdin is a terminal (nothing to wait for).
 * @returns The key and the rest of stdin.
 */
export async function takeSecrets(
  input: ReadableStream<Uint8Array>,
  readPrefix: boolean,
): Promise<AgentSecrets> {
  let fromEnv: string | undefined;
  try {
    fromEnv = Deno.env.get("DEEPSEEK_API_KEY");
    Deno.env.delete("DEEPSEEK_API_KEY");
  } catch { /* no env permission: nothing to read or delete */ }
  if (!readPrefix) return { deepSeekApiKey: fromEnv, values: {}, input };
  const first = await readFirstLine(input);
  const secrets = parseSecrets(first.line);
  if (secrets !== undefined) {
    const key = secrets.DEEPSEEK_API_KEY;
    const values = Object.fromEntries(
      Object.entries(secrets).filter((e): e is [string, string] => typeof e[1] === "string"),
    );
    return {
      deepSeekApiKey: typeof key === "string" ? key : fromEnv,
      values,
      input: first.rest,
    };
  }
  const rest = first.line === undefined ? first.rest : withHead(`${first.line}\n`, first.rest);
  return { deepSeekApiKey: fromEnv, values: {}, input: rest };
}
