/**
 * Runs the agent binary (`acp/main.ts`) as a subprocess under an explicit permission profile and
 * connects an SDK client app to it over stdio. Used by the demo, the snapshot runner and the bench.
 *
 * @module
 */
import { readLines } from "../core/lines.ts";
import { type ClientApp, type ClientConnection, ndJsonStream } from "@agentclientprotocol/sdk";
import { denoCommand } from "./_deno_command.ts";

/** Options of {@linkcode spawnAgentProcess}. */
export interface SpawnAgentProcessOptions {
  /** The Deno permission flags (see `permissionFlags`). */
  readonly permissions: readonly string[];
  /** Arguments after the script (`--script`, `--sessions-dir`, …). @default {[]} */
  readonly args?: readonly string[];
  /** The process working directory. @default {Deno.cwd()} */
  readonly cwd?: string;
  /** Environment variables; with `clearEnv` the only ones set. @default {{}} */
  readonly env?: Readonly<Record<string, string>>;
  /** Start from an empty environment. @default {false} */
  readonly clearEnv?: boolean;
  /** Receives every raw stdout line (one JSON-RPC frame) of the agent. */
  readonly onFrame?: (line: string) => void;
  /** Copy the agent's stderr to ours. @default {false} */
  readonly inheritStderr?: boolean;
  /** The agent entry point. @default {the sibling main.ts} */
  readonly main?: string | URL;
  /**
   * Bytes written on the agent's stdin before the client connects (the launcher's secrets line,
   * see `secretsLine`). @default {undefined}
   */
  readonly stdinPrefix?: Uint8Array;
}

/** A running agent subprocess with a connected client. */
export interface AgentProcess extends AsyncDisposable {
  /** The client connection (`connection.agent` calls agent methods). */
  readonly connection: ClientConnection;
  /** The subprocess. */
  readonly child: Deno.ChildProcess;
  /** The stderr captured so far (empty with `inheritStderr`). */
  stderr(): string;
  /** Closes stdin and waits for the agent to exit. */
  close(): Promise<Deno.CommandStatus>;
}

async function forEachLine(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void) {
  for await (const line of readLines(stream)) onLine(line);
}

/**
 * Spawns the agent and connects `client` to it.
 *
 * @param client The client app (its handlers answer permission prompts and receive updates).
 * @param options Permission flags, arguments, cwd, env and a frame observer.
 * @returns The running process; dispose it (or call `close()`) to stop it.
 * @throws {Error} When this process may not run its own Deno (names the `--allow-run` flag).
 *
 * @example Usage
 * ```ts ignore
 * import { client } from "@agentclientprotocol/sdk";
 * import { spawnAgentProcess } from "./_agent_process.ts";
 * await using agent = spawnAgentProcess(client(), { permissions: ["--allow-read"] });
 * await agent.connection.agent.request("initialize", { protocolVersion: 1 });
 * ```
 */
export function spawnAgentProcess(
  client: ClientApp,
  options: SpawnAgentProcessOptions,
): AgentProcess {
  const { permissions, args = [], env = {}, clearEnv = false, onFrame, inheritStderr = false } =
    options;
  const main = options.main ?? new URL("./main.ts", import.meta.url);
  const mainPath = main instanceof URL ? main.pathname : main;
  // This very Deno (by the name the permission grants), never another one on PATH.
  const child = new Deno.Command(denoCommand("this process"), {
    args: ["run", "--quiet", "--no-prompt", ...permissions, mainPath, ...args],
    cwd: options.cwd ?? Deno.cwd(),
    env: { ...env },
    clearEnv,
    stdin: "piped",
    stdout: "piped",
    stderr: inheritStderr ? "inherit" : "piped",
  }).spawn();
  const [forClient, forFrames] = child.stdout.tee();
  const framesDone = forEachLine(forFrames, onFrame ?? (() => {}));
  let errText = "";
  const errDone = inheritStderr
    ? Promise.resolve()
    : forEachLine(child.stderr, (line) => errText += line + "\n");
  if (options.stdinPrefix !== undefined) {
    // Queued first (the stream's queue keeps the order), then the client's frames.
    const writer = child.stdin.getWriter();
    writer.write(options.stdinPrefix).catch(() => {});
    writer.releaseLock();
  }
  const connection = client.connect(ndJsonStream(child.stdin, forClient));
  let closing: Promise<Deno.CommandStatus> | undefined;
  async function close(): Promise<Deno.CommandStatus> {
    connection.close();
    await connection.closed.catch(() => {});
    try {
      await child.stdin.close();
    } catch {
      // Already closed by the connection.
    }
    const status = await child.status;
    await Promise.all([framesDone, errDone]).catch(() => {});
    return status;
  }
  return {
    connection,
    child,
    stderr: () => errText,
    close: () => closing ??= close(),
    async [Symbol.asyncDispose]() {
      await (closing ??= close());
    },
  };
}
