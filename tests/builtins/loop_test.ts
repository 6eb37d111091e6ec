import { deepEqual, equal, ok } from "node:assert/strict";
import { createAgent } from "../../agent/agent.ts";
import { MockAdapter, textResponse, toolCallResponse } from "../../agent/mock_adapter.ts";
import type { SessionEvent } from "../../agent/session_event.ts";
import { bashPlugin } from "../../builtins/bash.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import { fsPlugin } from "../../builtins/fs_plugin.ts";
import { readBeforeEditPlugin } from "../../builtins/read_before_edit.ts";
import { createHarness } from "../../mod.ts";
import { tempDir } from "../_helpers.ts";

Deno.test("builtins run through the agent loop with tool/call, fs/observed and tool/result events", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/notes.txt`, "draft\n");
  const ctx = await createHarness();
  await ctx.plugin(bashPlugin, { executor: new LocalExecutor() }).ready;
  await ctx.plugin(fsPlugin).ready;
  await ctx.plugin(readBeforeEditPlugin).ready;
  const adapter = new MockAdapter([
    toolCallResponse("c1", "edit", {
      file_path: "notes.txt",
      old_string: "draft",
      new_string: "final",
    }),
    toolCallResponse("c2", "read", { file_path: "notes.txt" }),
    toolCallResponse("c3", "edit", {
      file_path: "notes.txt",
      old_string: "draft",
      new_string: "final",
    }),
    toolCallResponse("c4", "bash", { command: "cat notes.txt; exit 2" }),
    textResponse("done"),
  ]);
  const agent = await createAgent(ctx, { adapter, model: "mock", cwd: dir.path, logDir: dir.path });
  try {
    await agent.prompt("finish the notes");
    const events = agent.events as readonly SessionEvent[];
    const tools = events.filter((e) => e.type.startsWith("tool/") || e.type === "fs/observed")
      .map((e) => {
        const data = e as unknown as Record<string, unknown>;
        return [e.type, data.callId ?? data.path, data.isError];
      });
    const path = `${dir.path}/notes.txt`;
    deepEqual(tools, [
      ["tool/call", "c1", undefined],
      ["tool/result", "c1", true],
      ["tool/call", "c2", undefined],
      ["fs/observed", "c2", undefined],
      ["tool/result", "c2", false],
      ["tool/call", "c3", undefined],
      ["fs/observed", "c3", undefined],
      ["tool/result", "c3", false],
      ["tool/call", "c4", undefined],
      ["tool/result", "c4", false],
    ]);
    const result = (id: string) =>
      events.find((e) =>
        e.type === "tool/result" && (e as unknown as { callId: string }).callId === id
      ) as unknown as {
        content: { text: string }[];
        meta?: unknown;
      };
    equal(result("c1").content[0]?.text, `Error: edit requires reading "${path}" first`);
    deepEqual(result("c3").meta, {
      path,
      operation: "update",
      diffs: [{ path, oldText: "draft", newText: "final" }],
    });
    equal(result("c4").content[0]?.text, "final\n[exit code: 2]");
    deepEqual(result("c4").meta, { outputChars: 5, outputNewline: true, exitCode: 2 });
    ok(adapter.requests.length === 5);
  } finally {
    await agent.dispose();
    await ctx.fiber.dispose();
  }
});
