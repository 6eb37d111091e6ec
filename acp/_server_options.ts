/**
 * Private: the options of `createAcpServer`, read by the server and its connection state.
 *
 * @module
 */
import type { ModelAdapter } from "../agent/mod.ts";
import type { EnvPolicy } from "../core/env_policy.ts";
import type { ToolMode } from "../codemode/mod.ts";
import type { AgentInfo, InitializeRequestWire } from "./initialize.ts";

/** Options of `createAcpServer` (`server.ts`). */
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
  /**
   * The environment policy of the MCP servers an editor passes in `session/new` (the agent
   * passes `dsh.jsonc` `env`). @default {{}}
   */
  readonly envPolicy?: EnvPolicy;
}
