/**
 * Private to bench/editor_bench.ts: a new conversation through the public API (`createAgent` +
 * MockAdapter: one tool step and the answer, the durable signed log on disk, as the ACP agent
 * keeps it) against the AI SDK's `generateText` with its mock model (the same tool step and
 * answer, no log), in the same process and run. Timed to the answer (what the user waits for),
 * and through `dispose()`, which waits for the turn's fsync.
 *
 * @module
 */
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { createAgent, createHarness, defineTool } from "../mod.ts";
import { MockAdapter, textResponse, toolCallResponse } from "../agent/mod.ts";
import { fmt, median } from "./_editor_client.ts";

const p10 = (values: number[]) => [...values].sort((x, y) => x - y)[values.length >> 3]!;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

type Row = (name: string, value: string, floor?: string, ratio?: string) => void;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

function aiModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: [
      {
        content: [{
          type: "tool-call",
          toolCallId: "c1",
          toolName: "echo",
          input: '{"text":"hi"}',
        }],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text", text: "done" }],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      },
    ],
  });
}

const aiTools = {
  echo: tool({
    description: "Echo the text back",
    inputSchema: z.object({ text: z.string() }),
    execute: ({ text }) => Promise.resolve(`echo: ${text}`),
  }),
};

/** Times `n` conversations each way (interleaved in rounds) and prints the two rows. */
export async function conversationRows(row: Row, n: number): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "dsh_editor_conv_" });
  const ctx = await createHarness({ logLevel: "error" });
  ctx.tools.register(defineTool({
    name: "echo",
    description: "Echo the text back",
    parameters: { text: { type: "string", required: true } },
    execute: (args) => Promise.resolve([{ type: "text", text: `echo: ${args.text}` }]),
  }));
  const logKey = crypto.getRandomValues(new Uint8Array(32));
  const dsh: number[] = [];
  const whole: number[] = [];
  const ai: number[] = [];
  const one = async () => {
    const t0 = performance.now();
    const agent = await createAgent(ctx, {
      adapter: new MockAdapter([
        toolCallResponse("c1", "echo", { text: "hi" }),
        textResponse("done"),
      ]),
      model: "mock",
      cwd: dir,
      logDir: dir,
      logKey,
    });
    await agent.prompt("go");
    dsh.push(performance.now() - t0); // the answer is out; the turn's fsync may still run
    await agent.dispose(); // waits for it
    whole.push(performance.now() - t0);
  };
  const other = async () => {
    const t0 = performance.now();
    await generateText({
      model: aiModel(),
      tools: aiTools,
      stopWhen: stepCountIs(2),
      prompt: "go",
    });
    ai.push(performance.now() - t0);
  };
  for (let i = 0; i < 50; i++) await Promise.all([one(), other()]); // warm-up
  dsh.length = whole.length = ai.length = 0;
  for (let i = 0; i < n; i++) {
    await one();
    await other();
  }
  const a = median(dsh);
  const b = median(ai);
  const c = median(whole);
  const versus = `generateText ${fmt(b)}`;
  row("conversation: createAgent → answer (1 tool step, signed log)", fmt(a), versus, ratio(a, b));
  row("same, through dispose (the turn's fsync done)", fmt(c), versus, ratio(c, b));
  // The disk is shared with other work: the fastest tenth shows the cost without waiting on it.
  const [a10, b10] = [p10(dsh), p10(ai)];
  row("conversation → answer, p10", fmt(a10), `generateText p10 ${fmt(b10)}`, ratio(a10, b10));
  await ctx.fiber.dispose();
  await Deno.remove(dir, { recursive: true });
}
