import { equal, match, rejects } from "node:assert/strict";
import { AssertionError } from "node:assert";
import { assertAcpSnapshot, messagesOfRole } from "../../testing/mod.ts";
import { textResponse, toolCallResponse } from "../../agent/mod.ts";
import { tempDir } from "../_helpers.ts";
import * as wordCount from "./_word_count.ts";

const SCRIPT = [
  toolCallResponse("c1", "word_count", { text: "one two three" }),
  textResponse("3 words"),
];

Deno.test("assertAcpSnapshot() matches the stored transcript of a zod tool's cards", async () => {
  const run = await assertAcpSnapshot(new URL("./snapshots/word_count.jsonl", import.meta.url), {
    plugins: [wordCount],
    script: SCRIPT,
  });
  const card = run.transcript.find((line) => line.includes('"sessionUpdate":"tool_call"'));
  match(card ?? "", /"title":"Count words of \\"one two three\\""/);
  equal(messagesOfRole(run.requests[1]!, "tool")[0]?.content[0]?.type, "text");
});

Deno.test("assertAcpSnapshot() records with DSH_UPDATE_SNAPSHOTS=1, then detects a change", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/nested/word_count.jsonl`;
  const recorded = await assertAcpSnapshot(file, { plugins: [wordCount], script: SCRIPT }, {
    update: true,
  });
  equal(await Deno.readTextFile(file), recorded.transcript.join("\n") + "\n");
  await assertAcpSnapshot(file, { plugins: [wordCount], script: SCRIPT });
  await rejects(
    () =>
      assertAcpSnapshot(file, {
        plugins: [wordCount],
        script: [toolCallResponse("c1", "word_count", { text: "one two" }), textResponse("2")],
      }),
    (error: unknown) => {
      equal(error instanceof AssertionError, true);
      match(
        (error as Error).message,
        /^The ACP transcript differs from ".*word_count\.jsonl" \(re-record it with DSH_UPDATE_SNAPSHOTS=1/,
      );
      return true;
    },
  );
});

Deno.test("assertAcpSnapshot() says how to record a missing transcript", async () => {
  await using dir = await tempDir();
  await rejects(
    () => assertAcpSnapshot(`${dir.path}/none.jsonl`, { plugins: [wordCount], script: SCRIPT }),
    {
      message:
        `Cannot compare the ACP snapshot: no transcript at "${dir.path}/none.jsonl": run the test once with DSH_UPDATE_SNAPSHOTS=1 to record it`,
    },
  );
});

Deno.test("assertAcpSnapshot() fails when script entries are left unused", async () => {
  await using dir = await tempDir();
  await rejects(
    () =>
      assertAcpSnapshot(`${dir.path}/x.jsonl`, {
        plugins: [wordCount],
        script: [textResponse("hi"), textResponse("unused")],
      }),
    {
      message:
        "Cannot run the ACP snapshot scenario: 1 script entry was left unused: the model was asked 1 time(s)",
    },
  );
});

Deno.test("assertAcpSnapshot() answers permission prompts in order", async () => {
  await using dir = await tempDir();
  const run = await assertAcpSnapshot(`${dir.path}/ask.jsonl`, {
    plugins: [wordCount],
    setup(ctx) {
      ctx.on("tools/pre-execute", () => ({ kind: "ask", reason: "count words?" }));
    },
    script: [
      toolCallResponse("c1", "word_count", { text: "a b" }),
      toolCallResponse("c2", "word_count", { text: "a b c" }),
      textResponse("done"),
    ],
    permissionAnswers: ["allow_once", "reject_once"],
  }, { update: true });
  const asks = run.transcript.filter((line) => line.includes('"session/request_permission"'));
  equal(asks.length, 2);
  const results = messagesOfRole(run.requests[2]!, "tool").map((m) => m.isError);
  equal(JSON.stringify(results), "[false,true]");
});
