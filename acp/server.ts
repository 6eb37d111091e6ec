/**
 * The ACP server: runs dsh agents per session and shows their tools as cards. Connect it with
 * `server.connect(Deno.stdout.writable, Deno.stdin.readable)` (NDJSON, one JSON-RPC frame a line).
 *
 * @module
 */
import { agent as agentApp, ndJsonStream } from "@agentclientprotocol/sdk";
import type { ModelAdapter } from "../agent/mod.ts";
import type { ToolMode, ToolsContext } from "../registry/mod.ts";
import {
  type AgentInfo,
  hasTerminalOutput,
  type InitializeRequestWire,
  initializeResponse,
} from "./initialize.ts";
import { boundFrames, MAX_FRAME_BYTES, oversizedError, shareOutput } from "./_frame_limit.ts";
import { ServerState } from "./_server_state.ts";
import { listen, loadSession, newSession, promptSession } from "./_session_requests.ts";

/** Options of {@linkcode createAcpServer}. */
export interface AcpServerOptions {
  /** Makes the model adapter of a new or loaded session. */
  readonly createAdapter: () => ModelAdapter;
  /** The model id. */
  readonly model: string;
  /** Where session logs live (must exist). */
  readonly sessionsDir: string;
  /**
   * Signs every session log; `session/load` then refuses a log changed by anyone else (see
   * `loadSessionKey`). @default {unsigned logs, loaded unchecked}
   */
  readonly logKey?: Uint8Array;
  /** Throws when the sessions folder was replaced (a link); called before each log is opened. */
  readonly verifySessionsDir?: () => void;
  /** How tools are presented to the model. @default {"native"} */
  readonly toolMode?: ToolMode;
  /** Coalescing window for deltas and terminal output, in ms. @default {50} */
  readonly flushMs?: number;
  /**
   * A notice said once per session, as an agent message before its first prompt's answer (for
   * example that bubblewrap is missing). Read (awaited) at each first prompt. @default {none}
   */
  readonly notice?: () => string | undefined | Promise<string | undefined>;
  /** The base system prompt. @default {the agent's default} */
  readonly systemPrompt?: string;
  /** Resolves once the tools are loaded; session requests wait for it. @default {Promise.resolve()} */
  readonly ready?: Promise<void>;
  /** `agentInfo` of the initialize response. @default {DSH_AGENT_INFO} */
  readonly agentInfo?: AgentInfo;
  /**
   * An `initialize` request the caller already answered (with `initializeResponse()`); the app
   * then registers no initialize handler. @default {undefined}
   */
  readonly initialized?: InitializeRequestWire;
  /**
   * The largest message read, in bytes; a longer one is dropped and answered with a JSON-RPC
   * error (the connection goes on). @default {MAX_FRAME_BYTES (32 MiB)}
   */
  readonly maxFrameBytes?: number;
}

/** A running ACP connection of {@linkcode AcpServer}. */
export interface AcpServerConnection {
  /** Resolves once the connection is closed (the input ended or `close()` was called). */
  readonly closed: Promise<void>;
  /**
   * Closes the connection (its sessions are then disposed).
   *
   * @returns The `closed` promise.
   */
  close(): Promise<void>;
}

/** The dsh ACP agent, ready to serve one connection. */
export interface AcpServer {
  /**
   * Serves the protocol over a byte stream pair (NDJSON, one JSON-RPC frame a line).
   *
   * @param output Where frames to the client are written (the agent's stdout).
   * @param input Where frames from the client are read (the agent's stdin).
   * @returns The connection.
   */
  connect(
    output: WritableStream<Uint8Array>,
    input: ReadableStream<Uint8Array>,
  ): AcpServerConnection;
}

/**
 * Creates the ACP agent (SDK 2.x `agent()` app inside). It listens to the context's live events
 * (`session/event`, `agent/delta`, `tool/output`) and provides `ctx.approval`, which turns an
 * `ask` decision into `session/request_permission`. One server serves one connection.
 *
 * @param ctx The root context with `ctx.tools` provided (the tools every session sees).
 * @param options Model adapter factory, model id, sessions dir, tool mode, coalescing window.
 * @returns The server; call `.connect(output, input)`.
 *
 * @example Usage
 * ```ts ignore
 * import { createAcpServer } from "./server.ts";
 * const server = createAcpServer(ctx, { createAdapter, model: "deepseek-chat", sessionsDir });
 * await server.connect(Deno.stdout.writable, Deno.stdin.readable).closed;
 * ```
 */
export function createAcpServer(ctx: ToolsContext, options: AcpServerOptions): AcpServer {
  const state = new ServerState(ctx, options);
  listen(state);
  const app = createApp(state);
  return {
    connect(output, input): AcpServerConnection {
      const limit = options.maxFrameBytes ?? MAX_FRAME_BYTES;
      const shared = shareOutput(output);
      const lines = boundFrames(input, limit, (bytes, head) => {
        ctx.logger.warn("Dropped an oversized ACP message", { bytes, limit });
        return shared.write(oversizedError(bytes, limit, head)).catch(() => {});
      });
      const connection = app.connect(
        ndJsonStream(shared.writable, lines, { maxMessageBytes: limit + 1 }),
      );
      return {
        closed: connection.closed,
        close(): Promise<void> {
          connection.close();
          return connection.closed;
        },
      };
    },
  };
}

/** The SDK app: the connection's client, `initialize` and the session requests. */
function createApp(state: ServerState) {
  const { options, sessions } = state;
  let app = agentApp({ name: "dsh" })
    .onConnect((connection) => {
      state.client = connection.client;
      connection.closed.finally(async () => {
        // All at once: each session's end starts now, before the agent's shutdown.
        await Promise.all(
          [...sessions.values()].map((live) => state.close(live, true).catch(() => {})),
        );
        state.client = undefined;
      });
    });
  if (options.initialized !== undefined) {
    state.terminalOutput = hasTerminalOutput(options.initialized);
  } else {
    app = app.onRequest("initialize", ({ params }) => {
      state.terminalOutput = hasTerminalOutput(params);
      return initializeResponse(options.agentInfo);
    });
  }
  return app
    .onRequest("session/new", ({ params }) => newSession(state, params))
    .onRequest("session/load", ({ params }) => loadSession(state, params))
    .onRequest("session/prompt", ({ params }) => promptSession(state, params))
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort(
        new DOMException("the client cancelled the turn", "AbortError"),
      );
    });
}
