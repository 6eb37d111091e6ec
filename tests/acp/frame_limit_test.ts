/**
 * An oversized frame (33 MiB, over the 32 MiB limit) on the real agent's stdin gets a JSON-RPC
 * error and the agent stays alive; raw NDJSON on the wire, no SDK client in between.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { DEFAULT_CONFIG } from "../../acp/config.ts";
import { permissionFlags } from "../../acp/permissions.ts";
import { requestIdOf } from "../../acp/_frame_limit.ts";
import { tempDir } from "../_helpers.ts";
import { plainEnv } from "./_snapshot.ts";

const MAIN = new URL("../../acp/main.ts", import.meta.url).pathname;
const encoder = new TextEncoder();

/** A raw NDJSON line reader over the agent's stdout. */
function lineReader(stream: ReadableStream<Uint8Array>) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return async (): Promise<Record<string, unknown>> => {
    for (;;) {
      const index = buffer.indexOf("\n");
      if (index >= 0) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 1);
        return JSON.parse(line);
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`the agent closed stdout; unread: ${buffer.slice(0, 200)}`);
      buffer += value;
    }
  };
}

/** `session/new` padded to `bytes` (with `_meta.pad`). */
function paddedRequest(id: number, cwd: string, bytes: number): Uint8Array {
  const start = `{"jsonrpc":"2.0","id":${id},"method":"session/new","params":{"cwd":${
    JSON.stringify(cwd)
  },"mcpServers":[],"_meta":{"pad":"`;
  const end = `"}}}\n`;
  const line = new Uint8Array(bytes + 1);
  line.set(encoder.encode(start));
  line.fill(0x61, start.length, bytes + 1 - end.length);
  line.set(encoder.encode(end), bytes + 1 - end.length);
  return line;
}

for (const first of [false, true]) {
  const where = first ? "as the very first frame" : "after initialize";
  Deno.test(`agent answers a 33 MiB frame ${where} with a JSON-RPC error and stays alive`, async () => {
    await using dir = await tempDir();
    const cwd = join(dir.path, "ws");
    const sessionsDir = join(dir.path, "sessions");
    await Deno.mkdir(cwd);
    const flags = permissionFlags(DEFAULT_CONFIG, {
      roots: [cwd],
      sessionsDir,
      tmpDir: dir.path,
      useDeepSeek: false,
    });
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--no-prompt", ...flags, MAIN, "--sessions-dir", sessionsDir],
      cwd,
      clearEnv: true,
      env: plainEnv(dir.path),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(child.stderr).text();
    const writer = child.stdin.getWriter();
    const next = lineReader(child.stdout);
    const send = (frame: unknown) => writer.write(encoder.encode(JSON.stringify(frame) + "\n"));
    const size = 33 * 1024 * 1024;
    try {
      if (first) {
        await writer.write(paddedRequest(1, cwd, size));
        const error = await next();
        deepEqual(error.id, 1);
        match(String((error.error as { message: string }).message), /over the agent's/);
      }
      await send({ jsonrpc: "2.0", id: 2, method: "initialize", params: { protocolVersion: 1 } });
      equal((await next()).id, 2);
      await writer.write(paddedRequest(3, cwd, size));
      const error = await next();
      deepEqual(error, {
        jsonrpc: "2.0",
        id: 3,
        error: {
          code: -32600,
          message:
            `Cannot read the message: it is ${size} bytes, over the agent's 33554432-byte limit for one message, so it was dropped; send less in one message (for example, attach large files as resource links)`,
          data: { bytes: size, limit: 33554432 },
        },
      });
      // Still alive: the next request is served.
      await send({
        jsonrpc: "2.0",
        id: 4,
        method: "session/new",
        params: { cwd, mcpServers: [] },
      });
      const created = await next();
      equal(created.id, 4);
      ok(typeof (created.result as { sessionId?: unknown }).sessionId === "string");
      await writer.close();
      equal((await child.status).code, 0, await stderr);
    } finally {
      try {
        child.kill("SIGKILL");
      } catch { /* exited */ }
      await child.status;
      await stderr;
    }
  });
}

Deno.test("requestIdOf() finds a request's id in the head of a cut frame", () => {
  equal(requestIdOf('{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"x":"aaa'), 7);
  equal(requestIdOf('{"method":"x","params":{"id":1},"id":"a\\"b","more'), 'a"b');
  equal(requestIdOf('{"jsonrpc":"2.0","method":"session/cancel","params":{"a'), null);
  equal(requestIdOf('{"jsonrpc":"2.0","id":3,"result":{"a'), null);
  equal(requestIdOf("[1,2"), null);
  equal(requestIdOf('{"params":{"id":9,"method":"m"'), null);
});
