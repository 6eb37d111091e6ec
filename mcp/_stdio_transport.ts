/**
 * Private: an MCP stdio client transport over `Deno.Command`, so the harness owns the process
 * (pid, exit status, stderr) through public APIs instead of the SDK transport's private fields,
 * and can name an oversized message instead of losing the connection to it.
 *
 * The command is resolved through `PATH`, as the SDK's `StdioClientTransport` does. The child's
 * environment is exactly `env` (the caller's scrubbed policy plus the server's own `env`): no
 * default set is added back behind the environment policy.
 *
 * The server runs in its own PID namespace with a fresh `/proc` ({@linkcode probeIsolation}):
 * neither it nor anything it starts can read `/proc/<agent pid>/environ` (the agent's key), and
 * as root it has no capabilities to unmount that `/proc`. {@linkcode DenoStdioTransport.pid} is
 * then the isolation's outer shell: signalling it ends the server and every descendant. Where no
 * namespace is available (SECURITY.md), the server runs as a plain child.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import { initStatusSignal, killProcessTree, probeIsolation, processTree } from "../jobs/mod.ts";
import { LineSplitter } from "../core/lines.ts";

/** Launch parameters (the SDK's `StdioServerParameters` fields this transport honours). */
export interface StdioLaunch {
  readonly command: string;
  readonly args?: readonly string[];
  /** The whole environment of the server process (nothing else is inherited). */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Receives stderr text as it arrives. */
  readonly onStderr?: (text: string) => void;
  /** The longest accepted message line in bytes. @default {the SDK's 10 MiB} */
  readonly maxMessageBytes?: number;
}

/** How long a server may take to exit after its stdin closes before its tree is signalled. */
const CLOSE_GRACE_MS = 600;
/** Time between SIGTERM and SIGKILL when the tree must be killed. */
const KILL_GRACE_MS = 300;
/** How long output already written before an exit may take to drain. */
const DRAIN_MS = 250;
/** Kept stderr, for start-up failure messages. */
const STDERR_TAIL = 4000;
/** Kept end of a dropped oversized line, where the TypeScript SDK serializes the response `id`. */
const TAIL_BYTES = 256;
/** Kept start of a dropped oversized line, where other SDKs serialize the response `id`. */
const HEAD_BYTES = 4096;

const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();

/** A stdio transport that spawns the server itself. */
export class DenoStdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  readonly #launch: StdioLaunch;
  readonly #limit: number;
  #child: Deno.ChildProcess | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #status: Deno.CommandStatus | undefined;
  #exited = Promise.withResolvers<void>();
  #stderrTail = "";
  #fault: string | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  #isolated = false;
  #starting = false;

  constructor(launch: StdioLaunch) {
    this.#launch = launch;
    this.#limit = launch.maxMessageBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE;
  }

  /** The process id once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** `exited with code N` / `was killed by SIGX` once the process is gone; a fault message when the transport gave up on it. */
  get exitReason(): string | undefined {
    if (this.#fault !== undefined) return this.#fault;
    const status = this.#status;
    if (status === undefined) return undefined;
    const signal = status.signal ?? (this.#isolated ? initStatusSignal(status.code) : undefined);
    return signal !== undefined ? `was killed by ${signal}` : `exited with code ${status.code}`;
  }

  /** The last few thousand characters the server wrote to stderr. */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  /** Settles when the process has exited (and its output drained). */
  get exited(): Promise<void> {
    return this.#exited.promise;
  }

  async start(): Promise<void> {
    if (this.#child !== undefined || this.#starting) {
      throw new Error("DenoStdioTransport already started");
    }
    this.#starting = true;
    const { command, args = [], env, cwd } = this.#launch;
    const isolation = await probeIsolation();
    if (isolation.kind !== "none") await assertRunnable(command, env, cwd);
    const argv = isolation.kind === "none"
      ? [command, ...args]
      : [...isolation.prefix, command, ...args];
    this.#isolated = isolation.kind !== "none";
    // Throws NotFound / NotCapable; connect() names both.
    const child = new Deno.Command(argv[0]!, {
      args: argv.slice(1),
      env: { ...env },
      clearEnv: true,
      ...(cwd === undefined ? {} : { cwd }),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#writer.closed.catch(() => {});
    const stdout = this.#readStdout(child.stdout);
    const stderr = this.#readStderr(child.stderr);
    void child.status.then(async (status) => {
      this.#status = status;
      const drain = Promise.all([stdout, stderr]);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([drain, new Promise((resolve) => timer = setTimeout(resolve, DRAIN_MS))]);
      clearTimeout(timer);
      child.stdout.cancel().catch(() => {});
      child.stderr.cancel().catch(() => {});
      this.#exited.resolve();
      this.#fireClose();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const writer = this.#writer;
    if (writer === undefined || this.#closed) throw new Error("Not connected");
    await writer.write(ENCODER.encode(JSON.stringify(message) + "\n"));
  }

  /**
   * Ends the server: stdin EOF, then (after a short grace) SIGTERM and SIGKILL to the server
   * and every process it started, so close returns within about a second and leaves nothing.
   */
  close(): Promise<void> {
    return this.#closing ??= this.#close();
  }

  async #close(): Promise<void> {
    const child = this.#child;
    if (child === undefined) {
      this.#fireClose();
      return;
    }
    // The tree is read before stdin closes: once the server exits its children are reparented.
    let tree: number[];
    try {
      tree = this.#status === undefined ? processTree(child.pid) : [];
    } catch {
      tree = [child.pid];
    }
    await this.#writer?.close().catch(() => {});
    if (this.#status === undefined) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        child.status,
        new Promise((resolve) => timer = setTimeout(resolve, CLOSE_GRACE_MS)),
      ]);
      clearTimeout(timer);
    }
    await Promise.all(
      tree.map((pid) => killProcessTree(pid, { graceMs: KILL_GRACE_MS }).catch(() => {})),
    );
    await child.status.catch(() => {});
    this.#fireClose();
  }

  #fireClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }

  async #readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stream) {
        const text = decoder.decode(chunk, { stream: true });
        this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL);
        this.#launch.onStderr?.(text);
      }
    } catch { /* cancelled after exit */ }
  }

  async #readStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    // An oversized line is dropped as it arrives; its head and tail may name its request id.
    const splitter = new LineSplitter({
      maxLineBytes: this.#limit,
      oversized: "skip",
      headBytes: HEAD_BYTES,
      tailBytes: TAIL_BYTES,
    });
    try {
      for await (const chunk of stream) {
        for (const line of splitter.pushBytes(chunk)) {
          if (line instanceof Uint8Array) this.#deliver(line);
          else this.#oversized(line.size, line.head, line.tail);
        }
      }
    } catch { /* cancelled after exit */ }
  }

  #deliver(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const line = DECODER.decode(bytes).replace(/\r$/, "");
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }

  /**
   * An oversized line was dropped. When its tail names a response id, that request fails with
   * an error that says why; otherwise the connection cannot be trusted and is closed.
   */
  #oversized(size: number, head: Uint8Array, tail: Uint8Array): void {
    const limitMiB = Math.round(this.#limit / 1024 / 1024 * 10) / 10;
    const what = `a message of ${size} bytes, over the ${limitMiB} MiB (${this.#limit} bytes) ` +
      `limit of the MCP stdio transport`;
    const id = topLevelId(DECODER.decode(head)) ??
      /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*\r?$/.exec(DECODER.decode(tail))
        ?.[1];
    if (id !== undefined) {
      this.onmessage?.({
        jsonrpc: "2.0",
        id: JSON.parse(id) as string | number,
        error: {
          code: -32603,
          message: `the server sent ${what}; the result was dropped. Ask for less output`,
        },
      });
      return;
    }
    this.#fault = `sent ${what}`;
    this.onerror?.(new Error(`MCP server ${this.#fault}`));
    void this.close();
  }
}

/**
 * What spawning `command` directly would check, before it is spawned through the isolation
 * prefix: the agent may run it (else `NotCapable`, as Deno would throw) and it resolves through
 * `PATH` (else `NotFound`).
 */
async function assertRunnable(
  command: string,
  env: Readonly<Record<string, string>> | undefined,
  cwd: string | undefined,
): Promise<void> {
  const permission = await Deno.permissions.query({ name: "run", command });
  if (permission.state !== "granted") {
    throw new Deno.errors.NotCapable(
      `Requires run access to "${command}", run again with the --allow-run flag`,
    );
  }
  const found = await new Deno.Command("sh", {
    args: ["-c", 'command -v -- "$1" >/dev/null', "dsh-which", command],
    env: { PATH: env?.PATH ?? "/usr/bin:/bin" },
    clearEnv: true,
    ...(cwd === undefined ? {} : { cwd }),
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  if (!found.success) throw new Deno.errors.NotFound(`Failed to spawn '${command}': not found`);
}

/** The JSON text of a top-level `"id"` member in the start of a JSON object, if it is there. */
function topLevelId(head: string): string | undefined {
  let depth = 0;
  let inString = false;
  let keyStart = -1;
  for (let i = 0; i < head.length; i++) {
    const char = head[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') {
        inString = false;
        if (depth === 1 && head.slice(keyStart, i + 1) === '"id"') {
          const value = /^\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*[,}]/.exec(head.slice(i + 1));
          if (value !== null) return value[1];
        }
      }
    } else if (char === '"') {
      inString = true;
      keyStart = i;
    } else if (char === "{" || char === "[") {
      depth++;
    } else if (char === "}" || char === "]") {
      depth--;
    }
  }
  return undefined;
}
