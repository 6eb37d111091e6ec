/**
 * ACP `session/new` with real MCP server processes that misbehave: the session opens without
 * waiting for a server that never answers, and a server that exits at start tells the user why.
 */
import { equal, ok } from "node:assert/strict";
import { client, ndJsonStream, type SessionUpdate } from "@agentclientprotocol/sdk";
import { MockAdapter, multiCall, textResponse } from "../../agent/mod.ts";
import { createHarness } from "../../mod.ts";
import { createAcpServer } from "../../acp/server.ts";
import { tempDir } from "../_helpers.ts";
import { EVERYTHING } from "./_snapshot.ts";

const FAULT_SERVER = new URL("../mcp/_fault_server.ts", import.meta.url).pathname;

async function setup(dir: string, script: ConstructorParameters<typeof MockAdapter>[0] = []) {
  const ctx = await createHarness({ logLevel: "error" });
  const updates: SessionUpdate[] = [];
  const message = Promise.withResolvers<string>();
  const waiters: { match: (text: string) => boolean; resolve: () => void }[] = [];
  const adapter = new MockAdapter(script);
  const app = createAcpServer(ctx, {
    createAdapter: () => adapter,
    model: "mock",
    sessionsDir: dir,
  });
  const clientApp = client({ name: "test" }).onNotification("session/update", ({ params }) => {
    updates.push(params.update);
    if (params.update.sessionUpdate === "agent_message_chunk") {
      const content = params.update.content;
      if (content.type === "text" && content.text.includes("MCP server")) {
        message.resolve(content.text);
        for (const waiter of waiters) if (waiter.match(content.text)) waiter.resolve();
      }
    }
  });
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const server = app.connect(toClient.writable, toAgent.readable);
  const connection = clientApp.connect(ndJsonStream(toAgent.writable, toClient.readable));
  await connection.agent.request("initialize", { protocolVersion: 1 });
  return {
    ctx,
    updates,
    message: message.promise,
    /** Resolves once an agent message containing `part` arrived. */
    messageWith(part: string): Promise<void> {
      const { promise, resolve } = Promise.withResolvers<void>();
      waiters.push({ match: (text) => text.includes(part), resolve });
      return promise;
    },
    a: connection.agent,
    async close() {
      connection.close();
      await connection.closed.catch(() => {});
      await server.close().catch(() => {});
      await ctx.fiber.dispose();
    },
  };
}

async function running(pattern: string): Promise<string> {
  const out = await new Deno.Command("pgrep", { args: ["-f", pattern], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test("session/new opens without waiting for an MCP server that never answers initialize", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path);
  const statuses: unknown[] = [];
  s.ctx.on("mcp/status", (event: unknown) => statuses.push(event));
  try {
    const { sessionId } = await s.a.request("session/new", {
      cwd: dir.path,
      mcpServers: [{
        name: "silent",
        command: Deno.execPath(),
        args: ["run", "--quiet", FAULT_SERVER, "silent"],
        env: [],
      }],
    });
    ok(sessionId);
    // The server has not answered (it never does, and connectTimeoutMs is 10 s): the session
    // is open anyway, without the server's tools.
    equal(statuses.length, 0);
    equal(s.ctx.tools.list({ scope: sessionId }).some((t) => t.name.startsWith("mcp__")), false);
  } finally {
    await s.close();
  }
  equal(await running(`${FAULT_SERVER} silent`), "", "closing the session stopped the server");
});

Deno.test("an MCP server that exits at start tells the session why, quoting its stderr", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path);
  try {
    await s.a.request("session/new", {
      cwd: dir.path,
      mcpServers: [{
        name: "broken",
        command: Deno.execPath(),
        args: ["run", "--quiet", FAULT_SERVER, "exit"],
        env: [],
      }],
    });
    equal(
      (await s.message).trim(),
      `[MCP server "broken" failed to start: the server exited with code 2 during start-up; its stderr ends with: fault server: missing API key FAULT_TOKEN; set it in the server's env (retrying in 0.5 s; its tools appear when it answers)]`,
    );
  } finally {
    await s.close();
  }
});

Deno.test("a prompt right after session/new waits for a starting MCP server's tools", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path, [
    multiCall([{ id: "m1", name: "mcp__everything__echo", args: { message: "first turn" } }]),
    textResponse("done"),
  ]);
  try {
    const { sessionId } = await s.a.request("session/new", {
      cwd: dir.path,
      mcpServers: [{ name: "everything", command: "node", args: [EVERYTHING, "stdio"], env: [] }],
    });
    await s.a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    ok(JSON.stringify(s.updates).includes("Echo: first turn"));
  } finally {
    await s.close();
  }
});

Deno.test("a dsh.jsonc MCP server that fails is reported to open sessions and to sessions opened later", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path);
  try {
    const first = await s.a.request("session/new", { cwd: dir.path, mcpServers: [] });
    const { mcpPlugin } = await import("../../mcp/mod.ts");
    s.ctx.plugin(mcpPlugin, {
      servers: {
        broken: { command: Deno.execPath(), args: ["run", "--quiet", FAULT_SERVER, "exit"] },
      },
      reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    const reason =
      "the server exited with code 2 during start-up; its stderr ends with: fault server: missing API key FAULT_TOKEN; set it in the server's env";
    equal(
      (await s.message).trim(),
      `[MCP server "broken" (dsh.jsonc) failed to start: ${reason} (retrying in 60.0 s; its tools appear when it answers)]`,
    );
    const replay = s.messageWith(`MCP server "broken" (dsh.jsonc) is unavailable: ${reason}`);
    const second = await s.a.request("session/new", { cwd: dir.path, mcpServers: [] });
    ok(first.sessionId !== second.sessionId);
    // The replay follows the session/new response.
    await replay;
  } finally {
    await s.close();
  }
});
