/**
 * The sandbox bootstrap of every Code Mode subprocess, as one self-contained function.
 *
 * The host never runs this module in the sandbox: it sends `sandboxMain.toString()` as the first
 * stdin line to a tiny `data:` main module ({@linkcode SANDBOX_LOADER}), which evaluates it with a
 * neutral `sourceURL`. So `Deno.mainModule`, `import.meta.url` and stack traces name no host
 * file. The function must not reference anything outside itself.
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
 * The bootstrap line the loader evaluates: an expression that yields {@linkcode sandboxMain}.
 *
 * @returns The JavaScript source.
 */
export function sandboxBootstrapSource(): string {
  return `(${sandboxMain.toString()})\n//# sourceURL=${SANDBOX_SOURCE_URL}\n`;
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
  const stdout = Deno.stdout;
  const jsonStringify = JSON.stringify;
  const inspect = Deno.inspect;

  /** The header joined to the program's first line, so reported lines match the model's source. */
  const HEADER = "export default async function __dshProgram() {";

  let queue: string[] = [];
  let flushScheduled = false;

  function flush(): void {
    flushScheduled = false;
    const data = encoder.encode(queue.join(""));
    queue = [];
    let offset = 0;
    while (offset < data.length) offset += stdout.writeSync(data.subarray(offset));
  }

  /** Frames issued in the same tick go out in one write. */
  function send(frame: unknown): void {
    queue.push(jsonStringify(frame) + "\n");
    if (!flushScheduled) {
      flushScheduled = true;
      queueMicrotask(flush);
    }
  }

  function format(args: unknown[]): string {
    return args.map((arg) =>
      typeof arg === "string"
        ? arg
        : inspect(arg, { colors: false, depth: 6, strAbbreviateSize: 10000 })
    ).join(" ");
  }

  /** Logs go out at once, so output before a hang or a crash still reaches the host. */
  function log(...args: unknown[]): void {
    send({ t: "log", text: format(args) });
    flush();
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

  /** Returns why `value` is not lossless JSON, or `undefined` when it is. Iterative, cycle-aware. */
  function losslessProblem(value: unknown): string | undefined {
    const stack: { value: unknown; path: string; exit?: object }[] = [{ value, path: "args" }];
    const ancestors = new Set<object>();
    while (stack.length > 0) {
      const item = stack.pop()!;
      if (item.exit) {
        ancestors.delete(item.exit);
        continue;
      }
      const v = item.value;
      const path = item.path;
      if (v === null || typeof v === "string" || typeof v === "boolean") continue;
      if (typeof v === "number") {
        if (!Number.isFinite(v)) return `${path} is ${v}, not a finite number`;
        if (Object.is(v, -0)) return `${path} is -0`;
        continue;
      }
      if (typeof v !== "object") {
        return `${path} is ${typeof v === "undefined" ? "undefined" : `a ${typeof v}`}`;
      }
      if (ancestors.has(v)) return `${path} is a circular reference`;
      const proto = Object.getPrototypeOf(v);
      if (Array.isArray(v)) {
        if (proto !== Array.prototype) return `${path} is an array subclass`;
        const keys = Object.keys(v);
        if (keys.length !== v.length || Object.getOwnPropertySymbols(v).length > 0) {
          return `${path} is a sparse array or has extra properties`;
        }
        ancestors.add(v);
        stack.push({ value: undefined, path, exit: v });
        for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: `${path}[${i}]` });
        continue;
      }
      if (proto !== Object.prototype && proto !== null) {
        return `${path} is a ${proto?.constructor?.name ?? "non-plain"} object, not a plain object`;
      }
      if (Object.getOwnPropertySymbols(v).length > 0) return `${path} has symbol keys`;
      ancestors.add(v);
      stack.push({ value: undefined, path, exit: v });
      for (const key of Object.getOwnPropertyNames(v)) {
        const descriptor = Object.getOwnPropertyDescriptor(v, key)!;
        if (!descriptor.enumerable) return `${path}.${key} is not enumerable`;
        stack.push({ value: (v as Record<string, unknown>)[key], path: `${path}.${key}` });
      }
    }
    return undefined;
  }

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

  function onResult(
    frame: { id?: unknown; ok?: unknown; value?: unknown; message?: unknown; name?: unknown },
  ) {
    const entry = typeof frame.id === "number" ? pending.get(frame.id) : undefined;
    if (entry === undefined) return;
    pending.delete(frame.id as number);
    if (frame.ok === true) entry.resolve(String(frame.value));
    else {
      const error = new ToolCallError(String(frame.name), String(frame.message));
      const frames = (entry.site.stack ?? "").split("\n").slice(1).join("\n");
      error.stack = `${error.name}: ${error.message}\n${frames}`;
      entry.reject(error);
    }
  }

  function describeError(error: unknown): { name: string; message: string; line?: number } {
    try {
      if (error instanceof Error) {
        const frame = /data:application\/(?:typescript|javascript);base64,[^:\s)]*:(\d+):\d+/.exec(
          error.stack ?? "",
        );
        const result: { name: string; message: string; line?: number } = {
          name: error.name,
          message: String(error.message),
        };
        if (frame) result.line = Number(frame[1]);
        return result;
      }
      return { name: "Error", message: `non-error value thrown: ${format([error])}` };
    } catch {
      return { name: "Error", message: "<unprintable thrown value>" };
    }
  }

  function finish(outcome: { ok: true; value?: string } | { ok: false; error: object }): void {
    send({ t: "done", ...outcome });
    flush();
    Deno.exit(0);
  }

  async function run(program: string): Promise<void> {
    const source = toBase64(HEADER + program + "\n}");
    let fn: () => Promise<unknown>;
    try {
      // Plain JavaScript parses much faster than a TypeScript transpile; TypeScript syntax fails
      // the JavaScript parse and takes the second path, which also reports real syntax errors.
      try {
        fn = (await import("data:application/javascript;base64," + source)).default;
      } catch (error) {
        if (!(error instanceof SyntaxError || /SyntaxError/.test(String(error)))) throw error;
        fn = (await import("data:application/typescript;base64," + source)).default;
      }
    } catch (error) {
      // Syntax errors: keep the code frame, hide the wrapper header and the data URL.
      const described = describeError(error);
      const where = /data:application\/(?:typescript|javascript);base64,[^:\s)]*:(\d+):(\d+)/.exec(
        described.message,
      );
      let message = described.message.split("\n")[0] ?? "";
      if (where) {
        const line = Number(where[1]);
        const column = Number(where[2]) - (line === 1 ? HEADER.length : 0);
        message += ` (line ${line}, column ${column})`;
      }
      return finish({ ok: false, error: { name: described.name, message } });
    }
    let value: unknown;
    try {
      value = await fn();
    } catch (error) {
      return finish({ ok: false, error: describeError(error) });
    }
    if (value === undefined) return finish({ ok: true });
    let text: string | undefined;
    try {
      text = jsonStringify(value);
    } catch (error) {
      return finish({
        ok: false,
        error: { name: "InvalidOutput", message: describeError(error).message },
      });
    }
    if (text === undefined) {
      return finish({
        ok: false,
        error: {
          name: "InvalidOutput",
          message: `the returned ${typeof value} is not JSON-serializable`,
        },
      });
    }
    finish({ ok: true, value: text });
  }

  function toBase64(text: string): string {
    const bytes = encoder.encode(text);
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary);
  }

  // Harden the realm before the program exists.
  for (const name of ["caches", "localStorage", "sessionStorage"]) {
    try {
      delete (globalThis as Record<string, unknown>)[name];
    } catch { /* non-configurable in some builds: the program can still not reach it by name */ }
  }
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
  Object.defineProperty(globalThis, "console", {
    value: captured,
    writable: true,
    configurable: true,
  });
  Object.defineProperty(globalThis, "tools", { value: tools, writable: true, configurable: true });
  Object.defineProperty(globalThis, "ToolCallError", {
    value: ToolCallError,
    writable: true,
    configurable: true,
  });
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    log(`Unhandled promise rejection: ${format([event.reason])}`);
  });
  globalThis.addEventListener("error", (event) => {
    event.preventDefault();
    log(`Uncaught error: ${format([event.error ?? event.message])}`);
  });

  // The bridge: line-delimited JSON frames from the host on stdin (plain reads: cheaper to start
  // than `Deno.stdin.readable`). `rest` may already hold frames.
  const stdin = Deno.stdin;
  let buffered = rest;
  let started = false;
  while (true) {
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      let frame: { t?: unknown; program?: unknown };
      try {
        frame = JSON.parse(line);
      } catch {
        continue;
      }
      if (frame.t === "run" && !started && typeof frame.program === "string") {
        started = true;
        run(frame.program);
      } else if (frame.t === "result") onResult(frame as Parameters<typeof onResult>[0]);
    }
    const count = await stdin.read(chunk);
    if (count === null) break;
    buffered += decoder.decode(chunk.subarray(0, count), { stream: true });
  }
}
