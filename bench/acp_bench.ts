/**
 * ACP bench.
 *
 * - `acp stream`: terminal output streamed through the real bridge (server app → ndjson bytes →
 *   SDK client app, in one process): one `tool_call_update` per chunk with `flushMs: 0`, and the
 *   coalesced default (50 ms). Every run checks that the client received every byte.
 * - `acp start`: spawn `deno run acp/main.ts` → `initialize` response, against the floor of
 *   spawning `deno run` on an empty script.
 *
 * `deno bench -A bench/acp_bench.ts`; `deno run -A bench/acp_bench.ts` prints updates/s and the
 * start-up median directly.
 */
import { client, ndJsonStream } from "@agentclientprotocol/sdk";
import { MockAdapter, multiCall, textResponse } from "../agent/mod.ts";
import { createHarness, defineTool } from "../mod.ts";
import { createAcpServer } from "../acp/server.ts";
import { permissionFlags } from "../acp/permissions.ts";
import { DEFAULT_CONFIG } from "../acp/config.ts";

const CHUNKS = 2000;
const LINE = "0123456789abcdef0123456789abcdef\n";

function pipe(): { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> } {
  return new TransformStream<Uint8Array, Uint8Array>();
}

/** Streams CHUNKS chunks; returns [frames carrying output, bytes received, ms]. */
async function streamRun(flushMs: number): Promise<{ frames: number; bytes: number; ms: number }> {
  const dir = await Deno.makeTempDir({ prefix: "dsh_bench_" });
  const ctx = await createHarness({ logLevel: "error" });
  ctx.tools.register(defineTool({
    name: "stream",
    description: "Streams lines.",
    parameters: {},
    presentCall: () => ({ card: "terminal", title: "stream" }),
    presentResult: () => ({ card: "terminal", exitCode: 0 }),
    async execute(_args, exec) {
      for (let i = 0; i < CHUNKS; i++) {
        exec.output.write(LINE);
        // Yield to the event loop now and then, as a real process pipe does.
        if (i % 100 === 99) await new Promise((r) => setTimeout(r, 0));
      }
      return [{ type: "text", text: "done" }];
    },
  }));
  const adapter = new MockAdapter([
    multiCall([{ id: "c1", name: "stream", args: {} }]),
    textResponse("ok"),
  ]);
  const app = createAcpServer(ctx, {
    createAdapter: () => adapter,
    model: "m",
    sessionsDir: dir,
    flushMs,
  });
  const toClient = pipe();
  const toAgent = pipe();
  const agentConn = app.connect(toClient.writable, toAgent.readable);
  let frames = 0;
  let bytes = 0;
  const clientConn = client({ name: "bench" })
    .onNotification("session/update", ({ params }) => {
      const data = (params.update._meta as { terminal_output?: { data: string } } | undefined)
        ?.terminal_output?.data;
      if (data) {
        frames++;
        bytes += data.length;
      }
    })
    .connect(ndJsonStream(toAgent.writable, toClient.readable));
  const a = clientConn.agent;
  await a.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: { _meta: { terminal_output: true } },
  });
  const { sessionId } = await a.request("session/new", { cwd: dir, mcpServers: [] });
  const t0 = performance.now();
  await a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  const ms = performance.now() - t0;
  clientConn.close();
  await agentConn.close();
  await ctx.fiber.dispose();
  await Deno.remove(dir, { recursive: true });
  if (bytes !== CHUNKS * LINE.length) {
    throw new Error(`Lost bytes: ${bytes} of ${CHUNKS * LINE.length}`);
  }
  return { frames, bytes, ms };
}

const MAIN = new URL("../acp/main.ts", import.meta.url).pathname;
const EMPTY = new URL("data:application/javascript,").href;

async function startRun(script: string, answer: boolean, b?: Deno.BenchContext): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "dsh_bench_" });
  const flags = permissionFlags(DEFAULT_CONFIG, {
    roots: [dir],
    sessionsDir: dir,
    useDeepSeek: false,
  });
  b?.start();
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...flags, script, ...(answer ? ["--sessions-dir", dir] : [])],
    cwd: dir,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}\n',
    ),
  );
  const reader = child.stdout.getReader();
  await reader.read();
  const ms = performance.now() - t0;
  b?.end();
  reader.releaseLock();
  await writer.close();
  await child.stdout.cancel();
  await child.status;
  await Deno.remove(dir, { recursive: true });
  return ms;
}

Deno.bench({
  group: "acp stream",
  name: `${CHUNKS} chunks, flushMs 0 (one update per chunk)`,
  baseline: true,
  n: 5,
  warmup: 1,
}, async () => {
  await streamRun(0);
});
Deno.bench({
  group: "acp stream",
  name: `${CHUNKS} chunks, flushMs 50 (coalesced)`,
  n: 5,
  warmup: 1,
}, async () => {
  await streamRun(50);
});
Deno.bench({
  group: "acp start",
  name: "deno run empty script (floor)",
  baseline: true,
  n: 10,
  warmup: 1,
}, async () => {
  // The floor answers nothing: time to the first stdout read is the process lifetime.
  await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", EMPTY],
    stdout: "null",
    stderr: "null",
  }).output();
});
Deno.bench({
  group: "acp start",
  name: "acp/main.ts spawn → initialize response",
  n: 10,
  warmup: 1,
}, async (b) => {
  await startRun(MAIN, true, b);
});

if (import.meta.main) {
  for (const flushMs of [0, 50]) {
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await streamRun(flushMs));
    const best = runs.reduce((a, b) => (a.ms < b.ms ? a : b));
    console.log(
      `stream flushMs=${flushMs}: ${best.frames} updates, ${best.bytes} bytes (all), ${
        best.ms.toFixed(0)
      } ms → ${(best.frames / (best.ms / 1000)).toFixed(0)} updates/s, ${
        (CHUNKS / (best.ms / 1000)).toFixed(0)
      } chunks/s`,
    );
  }
  const times: number[] = [];
  for (let i = 0; i < 11; i++) times.push(await startRun(MAIN, true));
  times.sort((a, b) => a - b);
  console.log(
    `start → initialize: median ${times[5]!.toFixed(0)} ms (min ${times[0]!.toFixed(0)}, max ${
      times[10]!.toFixed(0)
    })`,
  );
}
