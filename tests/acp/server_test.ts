import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import {
  client,
  type McpServer,
  ndJsonStream,
  type RequestPermissionRequest,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { MockAdapter, multiCall, textResponse } from "../../agent/mod.ts";
import { createHarness, defineTool, type ToolsContext } from "../../mod.ts";
import { createAcpServer } from "../../acp/server.ts";
import { tempDir } from "../_helpers.ts";
import { EVERYTHING } from "./_snapshot.ts";

type Update = SessionUpdate & Record<string, unknown>;

function streamTool(chunks: number) {
  return defineTool({
    name: "stream",
    description: "Writes numbered lines.",
    parameters: {},
    presentCall: () => ({ card: "terminal", title: "stream" }),
    presentResult: (_args, result) => ({
      card: "terminal",
      output: String((result.meta as { output: string }).output),
      exitCode: 0,
    }),
    async execute(_args, exec) {
      let output = "";
      for (let i = 0; i < chunks; i++) {
        const line = `line ${i}\n`;
        output += line;
        exec.output.write(line);
        if (i % 10 === 0) await new Promise((r) => setTimeout(r, 0));
      }
      return { content: [{ type: "text", text: output }], meta: { output } };
    },
  });
}

const waitTool = defineTool({
  name: "wait",
  description: "Waits for the abort.",
  parameters: {},
  execute(_args, exec) {
    return new Promise((_, reject) => {
      exec.signal.addEventListener("abort", () => reject(exec.signal.reason), { once: true });
    });
  },
});

interface Setup {
  ctx: ToolsContext;
  updates: Update[];
  asks: RequestPermissionRequest[];
  a: ReturnType<ReturnType<typeof client>["connect"]>["agent"];
  close(): Promise<void>;
}

/** Call before session/new: resolves per scope once an MCP server there has connected. */
function mcpConnected(
  ctx: { on(event: string, listener: (e: { state: string; scope?: string }) => void): unknown },
): (scope: string) => Promise<void> {
  const seen = new Map<string, PromiseWithResolvers<void>>();
  const slot = (scope: string) => {
    let entry = seen.get(scope);
    if (entry === undefined) seen.set(scope, entry = Promise.withResolvers<void>());
    return entry;
  };
  ctx.on("mcp/status", (e) => {
    if (e.state === "connected" && e.scope !== undefined) slot(e.scope).resolve();
  });
  return (scope) => slot(scope).promise;
}

async function setup(
  dir: string,
  script: ConstructorParameters<typeof MockAdapter>[0],
  options: {
    flushMs?: number;
    answer?: (
      p: RequestPermissionRequest,
    ) => Promise<{ outcome: { outcome: "cancelled" } | { outcome: "selected"; optionId: string } }>;
  } = {},
): Promise<Setup> {
  const ctx = await createHarness({ logLevel: "error" });
  const updates: Update[] = [];
  const asks: RequestPermissionRequest[] = [];
  const adapter = new MockAdapter(script);
  const app = createAcpServer(ctx, {
    createAdapter: () => adapter,
    model: "mock",
    sessionsDir: dir,
    flushMs: options.flushMs ?? 5,
  });
  const clientApp = client({ name: "test" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update as Update);
    })
    .onRequest("session/request_permission", ({ params }) => {
      asks.push(params);
      return options.answer
        ? options.answer(params)
        : { outcome: { outcome: "selected", optionId: "allow_once" } };
    });
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const server = app.connect(toClient.writable, toAgent.readable);
  const connection = clientApp.connect(ndJsonStream(toAgent.writable, toClient.readable));
  return {
    ctx,
    updates,
    asks,
    a: connection.agent,
    async close() {
      connection.close();
      await connection.closed.catch(() => {});
      await server.close().catch(() => {});
      await ctx.fiber.dispose();
    },
  };
}

Deno.test("createAcpServer() streams terminal output to a capable client without losing bytes", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path, [
    multiCall([{ id: "c1", name: "stream", args: {} }]),
    textResponse("ok"),
  ]);
  try {
    s.ctx.tools.register(streamTool(500));
    await s.a.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { _meta: { terminal_output: true } },
    });
    const { sessionId } = await s.a.request("session/new", { cwd: dir.path, mcpServers: [] });
    const { stopReason } = await s.a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    equal(stopReason, "end_turn");
    const data = s.updates
      .filter((u) => u.sessionUpdate === "tool_call_update")
      .map((
        u,
      ) => ((u._meta as { terminal_output?: { data: string } } | undefined)?.terminal_output
        ?.data ?? "")
      )
      .join("");
    equal(data, Array.from({ length: 500 }, (_, i) => `line ${i}\n`).join(""));
    const last = s.updates.filter((u) => u.sessionUpdate === "tool_call_update").at(-1)!;
    equal(last.status, "completed");
    deepEqual((last._meta as Record<string, unknown>).terminal_exit, {
      terminal_id: "c1",
      exit_code: 0,
    });
  } finally {
    await s.close();
  }
});

Deno.test("createAcpServer() re-sends the whole fenced output to a plain client", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path, [
    multiCall([{ id: "c1", name: "stream", args: {} }]),
    textResponse("ok"),
  ]);
  try {
    s.ctx.tools.register(streamTool(300));
    await s.a.request("initialize", { protocolVersion: 1 });
    const { sessionId } = await s.a.request("session/new", { cwd: dir.path, mcpServers: [] });
    await s.a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    const texts = s.updates
      .filter((u) => u.sessionUpdate === "tool_call_update")
      .map((u) => JSON.stringify(u.content));
    const full = Array.from({ length: 300 }, (_, i) => `line ${i}`).join("\n");
    equal(JSON.parse(texts.at(-1)!)[0].content.text, "```console\n" + full + "\n```");
    for (const text of texts) ok(!text.includes("terminal_output"));
  } finally {
    await s.close();
  }
});

Deno.test("createAcpServer() cancels a running tool and answers stopReason cancelled", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path, [multiCall([{ id: "c1", name: "wait", args: {} }])]);
  try {
    s.ctx.tools.register(waitTool);
    await s.a.request("initialize", { protocolVersion: 1 });
    const { sessionId } = await s.a.request("session/new", { cwd: dir.path, mcpServers: [] });
    const done = s.a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    while (!s.updates.some((u) => u.sessionUpdate === "tool_call")) {
      await new Promise((r) => setTimeout(r, 1));
    }
    await s.a.notify("session/cancel", { sessionId });
    equal((await done).stopReason, "cancelled");
    const result = s.updates.find((u) => u.sessionUpdate === "tool_call_update");
    equal(result?.status, "failed");
  } finally {
    await s.close();
  }
});

Deno.test("createAcpServer() denies a call whose permission prompt is cancelled by the turn", async () => {
  await using dir = await tempDir();
  const pending = Promise.withResolvers<void>();
  const s = await setup(dir.path, [multiCall([{ id: "c1", name: "wait", args: {} }])], {
    answer: async () => {
      pending.resolve();
      await new Promise(() => {});
      return { outcome: { outcome: "cancelled" } };
    },
  });
  try {
    s.ctx.tools.register(waitTool);
    s.ctx.on("tools/pre-execute", () => ({ kind: "ask" as const }));
    await s.a.request("initialize", { protocolVersion: 1 });
    const { sessionId } = await s.a.request("session/new", { cwd: dir.path, mcpServers: [] });
    const done = s.a.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    await pending.promise;
    equal(s.asks[0]?.toolCall.title, "wait");
    deepEqual(s.asks[0]?.options.map((o) => o.kind), [
      "allow_once",
      "allow_always",
      "reject_once",
      "reject_always",
    ]);
    await s.a.notify("session/cancel", { sessionId });
    equal((await done).stopReason, "cancelled");
    const updates = s.updates.filter((u) => u.sessionUpdate === "tool_call_update");
    // The card waits as pending while asked, then fails.
    deepEqual(updates.map((u) => u.status), ["pending", "failed"]);
    const result = updates.at(-1);
    match(JSON.stringify(result?.content), /aborted before dispatch/);
  } finally {
    await s.close();
  }
});

Deno.test("createAcpServer() refuses a relative cwd and an unknown session", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path, []);
  try {
    await s.a.request("initialize", { protocolVersion: 1 });
    await rejects(() => s.a.request("session/new", { cwd: "rel/dir", mcpServers: [] }), {
      message: 'Cannot create a session: "cwd" must be an absolute path: received "rel/dir"',
    });
    await rejects(
      () => s.a.request("session/new", { cwd: `${dir.path}/missing`, mcpServers: [] }),
      {
        message:
          `Cannot create a session: "cwd" must be an existing directory: received "${dir.path}/missing"`,
      },
    );
    await rejects(
      () => s.a.request("session/load", { sessionId: "x", cwd: "rel", mcpServers: [] }),
      { message: 'Cannot load a session: "cwd" must be an absolute path: received "rel"' },
    );
    await rejects(
      () =>
        s.a.request("session/prompt", { sessionId: "nope", prompt: [{ type: "text", text: "x" }] }),
      {
        code: -32002,
        message:
          'Cannot prompt session "nope": it is not open in this agent (create it with session/new or open it with session/load)',
      },
    );
    await rejects(
      () => s.a.request("session/load", { sessionId: "missing", cwd: dir.path, mcpServers: [] }),
      {
        code: -32002,
        message: /^Cannot load session "missing": no session log ".*missing\.jsonl"$/,
      },
    );
    await rejects(
      () => s.a.request("session/load", { sessionId: "../x", cwd: dir.path, mcpServers: [] }),
      { code: -32602, message: /^Cannot load session "\.\.\/x": a session id is letters/ },
    );
  } finally {
    await s.close();
  }
});

Deno.test("createAcpServer() starts the MCP servers of session/new", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path, []);
  try {
    await s.a.request("initialize", { protocolVersion: 1 });
    const connected = mcpConnected(s.ctx);
    const { sessionId } = await s.a.request("session/new", {
      cwd: dir.path,
      mcpServers: [{ name: "everything", command: "node", args: [EVERYTHING, "stdio"], env: [] }],
    });
    // session/new does not wait for the server; its tools arrive when it answers.
    await connected(sessionId);
    ok(
      s.ctx.tools.list({ scope: sessionId }).some((t) =>
        t.name.includes("everything") && t.name.endsWith("echo")
      ),
    );
  } finally {
    await s.close();
  }
});

Deno.test("createAcpServer() scopes each session's MCP servers to that session", async () => {
  await using dir = await tempDir();
  const echo = "mcp__everything__echo";
  const s = await setup(dir.path, [
    multiCall([{ id: "a1", name: echo, args: { message: "from A" } }]),
    textResponse("A done"),
    multiCall([{ id: "b1", name: echo, args: { message: "from B" } }]),
    textResponse("B done"),
  ]);
  try {
    await s.a.request("initialize", { protocolVersion: 1 });
    const mcpServers: McpServer[] = [
      { name: "everything", command: "node", args: [EVERYTHING, "stdio"], env: [] },
    ];
    // The same server name in two sessions: no collision, each session has its own tools.
    const connected = mcpConnected(s.ctx);
    const a = await s.a.request("session/new", { cwd: dir.path, mcpServers });
    const b = await s.a.request("session/new", { cwd: dir.path, mcpServers });
    await connected(a.sessionId);
    await connected(b.sessionId);
    const inA = s.ctx.tools.get(echo, { scope: a.sessionId });
    const inB = s.ctx.tools.get(echo, { scope: b.sessionId });
    ok(inA !== undefined && inB !== undefined && inA !== inB);
    equal(s.ctx.tools.get(echo), undefined);
    ok(!s.ctx.tools.list().some((t) => t.name.startsWith("mcp__")));

    await s.a.request("session/prompt", {
      sessionId: a.sessionId,
      prompt: [{ type: "text", text: "echo" }],
    });
    ok(JSON.stringify(s.updates).includes("Echo: from A"));

    // Re-opening A without servers closes A's servers; B's tools keep working.
    await s.a.request("session/load", { sessionId: a.sessionId, cwd: dir.path, mcpServers: [] });
    equal(s.ctx.tools.get(echo, { scope: a.sessionId }), undefined);
    ok(s.ctx.tools.get(echo, { scope: b.sessionId }) !== undefined);
    await s.a.request("session/prompt", {
      sessionId: b.sessionId,
      prompt: [{ type: "text", text: "echo" }],
    });
    const results = s.updates.filter((u) =>
      u.sessionUpdate === "tool_call_update" && u.toolCallId === "b1" && u.status !== undefined
    );
    equal(results.at(-1)?.status, "completed");
    ok(JSON.stringify(results).includes("Echo: from B"));
  } finally {
    await s.close();
  }
});

const patchTool = defineTool({
  name: "patch",
  description: "Pretends to patch a file.",
  parameters: {},
  presentCall: () => ({
    card: "diff",
    title: "Patch a.txt",
    diffs: [{ path: "a.txt", oldText: "old\n", newText: "new\n" }],
  }),
  execute: () => [{ type: "text", text: "patched" }],
});

Deno.test("createAcpServer() asks with the diff card and remembers allow_always per session", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path, [
    multiCall([{ id: "c1", name: "patch", args: {} }, { id: "c2", name: "patch", args: {} }]),
    textResponse("one"),
    multiCall([{ id: "c3", name: "patch", args: {} }]),
    textResponse("two"),
  ], {
    answer: () => Promise.resolve({ outcome: { outcome: "selected", optionId: "allow_always" } }),
  });
  try {
    s.ctx.tools.register(patchTool);
    s.ctx.on("tools/pre-execute", () => ({ kind: "ask" as const }));
    await s.a.request("initialize", { protocolVersion: 1 });
    const first = await s.a.request("session/new", { cwd: dir.path, mcpServers: [] });
    await s.a.request("session/prompt", {
      sessionId: first.sessionId,
      prompt: [{ type: "text", text: "patch twice" }],
    });
    equal(s.asks.length, 1);
    deepEqual(s.asks[0]?.toolCall, {
      toolCallId: "c1",
      title: "Patch a.txt",
      kind: "edit",
      content: [{ type: "diff", path: `${dir.path}/a.txt`, oldText: "old\n", newText: "new\n" }],
    });
    deepEqual(
      s.updates.filter((u) => u.sessionUpdate === "tool_call_update").map((u) => u.status),
      // c1 waits as pending while asked, then runs; c2 is allowed by the remembered answer.
      ["pending", "in_progress", "completed", "completed"],
    );
    // Another session starts with no remembered answers.
    const second = await s.a.request("session/new", { cwd: dir.path, mcpServers: [] });
    await s.a.request("session/prompt", {
      sessionId: second.sessionId,
      prompt: [{ type: "text", text: "patch again" }],
    });
    equal(s.asks.length, 2);
    equal(s.asks[1]?.sessionId, second.sessionId);
  } finally {
    await s.close();
  }
});

Deno.test("createAcpServer() refuses additionalDirectories it does not advertise", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path, []);
  try {
    await s.a.request("initialize", { protocolVersion: 1 });
    await rejects(
      () =>
        s.a.request("session/new", {
          cwd: dir.path,
          mcpServers: [],
          additionalDirectories: ["/elsewhere"],
        }),
      {
        message:
          'Cannot create a session: "additionalDirectories" is not supported: received ["/elsewhere"]; expected none (the workspace is "cwd")',
      },
    );
    const { sessionId } = await s.a.request("session/new", {
      cwd: dir.path,
      mcpServers: [],
      additionalDirectories: [],
    });
    ok(sessionId.length > 0);
  } finally {
    await s.close();
  }
});
