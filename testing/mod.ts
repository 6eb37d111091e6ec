/**
 * Test helpers for tool authors: drive your tools through the real agent loop with a scripted
 * model, pick what happened with typed results, and pin what an editor shows.
 *
 * - With `MockAdapter` and its ready-made answers (`textResponse`, `toolCallResponse`,
 *   `multiCall`, `maxTokensResponse`), which come out of `@dsh/harness/agent` (one door per
 *   name): a scripted model that answers each request with the next script entry and records
 *   every request.
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
 * import { eventOfType, messagesOfRole } from "./mod.ts";
 * import { MockAdapter, textResponse, toolCallResponse } from "../agent/mock_adapter.ts";
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
