/**
 * Agent loop benches.
 *
 * - "loop step": turns of 1 and 20 tool steps plus a final answer (MockAdapter, log on disk,
 *   fsync at turn end) against the floor of 20 direct `ctx.tools.execute` calls of the same tool.
 *   Loop overhead per step = (turn20 − turn1) / 19 − floor / 20 (the fixed turn cost, fsync
 *   included, cancels out); target < 0.2 ms.
 * - "log append": 1,000 typical events appended to a session log; target ≥ 50k events/s.
 * - "log load": `readSessionLog` of a 100k-event log; target < 2 s.
 *
 * Run: `deno bench -A bench/loop_bench.ts`.
 */
import { createAgent } from "../agent/agent.ts";
import { MockAdapter, textResponse, toolCallResponse } from "../agent/mock_adapter.ts";
import { readSessionLog } from "../agent/read_session_log.ts";
import { SessionLog } from "../agent/session_log.ts";
import { createHarness } from "../mod.ts";

const STEPS = 20;
const dir = await Deno.makeTempDir({ prefix: "dsh_loop_bench_" });
globalThis.addEventListener("unload", () => {
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch {
    // already gone
  }
});

const ctx = await createHarness();
ctx.tools.register({
  name: "echo",
  description: "Echo the text back",
  parameters: { type: "object", properties: { text: { type: "string" } } },
  execute: (args: { text: string }) => [{ type: "text", text: `echo: ${args.text}` }],
});

let sessions = 0;
function script(steps: number) {
  const entries = [];
  for (let i = 0; i < steps; i++) {
    entries.push(toolCallResponse(`c${i}`, "echo", { text: "ping" }));
  }
  entries.push(textResponse("done"));
  return entries;
}

Deno.bench({
  group: "loop step",
  name: `${STEPS} direct ctx.tools.execute calls (floor)`,
  baseline: true,
  async fn() {
    for (let i = 0; i < STEPS; i++) {
      await ctx.tools.execute({ callId: `c${i}`, name: "echo", arguments: { text: "ping" } });
    }
  },
});

for (const steps of [1, STEPS]) {
  Deno.bench({
    group: "loop step",
    name: `agent turn: ${steps} tool step(s) + final answer (MockAdapter, log on disk)`,
    async fn(b) {
      const agent = await createAgent(ctx, {
        adapter: new MockAdapter(script(steps)),
        model: "mock",
        cwd: dir,
        logPath: `${dir}/turn_${++sessions}.jsonl`,
        maxSteps: steps + 1,
      });
      b.start();
      await agent.prompt("go");
      b.end();
      await agent.dispose();
    },
  });
}

const appendLog = await SessionLog.create(`${dir}/append.jsonl`, { id: "append", cwd: dir });
const content = [{ type: "text", text: "echo: ".padEnd(160, "x") }];
globalThis.addEventListener("unload", () => appendLog.close());

Deno.bench({
  group: "log append",
  name: "1,000 tool/result events",
  baseline: true,
  fn() {
    for (let i = 0; i < 1000; i++) {
      appendLog.append("tool/result", {
        turn: 1,
        step: 1,
        callId: `call_${i}`,
        content,
        isError: false,
      });
    }
  },
});

// What the ACP agent writes: signed (a running hash per line, an HMAC checkpoint every 64).
const signedLog = await SessionLog.create(`${dir}/signed.jsonl`, {
  id: "signed",
  cwd: dir,
  key: crypto.getRandomValues(new Uint8Array(32)),
});
globalThis.addEventListener("unload", () => signedLog.close());

Deno.bench({
  group: "log append",
  name: "1,000 tool/result events, signed log",
  fn() {
    for (let i = 0; i < 1000; i++) {
      signedLog.append("tool/result", {
        turn: 1,
        step: 1,
        callId: `call_${i}`,
        content,
        isError: false,
      });
    }
  },
});

const loadPath = `${dir}/load.jsonl`;
const loadKey = crypto.getRandomValues(new Uint8Array(32));
{
  const log = await SessionLog.create(loadPath, { id: "load", cwd: dir, key: loadKey });
  for (let i = 0; i < 100_000; i++) {
    log.append(i % 2 === 0 ? "tool/call" : "tool/result", {
      turn: 1 + Math.floor(i / 100),
      step: 1,
      callId: `call_${i >> 1}`,
      ...(i % 2 === 0
        ? { name: "echo", arguments: '{"text":"ping"}' }
        : { content, isError: false }),
    });
  }
  log.close();
}

Deno.bench({
  group: "log load",
  name: "readSessionLog: 100k events",
  n: 10,
  async fn() {
    const loaded = await readSessionLog(loadPath);
    if (loaded.events.length !== 100_000) throw new Error("bad load");
  },
});

Deno.bench({
  group: "log load",
  name: "SessionLog.open with the key (signatures checked): 100k events",
  n: 10,
  async fn() {
    const { log, loaded } = await SessionLog.open(loadPath, { key: loadKey });
    log.close();
    if (loaded.events.length !== 100_000) throw new Error("bad load");
  },
});
