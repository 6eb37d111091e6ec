/**
 * Test helpers for tool authors: drive your tools through the real agent loop with a scripted
 * model, pick what happened with typed results, and pin what an editor shows.
 *
 * - {@linkcode MockAdapter}: answers each request with the next script entry (chunk arrays,
 *   functions of the request, `"hang"` / `"hang-slow"` / `{ hangAfter }` until aborted) and
 *   records every request; an exhausted script throws `MockAdapter: script exhausted`.
 * - {@linkcode textResponse}, {@linkcode toolCallResponse}, {@linkcode multiCall},
 *   {@linkcode maxTokensResponse}: ready-made answers.
 * - {@linkcode eventsOfType} / {@linkcode eventOfType}: session events of one type, typed
 *   (`SessionEventOf<"tool/result">` has `content`, `isError`, `meta`), without `isEventType`
 *   narrowing; {@linkcode messagesOfRole}: the messages of a recorded model request by role.
 * - {@linkcode assertAcpSnapshot}: runs a scenario through the real ACP server in process and
 *   compares the frames with a stored transcript (`DSH_UPDATE_SNAPSHOTS=1` re-records it).
 * - {@linkcode startSandboxStandIn}: a loopback stand-in for the Deno Sandbox service that the
 *   unmodified `@deno/sandbox` SDK drives (point `DENO_SANDBOX_ENDPOINT` at `endpoint`); each
 *   sandbox is a private folder, commands run in a bubblewrap box, with fault switches (drop the
 *   WebSocket, forget or expire a sandbox) for remote-executor tests.
 * - No temp dir needed: `createAgent(ctx, { inMemoryLog: true, ... })` keeps the session log in
 *   memory.
 *
 * @example Usage
 * ```ts
 * import { createAgent, createHarness, defineTool } from "../mod.ts";
 * import { eventOfType, messagesOfRole, MockAdapter, textResponse, toolCallResponse } from "./mod.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const ctx = await createHarness();
 * ctx.tools.register(defineTool({
 *   name: "echo",
 *   description: "Echo the text back.",
 *   parameters: { text: { type: "string", required: true } },
 *   execute: (args) => [{ type: "text", text: args.text }],
 * }));
 * const adapter = new MockAdapter([toolCallResponse("c1", "echo", { text: "ping" }), textResponse("done")]);
 * const agent = await createAgent(ctx, { adapter, model: "mock", cwd: "/", inMemoryLog: true });
 * equal((await agent.prompt("say ping")).stopReason, "end_turn");
 * equal(eventOfType(agent.events, "tool/call").arguments, '{"text":"ping"}');
 * deepEqual(eventOfType(agent.events, "tool/result").content, [{ type: "text", text: "ping" }]);
 * // The second request carries the tool result back to the model.
 * equal(messagesOfRole(adapter.requests[1]!, "tool")[0]?.callId, "c1");
 * await agent.dispose();
 * await ctx.fiber.dispose();
 * ```
 *
 * @module
 */
export {
  maxTokensResponse,
  MockAdapter,
  multiCall,
  textResponse,
  toolCallResponse,
} from "../agent/mod.ts";
export type { MockEntry, MockToolCall } from "../agent/mod.ts";
export { eventOfType, eventsOfType, messagesOfRole } from "./pick.ts";
export { assertAcpSnapshot, UPDATE_SNAPSHOTS_ENV } from "./acp_snapshot.ts";
export type {
  AcpScenario,
  AcpSnapshotOptions,
  AcpSnapshotRun,
  PermissionAnswer,
} from "./acp_snapshot.ts";
export { startSandboxStandIn } from "./deno_sandbox_stand_in.ts";
export type {
  DropOptions,
  SandboxStandIn,
  SandboxStandInOptions,
  StandInEndReason,
  StandInSandboxInfo,
  StandInSpawnRecord,
} from "./deno_sandbox_stand_in.ts";

// Types the signatures above use, re-exported so this entry point documents itself.
export type * from "../registry/doc_types.ts";
export type * from "../agent/model.ts";
export type {
  ContextSource,
  SessionEvent,
  SessionEventEnvelope,
  SessionEventMap,
  SessionEventOf,
  SessionEventType,
  StopReason,
} from "../agent/session_event.ts";
export type { ToolsContext } from "../registry/tools_plugin.ts";
