/**
 * Private: the launcher's relay between the editor's stdio and the agent's. Bytes pass through
 * unchanged. Until the agent writes its first byte, what the editor sent is also kept: if the
 * agent exits before answering anything (a crash at start-up, a Deno error), the launcher answers
 * the kept and later requests itself with a JSON-RPC error that carries the agent's last stderr
 * line, so the editor shows the reason instead of "the agent exited".
 *
 * @module
 */
import { serveStartupError } from "./_startup_error.ts";

/** How much of the agent's stderr is kept for the start-up error. */
const STDERR_TAIL_BYTES = 4096;

async function writeAll(target: { write(p: Uint8Array): Promise<number> }, bytes: Uint8Array) {
  let offset = 0;
  while (offset < bytes.length) offset += await target.write(bytes.subarray(offset));
}

/** The last non-empty line of `text`, without ANSI colours. */
function lastLine(text: string): string {
  // deno-lint-ignore no-control-regex
  const lines = text.replace(/\x1b\[[0-9;]*m/g, "").split("\n").map((l) => l.trim());
  return lines.filter((l) => l !== "").at(-1) ?? "";
}

/**
 * Relays this process's stdio to and from `child` (spawned with all three piped) until it exits.
 *
 * @param child The agent process.
 * @param stopping True once the launcher asked the agent to stop (then an early exit is no
 *   start-up failure).
 * @param prefix Bytes written to the agent before the editor's (the secrets line); never kept
 *   or replayed.
 * @param stdin What the editor sends. @default {Deno.stdin.readable}
 * @returns The agent's exit code, or 1 after serving a start-up failure.
 */
export async function relayAgent(
  child: Deno.ChildProcess,
  stopping: () => boolean,
  prefix?: Uint8Array,
  stdin: ReadableStream<Uint8Array> = Deno.stdin.readable,
): Promise<number> {
  let answered = false;
  let kept: Uint8Array[] = [];
  let tail = "";
  const decoder = new TextDecoder();
  const toAgent = child.stdin.getWriter();
  if (prefix !== undefined) void toAgent.write(prefix).catch(() => {});
  // After an early failure the editor's input goes here instead (replayed from `kept`).
  const route: { fallback?: WritableStreamDefaultWriter<Uint8Array> } = {};
  const input = stdin.getReader();
  const pumpIn = (async () => {
    for (;;) {
      const { value, done } = await input.read();
      if (done) {
        if (route.fallback !== undefined) await route.fallback.close().catch(() => {});
        else await toAgent.close().catch(() => {});
        return;
      }
      if (route.fallback !== undefined) {
        await route.fallback.write(value).catch(() => {});
        continue;
      }
      if (!answered) kept.push(value);
      await toAgent.write(value).catch(() => {});
    }
  })();
  const pumpOut = (async () => {
    for await (const chunk of child.stdout) {
      answered = true;
      kept = [];
      await writeAll(Deno.stdout, chunk);
    }
  })().catch(() => {});
  const pumpErr = (async () => {
    for await (const chunk of child.stderr) {
      await writeAll(Deno.stderr, chunk).catch(() => {});
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-STDERR_TAIL_BYTES);
    }
  })().catch(() => {});
  const status = await child.status;
  await Promise.all([pumpOut, pumpErr]);
  const early = !answered && !stopping() && (status.code !== 0 || status.signal !== null);
  if (!early) {
    // The editor's input has nowhere to go: stop reading it.
    await input.cancel().catch(() => {});
    await pumpIn.catch(() => {});
    return status.code;
  }
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const fallback = route.fallback = writable.getWriter();
  for (const chunk of kept) void fallback.write(chunk).catch(() => {});
  const reason = lastLine(tail);
  const ended = status.signal !== null
    ? `was killed by ${status.signal}`
    : `exited with code ${status.code}`;
  await serveStartupError(
    new Error(
      `Cannot start the agent: it ${ended} before answering${
        reason === "" ? "" : ` (${reason})`
      }; its whole error output is in the agent's stderr log`,
    ),
    readable,
  );
  await pumpIn.catch(() => {});
  return 1;
}
