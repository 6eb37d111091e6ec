import { deepEqual, equal, ok } from "node:assert/strict";
import { createAgent } from "../../mod.ts";
import {
  deriveMessages,
  MockAdapter,
  readSessionLog,
  textResponse,
  toolCallResponse,
} from "../../agent/mod.ts";
import { createHarness } from "../../mod.ts";
import { defineTool } from "../../mod.ts";
import { tempDir } from "../_helpers.ts";

const WATCHED = [
  "session/event",
  "agent/delta",
  "tool/output",
  "tools/pre-execute",
  "agent/disposed",
];

Deno.test("a long session retains its log's events and nothing per turn besides", async () => {
  await using dir = await tempDir();
  const ctx = await createHarness({ logLevel: "error" });
  ctx.tools.register(defineTool({
    name: "echo",
    description: "Echo.",
    parameters: { text: { type: "string", required: true } },
    execute: (args) => Promise.resolve([{ type: "text", text: `echo ${args.text}` }]),
  }));
  const turns = 300;
  const script = [];
  for (let i = 0; i < turns; i++) {
    script.push(toolCallResponse(`c${i}`, "echo", { text: `t${i}` }), textResponse(`a${i}`));
  }
  const agent = await createAgent(ctx, {
    adapter: new MockAdapter(script),
    model: "mock",
    cwd: dir.path,
    logDir: dir.path,
  });
  const listeners = () => WATCHED.map((event) => ctx.listenerCount(event));
  await agent.prompt("turn 0");
  const perTurn = agent.events.length;
  const before = listeners();
  for (let i = 1; i < turns; i++) await agent.prompt(`turn ${i}`);
  // Exactly what the log holds: the same events, in order, and a fixed number per turn.
  const log = await readSessionLog(`${dir.path}/${agent.sessionId}.jsonl`);
  equal(agent.events.length, perTurn * turns);
  deepEqual(agent.events, log.events);
  // The model's messages are derived from those events (not kept apart), and no listener,
  // hook or pending call accumulates per turn.
  deepEqual(agent.messages(), deriveMessages(log.events));
  deepEqual(listeners(), before);
  await agent.dispose();
  await ctx.fiber.dispose();
});

Deno.test("a long session's heap grows with its log, not faster", async () => {
  await using dir = await tempDir();
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--v8-flags=--expose-gc",
      "--allow-read",
      "--allow-run=ps", // the session lock records this process's start time
      `--allow-write=${dir.path}`,
      "--allow-env",
      new URL("./_long_session.ts", import.meta.url).pathname,
      dir.path,
      "100,400",
    ],
    stderr: "inherit",
  }).output();
  ok(out.success);
  const [early, late] = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    heap: number;
    log: number;
  }[];
  const heapGrowth = late!.heap - early!.heap;
  const logGrowth = late!.log - early!.log;
  // 300 turns of 4 KiB results: the log grows ~1.3 MB; the heap holds those events (and the
  // messages that point at the same content), so it grows by about as much, not by multiples.
  ok(logGrowth > 1_000_000, `log grew ${logGrowth} bytes`);
  ok(heapGrowth < 2.5 * logGrowth, `heap grew ${heapGrowth} bytes for ${logGrowth} of log`);
});
