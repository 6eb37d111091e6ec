/**
 * One dsh agent process for the durable-jobs restart test: an ACP server on stdio whose bash
 * runs on the durable test executor (`DetachedTestExecutor`), with a MockAdapter script read
 * from a JSON file, or on the Deno Sandbox executor pointed at a loopback stand-in.
 * Usage: `deno run -A _durable_agent_child.ts <sessionsDir> <script.json> local <envRoot>` or
 * `… <sessionsDir> <script.json> remote <endpoint> <token>` (the workspace is `sessionsDir`).
 */
import { MockAdapter } from "../../agent/mock_adapter.ts";
import type { StreamChunk } from "../../agent/model.ts";
import { createAcpServer } from "../../acp/server.ts";
import { bashPlugin } from "../../builtins/bash.ts";
import { jobsPlugin } from "../../jobs/jobs_plugin.ts";
import { createHarness } from "../../registry/mod.ts";
import { denoSandboxExecutor } from "../../remote/mod.ts";
import { TERM_GRACE_MS } from "../_helpers.ts";
import { DetachedTestExecutor } from "../jobs/_detached_executor.ts";

const [sessionsDir, scriptPath, mode, first, second] = Deno.args;
const script = JSON.parse(await Deno.readTextFile(scriptPath!)) as StreamChunk[][];
const ctx = await createHarness({ logLevel: "error" });
await ctx.plugin(jobsPlugin, {
  spill: false,
  detachedPollMs: 10,
  detachedMaxPollMs: 50,
  killGraceMs: TERM_GRACE_MS,
}).ready;
const executor = mode === "remote"
  ? denoSandboxExecutor({
    workspace: sessionsDir!,
    allowNet: [],
    endpoint: first!,
    token: second!,
    timeout: "10m",
  })
  : new DetachedTestExecutor(first!);
await ctx.plugin(bashPlugin, { executor }).ready;
const adapter = new MockAdapter(script);
const server = createAcpServer(ctx, {
  createAdapter: () => adapter,
  model: "mock",
  sessionsDir: sessionsDir!,
  flushMs: 5,
});
await server.connect(Deno.stdout.writable, Deno.stdin.readable).closed;
await ctx.fiber.dispose();
// A remote executor's connection would keep the event loop alive (the real agent exits too).
Deno.exit(0);
