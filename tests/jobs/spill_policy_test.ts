import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { Context } from "../../core/context.ts";
import { createHarness, toolsPlugin } from "../../registry/tools_plugin.ts";
import type { ToolRegistry } from "../../registry/types.ts";
import type { ToolOutcome } from "../../tools/outcome.ts";
import type { AgentHandle } from "../../tools/definition.ts";
import type { JsonObject } from "../../core/json.ts";
import { jobsPlugin } from "../../jobs/jobs_plugin.ts";
import { cleanupSpillFiles, cutMiddle } from "../../jobs/spill_policy.ts";
import { tempDir } from "../_helpers.ts";

const encoder = new TextEncoder();
const firstText = (outcome: ToolOutcome) => {
  const block = outcome.content[0];
  return block?.type === "text" ? block.text : "";
};
const bytes = (s: string) => encoder.encode(s).length;
const lines = (n: number, width = 20) =>
  Array.from({ length: n }, (_, i) => `${i + 1}:`.padEnd(width, "x")).join("\n") + "\n";

Deno.test("cutMiddle() keeps head and tail, fits the cap and counts exactly what it omitted", () => {
  const full = lines(10_000);
  const cut = cutMiddle(full, 4000, "/spill/full.txt")!;
  ok(bytes(cut.preview) <= 4000);
  const [head, rest] = cut.preview.split(/\[output truncated[^\]]*\]\n/);
  ok(full.startsWith(head!) && full.endsWith(rest!));
  equal(cut.omittedBytes, bytes(full) - bytes(head!) - bytes(rest!));
  equal(cut.totalLines, 10_000);
  equal(cut.wholeLines, true);
  equal(cut.omittedFromLine, head!.split("\n").length);
  equal(cut.omittedToLine, 10_000 - rest!.split("\n").length + 1);
  const keptLines = head!.split("\n").length - 1 + rest!.split("\n").length - 1;
  equal(cut.omittedLines, 10_000 - keptLines);
  equal(cut.omittedLines, cut.omittedToLine - cut.omittedFromLine + 1);
  ok(cut.preview.includes(
    `[output truncated: omitted ${cut.omittedBytes} bytes of ${
      bytes(full)
    } and ${cut.omittedLines} lines of 10000 (lines ${cut.omittedFromLine}–${cut.omittedToLine}). Full result: /spill/full.txt — read it with offset/limit or grep it]`,
  ));
  equal(cutMiddle("short", 4000, "/x"), undefined);
  throws(() => cutMiddle(full, 100, "/x"), {
    name: "RangeError",
    message:
      "Cannot cut text as 'maxBytes' must be an integer of at least 512: current value is 100",
  });
});

Deno.test("cutMiddle() cuts a single huge line on character boundaries", () => {
  const full = "é".repeat(5000);
  const cut = cutMiddle(full, 1000, "/x")!;
  ok(bytes(cut.preview) <= 1000);
  equal(cut.wholeLines, false);
  equal(cut.preview.includes("\uFFFD"), false);
  equal(cut.omittedLines, 1);
  ok(cut.preview.includes(
    `[output truncated: omitted ${cut.omittedBytes} bytes of 10000 from 1 line of 1 (part of line 1)`,
  ));
  const [head, tail] = cut.preview.split(/\n?\[output truncated[^\]]*\]\n/);
  equal(cut.omittedBytes, 10_000 - bytes(head!) - bytes(tail!));
});

Deno.test("spillPolicy() caps any big text result, stores it whole and logs the cut", async () => {
  await using dir = await tempDir();
  const ctx = await createHarness();
  try {
    await ctx.plugin(jobsPlugin, { spill: { maxInlineBytes: 2000, dir: dir.path } }).ready;
    const full = lines(5000);
    const events: [string, JsonObject][] = [];
    const agent: AgentHandle = {
      id: "a",
      sessionId: "s1",
      cwd: "/",
      disposed: false,
      inject() {},
      appendEvent: (type, data) => void events.push([type, data]),
    };
    ctx.plugin({
      name: "big",
      inject: ["tools"],
      apply(plugin) {
        // A raw JSON-Schema tool, as MCP tools are registered.
        plugin.get<typeof ctx.tools>("tools")!.register({
          name: "mcp_dump",
          description: "Dump",
          parameters: { type: "object" },
          execute: (args: { small?: boolean }) => [
            { type: "text", text: args.small ? "tiny" : full },
            { type: "image", mimeType: "image/png", data: "AAAA" },
          ],
        });
      },
    });
    const outcome: ToolOutcome = await ctx.tools.execute({
      callId: "call/1",
      name: "mcp_dump",
      arguments: {},
      agent,
    });
    equal(outcome.content.length, 2);
    equal(outcome.content[1]!.type, "image");
    const preview = firstText(outcome);
    ok(bytes(preview) <= 2000);
    ok(preview.startsWith("1:xxx"));
    ok(preview.endsWith(`5000:${"x".repeat(15)}\n`));
    equal(events.length, 1);
    const [type, data] = events[0]!;
    equal(type, "tool/spill");
    equal(data.callId, "call/1");
    equal(data.totalBytes, bytes(full));
    equal(data.totalLines, 5000);
    ok(preview.includes(
      `omitted ${data.omittedBytes} bytes of ${
        bytes(full)
      } and ${data.omittedLines} lines of 5000 (lines ${data.omittedFromLine}–${data.omittedToLine}). Full result: ${data.path} — `,
    ));
    equal(data.keptBytes, bytes(full) - Number(data.omittedBytes));
    ok(String(data.path).startsWith(`${dir.path}/call_1-`));
    equal(await Deno.readTextFile(String(data.path)), full);

    const small = await ctx.tools.execute({
      callId: "c2",
      name: "mcp_dump",
      arguments: { small: true },
      agent,
    });
    deepEqual(small.content[0], { type: "text", text: "tiny" });
    const nested = await ctx.tools.execute({
      callId: "c3:code:1",
      name: "mcp_dump",
      arguments: {},
      agent,
      parent: Symbol("run_code"),
    });
    equal(firstText(nested), full);
    equal(events.length, 1);
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("cleanupSpillFiles() removes files older than maxAgeMs", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/old.txt`, "old");
  await Deno.writeTextFile(`${dir.path}/new.txt`, "new");
  await Deno.utime(`${dir.path}/old.txt`, new Date(1_000_000), new Date(1_000_000));
  equal(await cleanupSpillFiles(dir.path, { maxAgeMs: 60_000 }), 1);
  deepEqual([...Deno.readDirSync(dir.path)].map((e) => e.name), ["new.txt"]);
});

Deno.test("the jobs plugin installs the spill policy on a tool registry provided after it", async () => {
  await using dir = await tempDir();
  const root = new Context({ logSink: () => {} });
  try {
    await root.plugin(jobsPlugin, { spill: { maxInlineBytes: 1000, dir: dir.path } }).ready;
    await root.plugin(toolsPlugin).ready;
    const tools = root.get<ToolRegistry>("tools")!;
    tools.register({
      name: "dump",
      description: "Dump",
      parameters: { type: "object" },
      execute: () => [{ type: "text", text: lines(500) }],
    });
    const outcome = await tools.execute({ callId: "c1", name: "dump", arguments: {} });
    ok(bytes(firstText(outcome)) <= 1000);
    const [spilled] = [...Deno.readDirSync(dir.path)];
    equal(Deno.readTextFileSync(`${dir.path}/${spilled!.name}`), lines(500));
  } finally {
    await root.fiber.dispose();
  }
});
