/**
 * One dsh agent process for the durable-jobs restart test: an ACP server on stdio whose bash
 * runs on the durable test executor (`DetachedTestExecutor`), with a MockAdapter script read
 * from a JSON file. Usage: `deno run -A _durable_agent_child.ts <sessionsDir> <envRoot> <script.json>`.
 */
import { MockAdapter } from "../../agent/mock_adapter.ts";
import type { StreamChunk } from "../../agent/model.ts";
import { createAcpServer } from "../../acp/server.ts";
import { bashPlugin } from "../../builtins/bash.ts";
import { jobsPlugin } from "../../jobs/jobs_plugin.ts";
import { createHarness } from "../../registry/mod.ts";
import { TERM_GRACE_MS } from "../_helpers.ts";
import { DetachedTestExecutor } from "../jobs/_detached_executor.ts";

const [sessionsDir, envRoot, scriptPath] = Deno.args;
const script = JSON.parse(await Deno.readTextFile(scriptPath!)) as StreamChunk[][];
const ctx = await createHarness({ logLevel: "error" });
await ctx.plugin(jobsPlugin, {
  spill: false,
  detachedPollMs: 10,
  detachedMaxPollMs: 50,
  killGraceMs: TERM_GRACE_MS,
}).ready;
await ctx.plugin(bashPlugin, { executor: new DetachedTestExecutor(envRoot!) }).ready;
const adapter = new MockAdapter(script);
const server = createAcpServer(ctx, {
  createAdapter: () => adapter,
  model: "mock",
  sessionsDir: sessionsDir!,
  flushMs: 5,
});
await server.connect(Deno.stdout.writable, Deno.stdin.readable).closed;
await ctx.fiber.dispose();
