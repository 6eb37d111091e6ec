/**
 * The `initialize` answer of the dsh agent, kept free of runtime SDK imports so the binary can
 * answer before the SDK has loaded.
 *
 * @module
 */
/** The ACP protocol version dsh speaks (the SDK's `PROTOCOL_VERSION`). */
export const ACP_PROTOCOL_VERSION = 1;

/** `agentInfo` of the initialize response. */
export interface AgentInfo {
  /** Programmatic name. */
  readonly name: string;
  /** Version. */
  readonly version: string;
}

/**
 * The parts of an `initialize` request dsh reads; other fields are allowed and ignored.
 */
export interface InitializeRequestWire {
  /** The client's protocol version. */
  readonly protocolVersion: number;
  /** The client's capabilities; dsh reads only `_meta.terminal_output`. */
  readonly clientCapabilities?: {
    /** Extension capabilities. */
    readonly _meta?: Readonly<Record<string, unknown>> | null;
    /** Other capabilities (`fs`, `terminal`, …). */
    readonly [key: string]: unknown;
  };
  /** Other fields (`clientInfo`, `_meta`). */
  readonly [key: string]: unknown;
}

/** The `initialize` response of the dsh agent. */
export interface InitializeResponseWire {
  /** The protocol version dsh speaks ({@linkcode ACP_PROTOCOL_VERSION}). */
  readonly protocolVersion: number;
  /** What the agent supports. */
  readonly agentCapabilities: {
    /** `session/load` is supported. */
    readonly loadSession: boolean;
    /** The prompt content types accepted besides text and resource links. */
    readonly promptCapabilities: {
      /** Image blocks. */
      readonly image: boolean;
      /** Audio blocks. */
      readonly audio: boolean;
      /** Embedded resources. */
      readonly embeddedContext: boolean;
    };
    /** The MCP transports accepted in `mcpServers` besides stdio. */
    readonly mcpCapabilities: {
      /** Streamable HTTP. */
      readonly http: boolean;
      /** Server-sent events. */
      readonly sse: boolean;
    };
  };
  /** Always empty: the agent needs no authentication. */
  readonly authMethods: [];
  /** Name and version. */
  readonly agentInfo: AgentInfo;
}

/** The default `agentInfo`. */
export const DSH_AGENT_INFO: AgentInfo = { name: "dsh", version: "0.1.0" };

/**
 * Whether the client advertised the Zed display-only terminal (`_meta.terminal_output === true`).
 *
 * @param params The initialize request.
 * @returns True for the `_meta` terminal path.
 *
 * @example Usage
 * ```ts
 * import { hasTerminalOutput } from "./initialize.ts";
 * import { equal } from "node:assert/strict";
 * equal(hasTerminalOutput({ protocolVersion: 1, clientCapabilities: { _meta: { terminal_output: true } } }), true);
 * equal(hasTerminalOutput({ protocolVersion: 1, clientCapabilities: { terminal: true } }), false);
 * ```
 */
export function hasTerminalOutput(params: InitializeRequestWire): boolean {
  const meta = params.clientCapabilities?._meta;
  return meta?.terminal_output === true;
}

/**
 * Builds the initialize response: `loadSession`, prompt capabilities and MCP transports.
 *
 * @param agentInfo Name and version.
 * @returns The response.
 *
 * @example Usage
 * ```ts
 * import { initializeResponse } from "./initialize.ts";
 * import { equal } from "node:assert/strict";
 * equal(initializeResponse().agentCapabilities?.loadSession, true);
 * ```
 */
export function initializeResponse(agentInfo: AgentInfo = DSH_AGENT_INFO): InitializeResponseWire {
  return {
    protocolVersion: ACP_PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
    },
    authMethods: [],
    agentInfo: { ...agentInfo },
  };
}
