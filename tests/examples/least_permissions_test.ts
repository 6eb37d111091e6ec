/**
 * Least permissions, from a consumer project: a pure tool tested through `MockAdapter` needs no
 * permission at all with the in-memory log, and only its folder with a log on disk (no process
 * table: nothing starts a process).
 *
 * @module
 */
import { ok } from "node:assert/strict";
import { assertRan, consumerProject, runShown } from "./_consumer.ts";

const PURE_TOOL_TEST = `import { deepEqual, equal } from "node:assert/strict";
import { createAgent, createHarness, defineTool } from "@dsh/harness";
import { eventOfType } from "@dsh/harness/testing";
import { MockAdapter, textResponse, toolCallResponse } from "@dsh/harness/agent";

const upper = defineTool({
  name: "upper",
  description: "Upper-case a text.",
  parameters: { text: { type: "string", required: true } },
  execute: (args) => [{ type: "text", text: args.text.toUpperCase() }],
});

Deno.test("a pure tool through MockAdapter", async () => {
  const ctx = await createHarness();
  ctx.tools.register(upper);
  const adapter = new MockAdapter([toolCallResponse("c1", "upper", { text: "hi" }), textResponse("HI")]);
  const logDir = Deno.args[0];
  const agent = await createAgent(ctx, {
    adapter,
    model: "mock",
    cwd: "/",
    ...(logDir === undefined ? { inMemoryLog: true } : { logDir }),
  });
  try {
    equal((await agent.prompt("shout")).stopReason, "end_turn");
    deepEqual(eventOfType(agent.events, "tool/result").content, [{ type: "text", text: "HI" }]);
  } finally {
    await agent.dispose();
    await ctx.fiber.dispose();
  }
});
`;

Deno.test("a pure tool's MockAdapter test runs under plain `deno test`, with no permission", async () => {
  await using consumer = await consumerProject({ strict: false });
  await consumer.write("upper_test.ts", PURE_TOOL_TEST);
  const run = await runShown(consumer.dir, {
    text: "deno test upper_test.ts",
    env: {},
    argv: ["deno", "test", "upper_test.ts"],
  });
  assertRan(run, "deno test upper_test.ts");
  ok(run.stdout.includes("ok | 1 passed"), run.stdout);
});

Deno.test("with a session log on disk it needs read and write on that folder only (no ps)", async () => {
  await using consumer = await consumerProject({ strict: false });
  await consumer.write("upper_test.ts", PURE_TOOL_TEST);
  const command =
    "deno test --allow-read=sessions --allow-write=sessions upper_test.ts -- sessions";
  const run = await runShown(consumer.dir, {
    text: command,
    env: {},
    argv: command.split(" "),
  });
  assertRan(run, command);
  let logs = 0;
  for await (const entry of Deno.readDir(`${consumer.dir}/sessions`)) {
    if (entry.name.endsWith(".jsonl")) logs++;
    ok(!entry.name.endsWith(".lock"), `the lock ${entry.name} was released`);
  }
  ok(logs === 1, `one session log in sessions/ (found ${logs})`);
});
