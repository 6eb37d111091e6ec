import { deepEqual, equal, rejects } from "node:assert/strict";
import {
  maxTokensResponse,
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
    new Error("MockAdapter: script exhausted"),
  );
  equal(adapter.requests.length, 2);
});

/** Streams until the first chunk, then aborts; returns what was seen and how the stream ended. */
async function abortAfterFirst(
  adapter: MockAdapter,
  reason: unknown,
): Promise<{ seen: StreamChunk[]; error: unknown }> {
  const controller = new AbortController();
  const seen: StreamChunk[] = [];
  try {
    for await (const chunk of adapter.stream(request(controller.signal))) {
      seen.push(chunk);
      controller.abort(reason);
    }
  } catch (error) {
    return { seen, error };
  }
  return { seen, error: undefined };
}

Deno.test('MockAdapter.stream() with "hang" streams "partial", waits for the abort and rejects with its reason', async () => {
  const reason = new Error("stop");
  const adapter = new MockAdapter([
    "hang",
    "hang-slow",
    { hangAfter: [{ type: "reasoning", text: "r" }] },
  ]);
  for (
    const expected of [[{ type: "text", text: "partial" }], [{ type: "text", text: "partial" }], [{
      type: "reasoning",
      text: "r",
    }]]
  ) {
    const { seen, error } = await abortAfterFirst(adapter, reason);
    deepEqual(seen, expected);
    equal(error, reason);
  }
  equal(adapter.remaining, 0);
});

Deno.test("MockAdapter.stream() rejects at once on a pre-aborted signal and checks the signal before each chunk", async () => {
  const reason = new Error("early");
  const adapter = new MockAdapter([textResponse("abc"), textResponse("xyz")]);
  await rejects(collect(adapter.stream(request(AbortSignal.abort(reason)))), (e) => e === reason);
  const { seen, error } = await abortAfterFirst(adapter, reason);
  equal(seen.length, 1);
  equal(error, reason);
  equal(adapter.requests.length, 2);
});

Deno.test("MockAdapter.push() appends entries and a function entry sees the request", async () => {
  const adapter = new MockAdapter();
  equal(adapter.remaining, 0);
  adapter.push((req) =>
    Promise.resolve(textResponse(`${req.messages.length} messages, model ${req.model}`))
  );
  equal(adapter.remaining, 1);
  const chunks = await collect(adapter.stream(request()));
  deepEqual(chunks[0], { type: "text", text: "0 messages, model m" });
});

Deno.test("textResponse() and maxTokensResponse() emit text, usage 10/length and the finish reason", () => {
  deepEqual(textResponse("hey"), [
    { type: "text", text: "hey" },
    { type: "usage", usage: { inputTokens: 10, outputTokens: 3 } },
    { type: "finish", reason: "stop" },
  ]);
  deepEqual(maxTokensResponse("cu").at(-1), { type: "finish", reason: "max-tokens" });
  deepEqual(maxTokensResponse("cu")[1], {
    type: "usage",
    usage: { inputTokens: 10, outputTokens: 2 },
  });
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
  // No leading text block without text.
  deepEqual(toolCallResponse("c2", "t", {})[0], {
    type: "tool-call",
    id: "c2",
    name: "t",
    arguments: "{}",
  });
});
