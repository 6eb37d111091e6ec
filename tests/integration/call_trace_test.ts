/**
 * The measured trace (issue 24): one bash call through the ACP agent, with the stack captured
 * inside the tool's body, at the ACP wire write of its card and at the session-log append. The
 * distinct product files on those stacks are the call's architecture: at most 15, and exactly the
 * files the README's "Architecture: one bash call" section lists.
 */
import { deepEqual, ok } from "node:assert/strict";
import { AgentContext, client, ndJsonStream } from "@agentclientprotocol/sdk";
import { MockAdapter, multiCall, textResponse } from "../../agent/mod.ts";
import { createHarness } from "../../mod.ts";
import { createAcpServer } from "../../acp/mod.ts";
import { bashPlugin, LocalExecutor } from "../../builtins/mod.ts";
import type { RunOptions, RunResult } from "../../tools/mod.ts";
import { tempDir } from "../_helpers.ts";

const ROOT = new URL("../../", import.meta.url).href;

/** The product files (not tests, not dependencies) named on a stack, innermost first. */
function productFiles(stack: string | undefined): string[] {
  const files: string[] = [];
  for (const match of (stack ?? "").matchAll(/(file:\/\/[^\s)]+?):\d+:\d+/g)) {
    const url = match[1]!;
    if (!url.startsWith(ROOT)) continue;
    const path = url.slice(ROOT.length);
    if (path.startsWith("tests/") || path.includes("node_modules/")) continue;
    if (!files.includes(path)) files.push(path);
  }
  return files;
}

/** A stack with every frame (V8 keeps 10 by default), async ones included. */
function stackHere(): string | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = Infinity;
  try {
    return new Error("trace").stack;
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The file paths in the first column of the README section's table. */
async function readmeFiles(): Promise<string[]> {
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  const start = readme.indexOf("## Architecture: one bash call");
  ok(start >= 0, "the README has an architecture section");
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^\|\s*\d+\s*\|\s*`([^`]+)`/gm)].map((m) => m[1]!);
}

Deno.test("one bash call touches at most 15 product files, the ones the README lists", async () => {
  await using dir = await tempDir();
  const decoder = new TextDecoder();
  const stacks: Record<"body" | "handoff" | "wire" | "log", string[] | undefined> = {
    body: undefined,
    handoff: undefined,
    wire: undefined,
    log: undefined,
  };
  class TracingExecutor extends LocalExecutor {
    override run(command: string, options?: RunOptions): Promise<RunResult> {
      stacks.body ??= productFiles(stackHere());
      return super.run(command, options);
    }
  }
  const ctx = await createHarness({ logLevel: "error" });
  await ctx.plugin(bashPlugin, { executor: new TracingExecutor() }).ready;
  // The log append is a synchronous write of the event's line to the session log file.
  const writeSync = Deno.FsFile.prototype.writeSync;
  Deno.FsFile.prototype.writeSync = function (this: Deno.FsFile, bytes: Uint8Array): number {
    if (decoder.decode(bytes).includes('"type":"tool/result"')) {
      stacks.log ??= productFiles(stackHere());
    }
    return writeSync.call(this, bytes);
  };
  // The card's hand-off to the SDK: dsh's last frame before the SDK queues the frame, whose
  // writer (below) then starts on a fresh stack.
  type Notify = (this: AgentContext, method: string, params: unknown) => Promise<void>;
  const notify = AgentContext.prototype.notify as unknown as Notify;
  (AgentContext.prototype as unknown as { notify: Notify }).notify = function (method, params) {
    const update = (params as { update?: { sessionUpdate?: string; status?: string } }).update;
    if (update?.sessionUpdate === "tool_call_update" && update.status === "completed") {
      stacks.handoff ??= productFiles(stackHere());
    }
    return notify.call(this, method, params);
  };
  const adapter = new MockAdapter([
    multiCall([{ id: "c1", name: "bash", args: { command: "echo hi" } }]),
    textResponse("done"),
  ]);
  const app = createAcpServer(ctx, {
    createAdapter: () => adapter,
    model: "mock",
    sessionsDir: dir.path,
    flushMs: 0,
  });
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const writer = toClient.writable.getWriter();
  const wire = new WritableStream<Uint8Array>({
    async write(chunk) {
      const text = decoder.decode(chunk);
      if (text.includes('"tool_call_update"') && text.includes('"completed"')) {
        stacks.wire ??= productFiles(stackHere());
      }
      await writer.write(chunk);
    },
  });
  const server = app.connect(wire, toAgent.readable);
  const connection = client({ name: "trace" })
    .onRequest("session/request_permission", () => ({
      outcome: { outcome: "selected", optionId: "allow_once" },
    }))
    .connect(ndJsonStream(toAgent.writable, toClient.readable));
  try {
    await connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await connection.agent.request("session/new", {
      cwd: dir.path,
      mcpServers: [],
    });
    await connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
  } finally {
    connection.close();
    await connection.closed.catch(() => {});
    await server.close().catch(() => {});
    await ctx.fiber.dispose();
    Deno.FsFile.prototype.writeSync = writeSync;
    (AgentContext.prototype as unknown as { notify: Notify }).notify = notify;
  }
  for (const [where, files] of Object.entries(stacks)) {
    ok(files !== undefined && files.length > 0, `a stack was captured at the ${where}`);
    console.log(`${where}: ${files.join(", ")}`);
  }
  const union = [...new Set(Object.values(stacks).flat() as string[])].sort();
  console.log(`union (${union.length}): ${union.join(", ")}`);
  ok(union.length <= 15, `${union.length} files: ${union.join(", ")}`);
  deepEqual((await readmeFiles()).sort(), union);
});
