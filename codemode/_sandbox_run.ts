/**
 * Private: one Code Mode run against a started sandbox process — the host side of the JSON-lines
 * bridge (frames in and out, tool dispatch with the in-flight cap, the output, call and time
 * limits) and how the run settles.
 *
 * @module
 */
import type { JsonValue } from "../core/json.ts";
import { errorMessage } from "../core/error_message.ts";
import { LineTooLongError, readLines } from "../core/lines.ts";
import type {
  CodeRunFailureKind,
  CodeRunLimits,
  CodeRunOptions,
  CodeRunResult,
} from "./runtime.ts";
import type { ExecChild, ExecStatus } from "../tools/executor.ts";

const STDERR_KEEP = 16 * 1024;
const MAX_ERROR_CHARS = 8000;

type Failure = { kind: CodeRunFailureKind; message: string };
type Outcome = { value?: JsonValue; error?: Failure };

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters]` : text;
}

async function readStderr(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let tail = "";
  for await (const chunk of stream) {
    tail = (tail + decoder.decode(chunk, { stream: true })).slice(-STDERR_KEEP);
  }
  return tail;
}

/**
 * Hands each whole line of the sandbox's stdout to `onLine` (a line cut by the sandbox's exit is
 * no frame); a line over the cap calls `onOversize` and ends the reading.
 */
async function readFrames(
  stream: ReadableStream<Uint8Array>,
  maxLineBytes: number,
  onLine: (line: string) => void,
  onOversize: () => void,
): Promise<void> {
  try {
    for await (const line of readLines(stream, { maxLineBytes, unterminated: "drop" })) {
      onLine(line);
    }
  } catch (error) {
    if (error instanceof LineTooLongError) onOversize();
  }
}

/** Parses one line from the sandbox into a frame object, or `undefined`. */
function parseFrame(line: string): Record<string, unknown> | undefined {
  try {
    const frame = JSON.parse(line);
    return frame !== null && typeof frame === "object" && !Array.isArray(frame) ? frame : undefined;
  } catch {
    return undefined;
  }
}

/** The failure of an `ok: false` `done` frame. */
function programFailure(frame: Record<string, unknown>): Failure {
  const error = (frame.error ?? {}) as Record<string, unknown>;
  const name = typeof error.name === "string" ? error.name : "Error";
  let message = typeof error.message === "string" ? error.message : "";
  if (name === "InvalidOutput") return { kind: "invalid-output", message };
  if (!(name === "TypeError" && /^SyntaxError: /.test(message))) message = `${name}: ${message}`;
  if (typeof error.line === "number") message += ` (line ${error.line})`;
  return { kind: "exception", message: clip(message, MAX_ERROR_CHARS) };
}

/** Why the process exited before `done`, from its status and the tail of its stderr. */
function exitFailure(
  status: ExecStatus,
  stderr: string,
  limits: CodeRunLimits,
  memoryMb: number,
): Failure {
  if (/Fatal process out of memory|Failed to reserve/i.test(stderr)) {
    return {
      kind: "out-of-memory",
      message: `the program exceeded the sandbox's ${memoryMb} MB memory limit`,
    };
  }
  if (/out of memory/i.test(stderr)) {
    return {
      kind: "out-of-memory",
      message: `the program exceeded the ${limits.heapMb} MB heap limit`,
    };
  }
  const how = status.signal ? `signal ${status.signal}` : `code ${status.code}`;
  return {
    kind: "exit",
    message: `the sandbox process exited with ${how} before the program finished`,
  };
}

/** The host side of one run: create it with a started child, then `await run.result()`. */
export class SandboxRun {
  readonly #run: CodeRunOptions;
  readonly #limits: CodeRunLimits;
  readonly #child: ExecChild;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #abort = new AbortController();
  readonly #encoder = new TextEncoder();
  readonly #logs: string[] = [];
  readonly #waiting: (() => void)[] = [];
  readonly #started = new Set<Promise<void>>();
  readonly #finished = Promise.withResolvers<void>();
  #outgoing: string[] = [];
  #outputBytes = 0;
  #calls = 0;
  #inFlight = 0;
  #settled: Outcome | undefined;

  /**
   * Starts the bridge: writes the bootstrap line and the `run` frame.
   *
   * @param run The run's program, tool callback, limits and signal.
   * @param limits The resolved limits.
   * @param child The sandbox process (stdin, stdout and stderr piped), from an executor's `spawn`.
   * @param bootstrapLine The first stdin line (the bootstrap source, with its newline).
   */
  constructor(
    run: CodeRunOptions,
    limits: CodeRunLimits,
    child: ExecChild,
    bootstrapLine: string,
  ) {
    if (child.stdin === null) throw new TypeError("The Code Mode sandbox needs a piped stdin");
    this.#run = run;
    this.#limits = limits;
    this.#child = child;
    // Host → sandbox writes, batched per tick; a dead child just drops them.
    this.#writer = child.stdin.getWriter();
    // The loader evaluates the first line: the bootstrap source.
    this.#writer.write(this.#encoder.encode(bootstrapLine)).catch(() => {});
  }

  /**
   * Runs the program to its end and drains the calls in flight.
   *
   * @param memoryMb The process memory cap, for the out-of-memory message.
   * @returns The run's result.
   */
  async result(memoryMb: number): Promise<CodeRunResult> {
    const limits = this.#limits;
    const timer = setTimeout(
      () => this.#fail("timeout", `the program did not finish within ${limits.timeoutMs} ms`),
      limits.timeoutMs,
    );
    const onAbort = () => this.#fail("abort", "the run was cancelled");
    this.#run.signal?.addEventListener("abort", onAbort, { once: true });
    const stderrTail = readStderr(this.#child.stderr);
    const stdoutDone = readFrames(
      this.#child.stdout,
      limits.maxFrameBytes,
      (line) => this.#onFrame(line),
      () =>
        this.#fail(
          "output-limit",
          `the sandbox sent a bridge frame larger than ${limits.maxFrameBytes} bytes`,
        ),
    );
    this.#send({ t: "run", program: this.#run.program });
    const status = this.#child.status;
    // Exit before `done` (crash, OOM, Deno.exit in the program) settles the run too.
    status.then(async (s) => {
      await stdoutDone;
      if (this.#settled) return;
      this.#settle({ error: exitFailure(s, await stderrTail, limits, memoryMb) });
    });
    await this.#finished.promise;
    clearTimeout(timer);
    this.#run.signal?.removeEventListener("abort", onAbort);
    await this.#drain();
    await Promise.all([status, stdoutDone, stderrTail]);
    await this.#writer.close().catch(() => {});
    return this.#collect();
  }

  /** Settlement drains the calls in flight; queued ones never start. */
  async #drain(): Promise<void> {
    this.#waiting.length = 0;
    while (this.#started.size > 0) await Promise.allSettled([...this.#started]);
  }

  #collect(): CodeRunResult {
    const result: { value?: JsonValue; logs: string[]; error?: Failure; calls: number } = {
      logs: this.#logs,
      calls: Math.min(this.#calls, this.#limits.maxCalls),
    };
    if (this.#settled?.error) result.error = this.#settled.error;
    else if (this.#settled?.value !== undefined) result.value = this.#settled.value;
    return result;
  }

  #settle(outcome: Outcome): void {
    if (this.#settled) return;
    this.#settled = outcome;
    this.#abort.abort(new DOMException("the code run settled", "AbortError"));
    this.#child.kill("SIGKILL").catch(() => {/* already exited */});
    this.#finished.resolve();
  }

  #fail(kind: CodeRunFailureKind, message: string): void {
    this.#settle({ error: { kind, message } });
  }

  #send(frame: unknown): void {
    if (this.#settled) return;
    if (this.#outgoing.length === 0) {
      queueMicrotask(() => {
        const data = this.#encoder.encode(this.#outgoing.join(""));
        this.#outgoing = [];
        this.#writer.write(data).catch(() => {});
      });
    }
    this.#outgoing.push(JSON.stringify(frame) + "\n");
  }

  #dispatch(id: number, name: string, args: JsonValue, index: number): void {
    this.#inFlight++;
    const task = (async () => {
      try {
        const value = await this.#run.callTool({ name, args, index, signal: this.#abort.signal });
        this.#send({ t: "result", id, ok: true, value: String(value) });
      } catch (error) {
        this.#send({ t: "result", id, ok: false, name, message: errorMessage(error) });
      } finally {
        this.#inFlight--;
        this.#waiting.shift()?.();
      }
    })();
    this.#started.add(task);
    task.finally(() => this.#started.delete(task));
  }

  #addOutput(text: string): boolean {
    this.#outputBytes += this.#encoder.encode(text).length;
    if (this.#outputBytes <= this.#limits.maxOutputBytes) return true;
    this.#fail(
      "output-limit",
      `the program produced more than ${this.#limits.maxOutputBytes} bytes of output`,
    );
    return false;
  }

  #onFrame(line: string): void {
    if (this.#settled) return;
    const frame = parseFrame(line);
    if (frame === undefined) {
      return this.#fail(
        "invalid-output",
        `the sandbox wrote a line that is not a bridge frame: ${clip(line, 200)}`,
      );
    }
    switch (frame.t) {
      case "log": {
        const text = String(frame.text);
        if (this.#addOutput(text + "\n")) this.#logs.push(text);
        return;
      }
      case "call":
        return this.#onCall(frame, line);
      case "done":
        return this.#onDone(frame);
      default:
        return this.#fail(
          "invalid-output",
          `the sandbox sent an unknown frame: ${clip(line, 200)}`,
        );
    }
  }

  #onCall(frame: Record<string, unknown>, line: string): void {
    const { id, name, args } = frame;
    if (typeof id !== "number" || typeof name !== "string" || args === undefined) {
      return this.#fail(
        "invalid-output",
        `the sandbox sent a malformed call frame: ${clip(line, 200)}`,
      );
    }
    this.#calls++;
    if (this.#calls > this.#limits.maxCalls) {
      return this.#fail(
        "call-limit",
        `the program made more than ${this.#limits.maxCalls} tool calls`,
      );
    }
    const index = this.#calls;
    const start = () => this.#dispatch(id, name, args as JsonValue, index);
    if (this.#inFlight < this.#limits.maxInFlight) start();
    else this.#waiting.push(() => this.#settled || start());
  }

  #onDone(frame: Record<string, unknown>): void {
    if (frame.ok !== true) return this.#settle({ error: programFailure(frame) });
    if (typeof frame.value !== "string") return this.#settle({});
    if (!this.#addOutput(frame.value)) return;
    try {
      this.#settle({ value: JSON.parse(frame.value) });
    } catch {
      this.#fail("invalid-output", "the returned value is not valid JSON");
    }
  }
}
