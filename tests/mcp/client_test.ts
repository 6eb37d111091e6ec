import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { McpClient } from "../../mcp/client.ts";
import { HarnessError } from "../../core/errors.ts";
import { EVERYTHING, EVERYTHING_BIN, isGone } from "./_server.ts";
import { tempDir } from "../_helpers.ts";

Deno.test("McpClient lists tools with their schemas and calls them", async () => {
  const client = await McpClient.connect("everything", EVERYTHING);
  try {
    const tools = await client.listTools();
    const echo = tools.find((tool) => tool.name === "echo");
    ok(echo);
    deepEqual(echo.inputSchema.required, ["message"]);
    equal(echo.readOnly, true);
    equal(tools.some((tool) => tool.name === "simulate-research-query"), false);
    const signal = new AbortController().signal;
    deepEqual(await client.callTool("get-sum", { a: 2, b: 40 }, { signal }), {
      content: [{ type: "text", text: "The sum of 2 and 40 is 42." }],
    });
  } finally {
    await client.close();
  }
});

Deno.test("McpClient.close() stops the server process", async () => {
  const client = await McpClient.connect("everything", EVERYTHING);
  const pid = client.pid;
  ok(pid !== undefined);
  equal(await isGone(pid), false);
  await client.close();
  equal(await isGone(pid), true);
});

Deno.test("McpClient.callTool() rejects with the abort reason and reports progress", async () => {
  const client = await McpClient.connect("everything", EVERYTHING);
  try {
    const controller = new AbortController();
    const progress: number[] = [];
    const reason = new DOMException("user cancelled", "AbortError");
    const call = client.callTool("trigger-long-running-operation", { duration: 1, steps: 10 }, {
      signal: controller.signal,
      onProgress: (p) => {
        progress.push(p.progress);
        if (progress.length === 2) controller.abort(reason);
      },
    });
    await rejects(call, (error) => error === reason);
    deepEqual(progress, [1, 2]);
    const signal = new AbortController().signal;
    const echo = await client.callTool("echo", { message: "still here" }, { signal });
    deepEqual(echo.content, [{ type: "text", text: "Echo: still here" }]);
  } finally {
    await client.close();
  }
});

Deno.test("McpClient.callTool() fails with MCP_SERVER_EXITED when the server dies mid-call", async () => {
  const closed = Promise.withResolvers<string>();
  const client = await McpClient.connect("everything", EVERYTHING, { onClose: closed.resolve });
  try {
    const signal = new AbortController().signal;
    const call = client.callTool("trigger-long-running-operation", { duration: 30, steps: 300 }, {
      signal,
      onProgress: (p) => p.progress === 1 && Deno.kill(client.pid!, "SIGKILL"),
    });
    await rejects(call, (error) => {
      ok(error instanceof HarnessError);
      equal(error.code, "MCP_SERVER_EXITED");
      equal(
        error.message,
        'MCP server "everything" was killed by SIGKILL during the call to "trigger-long-running-operation"; its tools are unavailable until it restarts',
      );
      return true;
    });
    equal(await closed.promise, "was killed by SIGKILL");
  } finally {
    await client.close();
  }
});

Deno.test("McpClient.callTool() abort sends notifications/cancelled to the server", async () => {
  await using dir = await tempDir();
  const log = `${dir.path}/stdin.jsonl`;
  // `tee` records every message the server receives on stdin.
  const client = await McpClient.connect("everything", {
    command: "sh",
    args: ["-c", 'tee "$0" | exec node "$1" stdio', log, EVERYTHING_BIN],
  });
  try {
    const controller = new AbortController();
    const call = client.callTool("trigger-long-running-operation", { duration: 1, steps: 10 }, {
      signal: controller.signal,
      onProgress: () => controller.abort(new DOMException("stop", "AbortError")),
    });
    await rejects(call, { name: "AbortError", message: "stop" });
    const signal = new AbortController().signal;
    await client.callTool("echo", { message: "flush" }, { signal });
    const received = (await Deno.readTextFile(log)).trim().split("\n").map((line) =>
      JSON.parse(line)
    );
    const request = received.find((m) => m.params?.name === "trigger-long-running-operation");
    const cancelled = received.find((m) => m.method === "notifications/cancelled");
    ok(request && cancelled);
    equal(cancelled.params.requestId, request.id);
    equal(cancelled.params.reason, "AbortError: stop");
  } finally {
    await client.close();
  }
});

/** A port nothing listens on now (the kernel picks it), instead of a random guess. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

Deno.test("McpClient connects over streamable HTTP", async () => {
  const port = freePort();
  const server = new Deno.Command("node", {
    args: [EVERYTHING_BIN, "streamableHttp"],
    env: { PORT: String(port) },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = server.stderr.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let seen = "";
    while (!seen.includes("listening on port")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`server exited: ${seen}`);
      seen += value;
    }
    const client = await McpClient.connect("web", { url: `http://127.0.0.1:${port}/mcp` });
    try {
      const signal = new AbortController().signal;
      const result = await client.callTool("echo", { message: "over http" }, { signal });
      deepEqual(result.content, [{ type: "text", text: "Echo: over http" }]);
      ok((await client.listTools()).some((tool) => tool.name === "get-sum"));
    } finally {
      await client.close();
    }
  } finally {
    server.kill("SIGTERM");
    await reader.cancel();
    await server.status;
  }
});

Deno.test("McpClient.close() also stops processes started by a wrapper command", async () => {
  // `sh` keeps a child `node` (no exec), the way `npx` wraps a server.
  const client = await McpClient.connect("wrapped", {
    command: "sh",
    args: ["-c", 'node "$0" stdio; true', EVERYTHING_BIN],
  });
  const shell = client.pid!;
  const children = (await Deno.readTextFile(`/proc/${shell}/task/${shell}/children`)).trim().split(
    " ",
  )
    .map(Number);
  equal(children.length, 1);
  const signal = new AbortController().signal;
  // Keep the server busy so that stdin EOF alone does not end it.
  void client.callTool("trigger-long-running-operation", { duration: 30, steps: 1 }, { signal })
    .catch(() => {});
  await client.close();
  equal(await isGone(shell), true);
  equal(await isGone(children[0]!), true);
});

Deno.test({
  name: "McpClient.connect() names the missing --allow-run permission",
  permissions: { read: true, env: true, sys: true, run: false },
  async fn() {
    await rejects(McpClient.connect("everything", EVERYTHING), {
      name: "HarnessError",
      code: "PERMISSION_DENIED",
      message:
        'Cannot connect to MCP server "everything": Deno denied it: add --allow-run=node to the deno command',
    });
  },
});

Deno.test("McpClient.connect() says when the server command is not on PATH", async () => {
  await rejects(McpClient.connect("ghost", { command: "dsh-no-such-mcp-server" }), {
    name: "HarnessError",
    code: "SPAWN_FAILED",
    message:
      'Cannot connect to MCP server "ghost": command "dsh-no-such-mcp-server" was not found on PATH',
  });
});
