/**
 * The `initialize` answer of the dsh agent, kept free of runtime SDK imports so the binary can
 * answer before the SDK has loaded.
 *
 * @module
 */
import type { InitializeRequest, InitializeResponse } from "@agentclientprotocol/sdk";

/** The ACP protocol version dsh speaks (the SDK's `PROTOCOL_VERSION`). */
export const ACP_PROTOCOL_VERSION = 1;

/** `agentInfo` of the initialize response. */
export interface AgentInfo {
  /** Programmatic name. */
  readonly name: string;
  /** Version. */
  readonly version: string;
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
export function hasTerminalOutput(params: InitializeRequest): boolean {
  const meta = params.clientCapabilities?._meta as Record<string, unknown> | null | undefined;
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
export function initializeResponse(agentInfo: AgentInfo = DSH_AGENT_INFO): InitializeResponse {
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
