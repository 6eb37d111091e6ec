import { deepEqual, equal, rejects } from "node:assert/strict";
import {
  MockAdapter,
  multiCall,
  textResponse,
  toolCallResponse,
} from "../../agent/mock_adapter.ts";
import type { ModelRequest, StreamChunk } from "../../agent/model.ts";

function request(signal = new AbortController().signal): ModelRequest {
  return { model: "m", system: "s", messages: [], tools: [], signal };
}

async function collect(iterable: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of iterable) chunks.push(chunk);
  return chunks;
}

Deno.test("MockAdapter.stream() plays entries in order and records requests", async () => {
  const adapter = new MockAdapter([
    textResponse("a"),
    (req) => textResponse(`system=${req.system}`),
  ]);
  deepEqual(await collect(adapter.stream(request())), textResponse("a"));
  const second = await collect(adapter.stream(request()));
  deepEqual(second[0], { type: "text", text: "system=s" });
  equal(adapter.requests.length, 2);
  equal(adapter.remaining, 0);
});

Deno.test("MockAdapter.stream() throws a clear error when the script runs out", async () => {
  const adapter = new MockAdapter([textResponse("a")]);
  await collect(adapter.stream(request()));
  await rejects(
    collect(adapter.stream(request())),
    new Error("MockAdapter: script exhausted after 1 requests"),
  );
});

Deno.test('MockAdapter.stream() with "hang" waits for the abort and rejects with its reason', async () => {
  const controller = new AbortController();
  const adapter = new MockAdapter(["hang", { hangAfter: [{ type: "text", text: "partial" }] }]);
  const reason = new Error("stop");
  const run = collect(adapter.stream(request(controller.signal)));
  controller.abort(reason);
  await rejects(run, (error) => error === reason);
  const second = new AbortController();
  const seen: StreamChunk[] = [];
  const run2 = (async () => {
    for await (const chunk of adapter.stream(request(second.signal))) {
      seen.push(chunk);
      second.abort(reason);
    }
  })();
  await rejects(run2, (error) => error === reason);
  deepEqual(seen, [{ type: "text", text: "partial" }]);
});

Deno.test("toolCallResponse() and multiCall() emit complete calls with raw arguments", () => {
  deepEqual(toolCallResponse("c1", "echo", { text: "ping" }, "calling"), [
    { type: "text", text: "calling" },
    { type: "tool-call", id: "c1", name: "echo", arguments: '{"text":"ping"}' },
    { type: "usage", usage: { inputTokens: 10, outputTokens: 5 } },
    { type: "finish", reason: "tool-calls" },
  ]);
  const chunks = multiCall([
    { id: "a", name: "x", args: { raw: "{not json" } },
    { id: "b", name: "y", args: [1] },
  ]);
  deepEqual(chunks.slice(0, 2), [
    { type: "tool-call", id: "a", name: "x", arguments: "{not json" },
    { type: "tool-call", id: "b", name: "y", arguments: "[1]" },
  ]);
});
