import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { DeepSeekAdapter } from "../../agent/deepseek.ts";
import type { ModelRequest, StreamChunk } from "../../agent/model.ts";
import { ModelRequestError } from "../../agent/model_request_error.ts";

const ENCODER = new TextEncoder();

/** One scripted HTTP answer of the loopback server. */
type Reply = (request: Request, body: unknown) => Response | Promise<Response>;

/** A real HTTP server on loopback that answers requests with the scripted replies in order. */
function serve(replies: Reply[]) {
  const requests: { headers: Headers; body: unknown }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = await request.json();
      requests.push({ headers: request.headers, body });
      const reply = replies.shift();
      if (!reply) return new Response("no reply scripted", { status: 599 });
      return reply(request, body);
    },
  );
  const { port } = server.addr as Deno.NetAddr;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

/** SSE text for data events (and raw lines such as comments). */
function sse(events: (unknown | { raw: string })[]): string {
  return events.map((event) =>
    typeof event === "object" && event !== null && "raw" in event
      ? `${(event as { raw: string }).raw}\n`
      : `data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`
  ).join("");
}

/**
 * A raw HTTP/1.1 server on loopback that answers each connection with a chunked SSE body and then
 * closes the socket without the final chunk: a stream cut mid-way, as a proxy reset produces.
 */
function cutServer(bodies: string[]) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let connections = 0;
  const done = (async () => {
    for await (const conn of listener) {
      connections++;
      const body = bodies.shift() ?? "";
      // Read the whole request (headers + content-length body) before answering.
      const buffer = new Uint8Array(65536);
      let received = "";
      while (true) {
        const n = await conn.read(buffer);
        if (n === null) break;
        received += new TextDecoder().decode(buffer.subarray(0, n));
        const end = received.indexOf("\r\n\r\n");
        if (end === -1) continue;
        const length = Number(/content-length: (\d+)/i.exec(received)?.[1] ?? 0);
        if (new TextEncoder().encode(received.slice(end + 4)).length >= length) break;
      }
      const bytes = ENCODER.encode(body);
      await conn.write(ENCODER.encode(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n" +
          `${bytes.length.toString(16)}\r\n`,
      ));
      await conn.write(bytes);
      await conn.write(ENCODER.encode("\r\n"));
      conn.close();
    }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      await done.catch(() => {});
    },
  };
}

/** Streams bytes in pieces of `size` bytes (so multi-byte characters get split). */
function byteStream(text: string, size: number): Response {
  const bytes = ENCODER.encode(text);
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

function chunk(delta: unknown, finish: string | null = null): unknown {
  return {
    id: "x",
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

function request(signal = new AbortController().signal): ModelRequest {
  return {
    model: "deepseek-flash",
    system: "be brief",
    messages: [
      { role: "user", content: [{ type: "text", text: "hi" }] },
      {
        role: "assistant",
        content: [{ type: "text", text: "ok" }, {
          type: "tool-call",
          id: "c0",
          name: "echo",
          arguments: "{}",
        }],
      },
      { role: "tool", callId: "c0", content: [{ type: "text", text: "done" }], isError: false },
    ],
    tools: [{ name: "echo", description: "Echo.", parameters: { type: "object" } }],
    signal,
  };
}

async function collect(iterable: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of iterable) chunks.push(chunk);
  return chunks;
}

function adapter(baseUrl: string, sleeps: number[] = []): DeepSeekAdapter {
  return new DeepSeekAdapter({
    apiKey: "sk-test",
    baseUrl,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  });
}

Deno.test("DeepSeekAdapter.stream() assembles tool calls split anywhere, reasoning and usage", async () => {
  const args = '{"text":"héllo 🚀 wörld","n":1}';
  const text = sse([
    { raw: ": keep-alive" },
    { raw: "" },
    chunk({ role: "assistant", content: null, reasoning_content: "think" }),
    chunk({ reasoning_content: "ing" }),
    chunk({ content: "Calling" }),
    chunk({
      tool_calls: [{
        index: 0,
        id: "call_a",
        type: "function",
        function: { name: "echo", arguments: "" },
      }],
    }),
    // Arguments cut inside the emoji's surrogate pair, sent as \u escapes in two deltas.
    {
      raw:
        `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"text\\":\\"héllo \\ud83d"}}]},"finish_reason":null}]}\n`,
    },
    chunk({
      tool_calls: [{
        index: 1,
        id: "call_b",
        type: "function",
        function: { name: "echo", arguments: '{"te' },
      }],
    }),
    {
      raw:
        `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\ude80 wörld\\",\\"n\\":1}"}}]},"finish_reason":null}]}\n`,
    },
    { raw: ": keep-alive" },
    { raw: "" },
    chunk({ tool_calls: [{ index: 1, function: { arguments: 'xt":"b"}' } }] }),
    chunk({}, "tool_calls"),
    {
      choices: [],
      usage: {
        prompt_tokens: 100,
        completion_tokens: 20,
        prompt_cache_hit_tokens: 64,
        prompt_cache_miss_tokens: 36,
      },
    },
    "[DONE]",
  ]);
  await using server = serve([() => byteStream(text, 7)]);
  const chunks = await collect(adapter(server.baseUrl).stream(request()));
  deepEqual(chunks, [
    { type: "reasoning", text: "think" },
    { type: "reasoning", text: "ing" },
    { type: "text", text: "Calling" },
    { type: "tool-call", id: "call_a", name: "echo", arguments: args },
    { type: "tool-call", id: "call_b", name: "echo", arguments: '{"text":"b"}' },
    {
      type: "usage",
      usage: { inputTokens: 100, outputTokens: 20, cacheHitTokens: 64, cacheMissTokens: 36 },
    },
    { type: "finish", reason: "tool-calls" },
  ]);
  const sent = server.requests[0]!;
  equal(sent.headers.get("authorization"), "Bearer sk-test");
  deepEqual(sent.body, {
    model: "deepseek-flash",
    messages: [
      { role: "system", content: "be brief" },
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: "ok",
        // Thinking mode (the default): a tool-call message always carries reasoning_content.
        reasoning_content: "",
        tool_calls: [{ id: "c0", type: "function", function: { name: "echo", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c0", content: "done" },
    ],
    tools: [{
      type: "function",
      function: { name: "echo", description: "Echo.", parameters: { type: "object" } },
    }],
    thinking: { type: "enabled" },
    stream: true,
    stream_options: { include_usage: true },
  });
});

Deno.test("DeepSeekAdapter.stream() keeps multi-byte text split across network chunks", async () => {
  const text = sse([chunk({ content: "日本語のテキスト" }), chunk({}, "stop"), "[DONE]"]);
  await using server = serve([() => byteStream(text, 1)]);
  const chunks = await collect(adapter(server.baseUrl).stream(request()));
  deepEqual(chunks, [{ type: "text", text: "日本語のテキスト" }, {
    type: "finish",
    reason: "stop",
  }]);
});

Deno.test("DeepSeekAdapter.stream() maps finish reasons", async (t) => {
  for (
    const [wire, reason] of [
      ["stop", "stop"],
      ["length", "max-tokens"],
      ["content_filter", "content-filter"],
      ["insufficient_system_resource", "error"],
    ] as const
  ) {
    await t.step(wire, async () => {
      await using server = serve([
        () => byteStream(sse([chunk({ content: "a" }, wire), "[DONE]"]), 64),
      ]);
      const chunks = await collect(adapter(server.baseUrl).stream(request()));
      const finish = chunks.at(-1);
      equal(finish?.type === "finish" && finish.reason, reason);
    });
  }
});

Deno.test("DeepSeekAdapter.stream() retries 429 honouring Retry-After, then succeeds", async () => {
  const sleeps: number[] = [];
  await using server = serve([
    () =>
      new Response('{"error":{"message":"rate limited"}}', {
        status: 429,
        headers: { "retry-after": "2" },
      }),
    () => new Response("upstream down", { status: 503 }),
    () => byteStream(sse([chunk({ content: "ok" }, "stop"), "[DONE]"]), 64),
  ]);
  const chunks = await collect(adapter(server.baseUrl, sleeps).stream(request()));
  deepEqual(chunks, [
    {
      type: "retry",
      attempt: 2,
      maxAttempts: 4,
      delayMs: 2000,
      status: 429,
      message: "DeepSeek busy (HTTP 429), retrying in 2 s (attempt 2 of 4)",
    },
    {
      type: "retry",
      attempt: 3,
      maxAttempts: 4,
      delayMs: 2000,
      status: 503,
      message: "DeepSeek busy (HTTP 503), retrying in 2 s (attempt 3 of 4)",
    },
    { type: "text", text: "ok" },
    { type: "finish", reason: "stop" },
  ]);
  deepEqual(sleeps, [2000, 2000]);
  equal(server.requests.length, 3);
});

Deno.test("DeepSeekAdapter.stream() gives up after maxRetries 5xx with the server message", async () => {
  await using server = serve([
    () => new Response('{"error":{"message":"busy"}}', { status: 500 }),
    () => new Response('{"error":{"message":"still busy"}}', { status: 500 }),
  ]);
  const ds = new DeepSeekAdapter({
    apiKey: "k",
    baseUrl: server.baseUrl,
    maxRetries: 1,
    sleep: () => Promise.resolve(),
  });
  await rejects(collect(ds.stream(request())), (error: unknown) => {
    ok(error instanceof ModelRequestError);
    equal(error.message, "DeepSeek request failed with HTTP 500 after 2 attempts: still busy");
    equal(error.status, 500);
    equal(error.retryable, true);
    return true;
  });
});

Deno.test("DeepSeekAdapter.stream() throws a clear error on 401, 400 and 402 without retrying", async (t) => {
  for (
    const [status, message, expected] of [
      [
        401,
        "Authentication Fails (no such user)",
        "HTTP 401 (authentication failed; check DEEPSEEK_API_KEY): Authentication Fails (no such user)",
      ],
      [400, "Invalid max_tokens", "HTTP 400 (invalid request): Invalid max_tokens"],
      [
        400,
        "Model Not Exist",
        'HTTP 400 (invalid request): Model Not Exist; the model id "deepseek-flash" was rejected: current DeepSeek models are "deepseek-flash", "deepseek-v4-pro", "deepseek-v4-flash" ("deepseek-flash" is recommended, "deepseek-v4-flash" is its alias; "deepseek-chat" and "deepseek-reasoner" were retired on 2026-07-24); set model.model in dsh.jsonc or DEEPSEEK_MODEL',
      ],
      [402, "Insufficient Balance", "HTTP 402 (insufficient balance): Insufficient Balance"],
    ] as const
  ) {
    await t.step(`${status}`, async () => {
      await using server = serve([
        () => new Response(JSON.stringify({ error: { message, type: "x" } }), { status }),
      ]);
      await rejects(collect(adapter(server.baseUrl).stream(request())), (error: unknown) => {
        ok(error instanceof ModelRequestError);
        equal(error.message, `DeepSeek request failed with ${expected}`);
        equal(error.status, status);
        equal(error.retryable, false);
        return true;
      });
      equal(server.requests.length, 1);
    });
  }
});

Deno.test("DeepSeekAdapter.stream() does not retry a stream cut after output", async () => {
  await using server = cutServer([sse([chunk({ content: "partial" })])]);
  const seen: StreamChunk[] = [];
  await rejects(
    (async () => {
      for await (const c of adapter(server.baseUrl).stream(request())) seen.push(c);
    })(),
    (error: unknown) => {
      ok(error instanceof ModelRequestError);
      match(error.message, /^DeepSeek stream failed: /);
      return true;
    },
  );
  deepEqual(seen, [{ type: "text", text: "partial" }]);
  equal(server.connections, 1);
});

Deno.test("DeepSeekAdapter.stream() reports a stream that ends without a finish", async () => {
  await using server = serve([() => byteStream(sse([chunk({ content: "half" })]), 64)]);
  await rejects(
    collect(adapter(server.baseUrl).stream(request())),
    (error: unknown) => {
      ok(error instanceof ModelRequestError);
      equal(error.message, "DeepSeek stream ended before the answer finished");
      return true;
    },
  );
  equal(server.requests.length, 1);
});

Deno.test("DeepSeekAdapter.stream() retries a stream cut before any output", async () => {
  await using server = cutServer([
    sse([{ raw: ": keep-alive" }, { raw: "" }]),
    sse([chunk({ content: "ok" }, "stop"), "[DONE]"]),
  ]);
  const chunks = await collect(adapter(server.baseUrl).stream(request()));
  deepEqual(chunks, [
    {
      type: "retry",
      attempt: 2,
      maxAttempts: 4,
      delayMs: 1000,
      message: "DeepSeek stream broke before any output, retrying in 1 s (attempt 2 of 4)",
    },
    { type: "text", text: "ok" },
    { type: "finish", reason: "stop" },
  ]);
  equal(server.connections, 2);
});

Deno.test("DeepSeekAdapter.stream() rejects with the abort reason when the caller aborts a slow stream", async () => {
  const controller = new AbortController();
  const first = Promise.withResolvers<void>();
  await using server = serve([() => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(ENCODER.encode(sse([chunk({ content: "slow" })])));
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  }]);
  const seen: StreamChunk[] = [];
  const reason = new DOMException("stop now", "AbortError");
  const run = (async () => {
    for await (const c of adapter(server.baseUrl).stream(request(controller.signal))) {
      seen.push(c);
      first.resolve();
    }
  })();
  await first.promise;
  controller.abort(reason);
  await rejects(run, (error: unknown) => error === reason);
  deepEqual(seen, [{ type: "text", text: "slow" }]);
});

/** A loopback port nothing listens on (bound, then released). */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** A TCP server that accepts each connection and closes it at once: a transient failure. */
function resetServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let connections = 0;
  const done = (async () => {
    for await (const conn of listener) {
      connections++;
      conn.close();
    }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  return {
    port,
    get connections() {
      return connections;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      await done.catch(() => {});
    },
  };
}

/** A plain TCP server that answers a TLS hello with text. */
function plainServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const done = (async () => {
    for await (const conn of listener) {
      await conn.write(ENCODER.encode("HTTP/1.1 400 Bad Request\r\n\r\n")).catch(() => 0);
      conn.close();
    }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  return {
    port,
    async [Symbol.asyncDispose]() {
      listener.close();
      await done.catch(() => {});
    },
  };
}

/** Runs one stream to its failure, recording the retry waits and chunks. */
async function failure(baseUrl: string, maxRetries = 2) {
  const sleeps: number[] = [];
  const ds = new DeepSeekAdapter({
    apiKey: "k",
    baseUrl,
    maxRetries,
    initialRetryDelayMs: 10,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  });
  const seen: StreamChunk[] = [];
  let error: unknown;
  try {
    for await (const c of ds.stream(request())) seen.push(c);
  } catch (thrown) {
    error = thrown;
  }
  ok(error instanceof ModelRequestError, `expected a ModelRequestError, got ${error}`);
  return { error, sleeps, seen };
}

const SETTING =
  "the endpoint is DEEPSEEK_BASE_URL when set, else model.baseUrl in dsh.jsonc (the adapter's 'baseUrl' option)";

Deno.test("DeepSeekAdapter.stream() fails at once on a closed port, naming host:port, cause and setting", async () => {
  const port = closedPort();
  const { error, sleeps, seen } = await failure(`http://127.0.0.1:${port}`);
  equal(
    error.message,
    `Cannot reach DeepSeek at 127.0.0.1:${port} (http://127.0.0.1:${port}/chat/completions): connection refused (nothing listens there); ${SETTING}`,
  );
  equal(error.retryable, false);
  deepEqual(sleeps, []);
  deepEqual(seen, []);
});

Deno.test("DeepSeekAdapter.stream() fails at once on an unknown host, naming it", async () => {
  // `.invalid` never resolves (RFC 6761); without DNS the lookup fails too, and says so.
  const { error, sleeps } = await failure("http://nonexistent.invalid");
  match(
    error.message,
    /^Cannot reach DeepSeek at nonexistent\.invalid:80 \(http:\/\/nonexistent\.invalid\/chat\/completions\): DNS lookup failed \((no such host|no DNS server answered: is the network up\?)\); the endpoint is DEEPSEEK_BASE_URL/,
  );
  equal(error.retryable, false);
  deepEqual(sleeps, []);
});

Deno.test("DeepSeekAdapter.stream() fails at once when TLS cannot start, suggesting the scheme", async () => {
  await using server = plainServer();
  const { error, sleeps } = await failure(`https://127.0.0.1:${server.port}`);
  match(
    error.message,
    new RegExp(
      `^Cannot reach DeepSeek at 127\\.0\\.0\\.1:${server.port} \\(https://127\\.0\\.0\\.1:${server.port}/chat/completions\\): TLS handshake failed \\(.+\\); is the URL's scheme right\\?; the endpoint is`,
    ),
  );
  deepEqual(sleeps, []);
});

Deno.test("DeepSeekAdapter.stream() retries a dropped connection, then reports it with host:port", async () => {
  await using server = resetServer();
  const where = `127.0.0.1:${server.port} (http://127.0.0.1:${server.port}/chat/completions)`;
  const { error, sleeps, seen } = await failure(`http://127.0.0.1:${server.port}`);
  match(
    error.message,
    new RegExp(
      `^Cannot reach DeepSeek at ${
        RegExp.escape(where)
      } after 3 attempts: network error: .+; the endpoint is`,
    ),
  );
  equal(error.retryable, true);
  equal(server.connections, 3);
  deepEqual(sleeps, [10, 20]);
  deepEqual(
    seen.map((c) =>
      c.type === "retry" && c.message.replace(/: network error: .*, retrying/, ": …, retrying")
    ),
    [
      `DeepSeek unreachable at ${where}: …, retrying in 10 ms (attempt 2 of 3)`,
      `DeepSeek unreachable at ${where}: …, retrying in 20 ms (attempt 3 of 3)`,
    ],
  );
});

Deno.test("a retired model id is refused before any request, with the current ids and the setting", async () => {
  for (const id of ["deepseek-chat", "deepseek-reasoner"]) {
    try {
      new DeepSeekAdapter({ apiKey: "k", model: id });
      throw new Error("expected a TypeError");
    } catch (error) {
      ok(error instanceof TypeError);
      equal(
        error.message,
        `Cannot create DeepSeek adapter: the model "${id}" was retired on 2026-07-24: use "deepseek-flash" (recommended), "deepseek-v4-pro" or "deepseek-v4-flash" (an alias of "deepseek-flash"); set model.model in dsh.jsonc or DEEPSEEK_MODEL (which overrides it), or the adapter's 'model' option`,
      );
    }
  }
  // A request naming a retired id fails without reaching the server.
  await using server = serve([]);
  const ds = adapter(server.baseUrl);
  await rejects(collect(ds.stream({ ...request(), model: "deepseek-chat" })), (error: unknown) => {
    ok(error instanceof ModelRequestError);
    match(
      error.message,
      /^Cannot call DeepSeek: the model "deepseek-chat" was retired on 2026-07-24/,
    );
    return true;
  });
  equal(server.requests.length, 0);
});

Deno.test("DeepSeekAdapter.stream() throws without an API key", async () => {
  const ds = new DeepSeekAdapter({ apiKey: "", baseUrl: "http://127.0.0.1:1" });
  await rejects(
    collect(ds.stream(request())),
    new ModelRequestError(
      "Cannot call DeepSeek: no API key; set DEEPSEEK_API_KEY or pass 'apiKey'",
    ),
  );
});

Deno.test("new DeepSeekAdapter() throws on a negative retry option", () => {
  try {
    new DeepSeekAdapter({ maxRetries: -1 });
  } catch (error) {
    ok(error instanceof RangeError);
    equal(
      error.message,
      "Cannot create DeepSeek adapter as 'maxRetries' must be a non-negative number: current value is -1",
    );
    return;
  }
  throw new Error("expected a RangeError");
});

Deno.test("DeepSeekAdapter.stream() never retries a Deno permission failure and names the setting", async (t) => {
  for (
    const thrown of [
      new Deno.errors.NotCapable(
        'Requires net access to "127.0.0.1:9", run again with the --allow-net flag',
      ),
      new Deno.errors.PermissionDenied("net access denied"),
    ]
  ) {
    await t.step(thrown.name, async () => {
      const sleeps: number[] = [];
      let calls = 0;
      const ds = new DeepSeekAdapter({
        apiKey: "k",
        baseUrl: "http://127.0.0.1:9",
        sleep: (ms) => {
          sleeps.push(ms);
          return Promise.resolve();
        },
        fetch: () => {
          calls++;
          return Promise.reject(thrown);
        },
      });
      await rejects(collect(ds.stream(request())), (error: unknown) => {
        ok(error instanceof ModelRequestError);
        equal(error.retryable, false);
        equal(error.cause, thrown);
        match(
          error.message,
          /^DeepSeek request to http:\/\/127\.0\.0\.1:9 is not allowed by Deno's permissions/,
        );
        match(error.message, /DEEPSEEK_BASE_URL when set, else of model\.baseUrl in dsh\.jsonc/);
        match(error.message, /--allow-net=127\.0\.0\.1:9\)$/);
        return true;
      });
      equal(calls, 1);
      deepEqual(sleeps, []);
    });
  }
});

Deno.test("new DeepSeekAdapter() defaults to deepseek-flash with thinking on and checks its values", () => {
  const ds = new DeepSeekAdapter({ apiKey: "k" });
  equal(ds.model, "deepseek-flash");
  equal(ds.thinking, "enabled");
  try {
    new DeepSeekAdapter({ reasoningEffort: "medium" as "high" });
  } catch (error) {
    ok(error instanceof TypeError);
    equal(
      error.message,
      'Cannot create DeepSeek adapter as \'reasoningEffort\' must be "low", "high" or "max": current value is "medium"',
    );
    return;
  }
  throw new Error("expected a TypeError");
});
