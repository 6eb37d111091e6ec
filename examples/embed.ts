/**
 * Embedding dsh as a library: build a harness, register the builtin tools and the echo example,
 * and run one scripted turn with the MockAdapter (no network, no API key).
 *
 *     deno run --allow-read --allow-write --allow-run=bash,setsid,ps,kill,unshare,setpriv,bwrap,sh examples/embed.ts
 *
 * @module
 */
import { contentText } from "@dsh/harness/tools";
import { createAgent, createHarness } from "@dsh/harness";
import { eventsOfType } from "@dsh/harness/testing";
import { MockAdapter, textResponse, toolCallResponse } from "@dsh/harness/agent";
import { bashPlugin, fsPlugin, readBeforeEditPlugin } from "@dsh/harness/builtins";
import * as echo from "./echo.ts";

const workspace = await Deno.makeTempDir({ prefix: "dsh_embed_" });
const ctx = await createHarness();
// "workspace-write" runs bash inside bubblewrap; { sandbox: "danger-full-access" } runs it on the host.
// `ready` rejects with the reason when a plugin cannot apply (no bwrap, a missing permission).
await ctx.plugin(bashPlugin, { sandbox: "workspace-write", workspace }).ready;
await ctx.plugin(fsPlugin).ready;
await ctx.plugin(readBeforeEditPlugin).ready;
await ctx.plugin(echo).ready;

const adapter = new MockAdapter([
  toolCallResponse("c1", "write", { file_path: "hello.txt", content: "hello from dsh\n" }),
  toolCallResponse("c2", "bash", {
    command: "cat hello.txt && wc -c hello.txt",
    description: "Show the file",
  }),
  toolCallResponse("c3", "echo", { text: "all done" }),
  textResponse("I wrote hello.txt and printed it."),
]);
const agent = await createAgent(ctx, { adapter, model: "mock", cwd: workspace, logDir: workspace });
try {
  const { stopReason } = await agent.prompt("Write hello.txt and show it");
  for (const { callId, content } of eventsOfType(agent.events, "tool/result")) {
    console.log(`${callId}: ${contentText(content)}`);
  }
  console.log(`stop reason: ${stopReason}; session log: ${agent.logPath}`);
} finally {
  await agent.dispose();
  await ctx.fiber.dispose();
  await Deno.remove(workspace, { recursive: true });
}
