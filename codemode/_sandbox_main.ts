/**
 * The sandbox bootstrap of every Code Mode subprocess, as a few self-contained functions.
 *
 * The host never runs this module in the sandbox: it sends the source of every function in
 * {@linkcode SANDBOX_FUNCTIONS} (each `.toString()`, wrapped in one function that calls
 * {@linkcode sandboxMain}) as the first stdin line to a tiny `data:` main module
 * ({@linkcode SANDBOX_LOADER}), which evaluates it with a neutral `sourceURL`. So
 * `Deno.mainModule`, `import.meta.url` and stack traces name no host file. The functions may
 * reference each other and globals, nothing else: no constants, and the imports of
 * `_sandbox_lossless.ts` and `_sandbox_program.ts` only serve the host's type check (their
 * functions are shipped by name like the ones here).
 *
 * It runs with no permissions. The host then writes one `run` frame; this script hardens the
 * realm (no `caches`/`localStorage`/`sessionStorage`, captured console, rejection handlers),
 * installs `tools` (a Proxy) and `ToolCallError`, imports the program as a base64
 * `data:` URL (JavaScript first, TypeScript when that fails to parse) and reports back over JSON lines on stdout:
 * `call {id, name, args}`, `log {text}` and finally `done {ok, value?, error?}`.
 *
 * The program shares this realm, so every frame is untrusted on the host side; this file only
 * makes the honest path work. Private: not exported from `mod.ts`.
 *
 * @module
 */

import {
  losslessArrayProblem,
  losslessLeafProblem,
  losslessObjectProblem,
  losslessProblem,
} from "./_sandbox_lossless.ts";
import {
  describeError,
  doneFrame,
  importProgram,
  programHeader,
  syntaxErrorMessage,
  toBase64,
} from "./_sandbox_program.ts";

/**
 * The sandbox's main module: reads the first stdin line (the JSON-encoded bootstrap source),
 * evaluates it and hands over the rest of the input.
 */
export const SANDBOX_LOADER: string = "data:application/javascript," + encodeURIComponent(
  "const s=Deno.stdin,d=new TextDecoder(),c=new Uint8Array(65536);let b='';" +
    "for(;;){const n=await s.read(c);if(n===null)Deno.exit(0);" +
    "b+=d.decode(c.subarray(0,n),{stream:true});const i=b.indexOf('\\n');" +
    "if(i>=0){await (0,eval)(JSON.parse(b.slice(0,i)))(b.slice(i+1),d,c);break}}",
);

/** The script name bootstrap frames show in stack traces. */
export const SANDBOX_SOURCE_URL = "dsh-sandbox.js";

/**
 * The bootstrap line the loader evaluates: an expression that yields a function of the loader's
 * `(rest, decoder, chunk)` which declares {@linkcode SANDBOX_FUNCTIONS} and runs
 * {@linkcode sandboxMain}.
 *
 * @returns The JavaScript source.
 */
export function sandboxBootstrapSource(): string {
  const declarations = SANDBOX_FUNCTIONS.map((fn) => fn.toString()).join("\n");
  return `(async (rest, decoder, chunk) => {\n${declarations}\n` +
    `return await sandboxMain(rest, decoder, chunk);\n})\n//# sourceURL=${SANDBOX_SOURCE_URL}\n`;
}

/** The sandbox's stdout: JSON-line frames, batched per tick, and the captured console. */
interface SandboxOutput {
  send(frame: unknown): void;
  flush(): void;
  format(args: unknown[]): string;
  log(...args: unknown[]): void;
}

/**
 * The frame writer, holding its own references (the program may replace globals later).
 *
 * @param encoder The sandbox's encoder.
 * @returns The writer.
 */
function sandboxOutput(encoder: TextEncoder): SandboxOutput {
  const stdout = Deno.stdout;
  const jsonStringify = JSON.stringify;
  const inspect = Deno.inspect;
  let queue: string[] = [];
  let flushScheduled = false;
  const output: SandboxOutput = {
    flush(): void {
      flushScheduled = false;
      const data = encoder.encode(queue.join(""));
      queue = [];
      let offset = 0;
      while (offset < data.length) offset += stdout.writeSync(data.subarray(offset));
    },
    /** Frames issued in the same tick go out in one write. */
    send(frame: unknown): void {
      queue.push(jsonStringify(frame) + "\n");
      if (!flushScheduled) {
        flushScheduled = true;
        queueMicrotask(output.flush);
      }
    },
    format(args: unknown[]): string {
      return args.map((arg) =>
        typeof arg === "string"
          ? arg
          : inspect(arg, { colors: false, depth: 6, strAbbreviateSize: 10000 })
      ).join(" ");
    },
    /** Logs go out at once, so output before a hang or a crash still reaches the host. */
    log(...args: unknown[]): void {
      output.send({ t: "log", text: output.format(args) });
      output.flush();
    },
  };
  return output;
}

/** A failed `tools.<name>()` call; the host's error text is the message. */
class ToolCallError extends Error {
  /** The tool that failed. */
  readonly toolName: string;
  constructor(toolName: string, message: string) {
    super(message);
    this.name = "ToolCallError";
    this.toolName = toolName;
  }
}

/** A `result` frame from the host. */
interface ResultFrame {
  id?: unknown;
  ok?: unknown;
  value?: unknown;
  message?: unknown;
  name?: unknown;
}

/**
 * The `tools` proxy and the answers to its calls.
 *
 * @param send Sends a frame to the host.
 * @returns The proxy and the handler of `result` frames.
 */
function sandboxTools(
  send: (frame: unknown) => void,
): { tools: object; onResult(frame: ResultFrame): void } {
  let nextId = 0;
  const pending = new Map<
    number,
    { resolve: (v: string) => void; reject: (e: unknown) => void; site: Error }
  >();
  function callTool(name: string, args: unknown): Promise<string> {
    const value = args === undefined ? {} : args;
    const problem = losslessProblem(value);
    if (problem !== undefined) {
      return Promise.reject(
        new ToolCallError(
          name,
          `tool call arguments must be losslessly JSON-serializable: ${problem}`,
        ),
      );
    }
    const id = ++nextId;
    const { promise, resolve, reject } = Promise.withResolvers<string>();
    // The call site's stack, so an uncaught failure reports the program's line.
    pending.set(id, { resolve, reject, site: new Error() });
    send({ t: "call", id, name, args: value });
    return promise;
  }
  const tools = new Proxy(Object.create(null), {
    get(_target, name) {
      // Not a thenable, not coercible: only string names are tools.
      if (typeof name !== "string" || name === "then") return undefined;
      return (args?: unknown) => callTool(name, args);
    },
  });
  function onResult(frame: ResultFrame): void {
    const entry = typeof frame.id === "number" ? pending.get(frame.id) : undefined;
    if (entry === undefined) return;
    pending.delete(frame.id as number);
    if (frame.ok === true) return entry.resolve(String(frame.value));
    const error = new ToolCallError(String(frame.name), String(frame.message));
    const frames = (entry.site.stack ?? "").split("\n").slice(1).join("\n");
    error.stack = `${error.name}: ${error.message}\n${frames}`;
    entry.reject(error);
  }
  return { tools, onResult };
}

/**
 * Runs the program and reports its outcome in one `done` frame, then exits.
 *
 * @param program The program's source.
 * @param output The frame writer.
 * @param encoder The sandbox's encoder.
 * @param stringify `JSON.stringify`, captured before the program could replace it.
 */
async function runProgram(
  program: string,
  output: SandboxOutput,
  encoder: TextEncoder,
  stringify: typeof JSON.stringify,
): Promise<void> {
  const finish = (outcome: { ok: true; value?: string } | { ok: false; error: object }) => {
    output.send({ t: "done", ...outcome });
    output.flush();
    Deno.exit(0);
  };
  let fn: () => Promise<unknown>;
  try {
    fn = await importProgram(toBase64(encoder, programHeader() + program + "\n}"));
  } catch (error) {
    const described = describeError(error, output.format);
    return finish({
      ok: false,
      error: { name: described.name, message: syntaxErrorMessage(described.message) },
    });
  }
  let value: unknown;
  try {
    value = await fn();
  } catch (error) {
    return finish({ ok: false, error: describeError(error, output.format) });
  }
  finish(doneFrame(value, output.format, stringify));
}

/**
 * Hardens the realm before the program exists: no storage, a captured console, `tools` and
 * `ToolCallError` as globals, and uncaught failures logged instead of killing the process.
 */
function hardenRealm(output: SandboxOutput, tools: object): void {
  for (const name of ["caches", "localStorage", "sessionStorage"]) {
    try {
      delete (globalThis as Record<string, unknown>)[name];
    } catch { /* non-configurable in some builds: the program can still not reach it by name */ }
  }
  const log = output.log;
  const captured = {
    log,
    info: log,
    warn: log,
    error: log,
    debug: log,
    trace: log,
    dir: log,
    table: log,
  };
  const define = (name: string, value: unknown) =>
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
  define("console", captured);
  define("tools", tools);
  define("ToolCallError", ToolCallError);
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    log(`Unhandled promise rejection: ${output.format([event.reason])}`);
  });
  globalThis.addEventListener("error", (event) => {
    event.preventDefault();
    log(`Uncaught error: ${output.format([event.error ?? event.message])}`);
  });
}

/**
 * Reads line-delimited frames from stdin until it closes (plain reads: cheaper to start than
 * `Deno.stdin.readable`). `rest` may already hold frames.
 */
async function readStdinLines(
  rest: string,
  decoder: TextDecoder,
  chunk: Uint8Array,
  onLine: (line: string) => void,
): Promise<void> {
  const stdin = Deno.stdin;
  let buffered = rest;
  while (true) {
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      onLine(line);
    }
    const count = await stdin.read(chunk);
    if (count === null) break;
    buffered += decoder.decode(chunk.subarray(0, count), { stream: true });
  }
}

/**
 * The bootstrap. Never called on the host.
 *
 * @param rest Input read past the bootstrap line.
 * @param decoder The loader's streaming decoder (it may hold a partial character).
 * @param chunk The loader's read buffer.
 */
export async function sandboxMain(
  rest: string,
  decoder: TextDecoder,
  chunk: Uint8Array,
): Promise<void> {
  // Own references first: the program may replace globals later.
  const encoder = new TextEncoder();
  const stringify = JSON.stringify;
  const output = sandboxOutput(encoder);
  const { tools, onResult } = sandboxTools(output.send);
  hardenRealm(output, tools);
  let started = false;
  await readStdinLines(rest, decoder, chunk, (line) => {
    let frame: { t?: unknown; program?: unknown };
    try {
      frame = JSON.parse(line);
    } catch {
      return;
    }
    if (frame.t === "run" && !started && typeof frame.program === "string") {
      started = true;
      runProgram(frame.program, output, encoder, stringify);
    } else if (frame.t === "result") onResult(frame as ResultFrame);
  });
}

/** Every function the bootstrap ships, in declaration order (see the module doc). */
export const SANDBOX_FUNCTIONS: readonly { readonly name: string }[] = [
  programHeader,
  sandboxOutput,
  ToolCallError,
  losslessArrayProblem,
  losslessObjectProblem,
  losslessLeafProblem,
  losslessProblem,
  sandboxTools,
  describeError,
  toBase64,
  importProgram,
  syntaxErrorMessage,
  doneFrame,
  runProgram,
  hardenRealm,
  readStdinLines,
  sandboxMain,
];
