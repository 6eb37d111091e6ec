/** session/load of a session whose log another real process holds names that process. */
import { equal, rejects } from "node:assert/strict";
import { client, ndJsonStream } from "@agentclientprotocol/sdk";
import { MockAdapter } from "../../agent/mod.ts";
import { createHarness } from "../../mod.ts";
import { createAcpServer } from "../../acp/server.ts";
import { SessionLog } from "../../agent/mod.ts";
import { tempDir } from "../_helpers.ts";

const HOLDER = new URL("../agent/_hold_session_log.ts", import.meta.url).pathname;

Deno.test("session/load of a session open in another process says 'in use by pid N'", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/held.jsonl`;
  (await SessionLog.create(path, { id: "held", cwd: dir.path })).close();
  const holder = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", HOLDER, path],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const lines = holder.stdout.pipeThrough(new TextDecoderStream()).getReader();
  equal((await lines.read()).value?.trim(), "open 0");

  const ctx = await createHarness({ logLevel: "error" });
  const app = createAcpServer(ctx, {
    createAdapter: () => new MockAdapter([]),
    model: "mock",
    sessionsDir: dir.path,
  });
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const server = app.connect(toClient.writable, toAgent.readable);
  const connection = client({ name: "test" }).connect(
    ndJsonStream(toAgent.writable, toClient.readable),
  );
  try {
    await connection.agent.request("initialize", { protocolVersion: 1 });
    await rejects(
      connection.agent.request("session/load", {
        sessionId: "held",
        cwd: dir.path,
        mcpServers: [],
      }),
      (error: { code?: number; message?: string }) => {
        equal(error.code, -32603);
        equal(
          error.message,
          `session held in use by pid ${holder.pid}: another agent has its log "${path}" open; close that agent first (the lock file is "${path}.lock")`,
        );
        return true;
      },
    );
  } finally {
    connection.close();
    await connection.closed.catch(() => {});
    await server.close().catch(() => {});
    await ctx.fiber.dispose();
    await holder.stdin.close();
    while (!(await lines.read()).done) { /* drain */ }
    await holder.status;
  }
});
