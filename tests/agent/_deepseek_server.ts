/**
 * A loopback DeepSeek `/chat/completions` server that speaks the wire of late 2026
 * (DeepSeek's API as of late 2026):
 *
 * - only `deepseek-flash`, `deepseek-v4-flash` (alias) and `deepseek-v4-pro` exist; any other id,
 *   the retired `deepseek-chat` and `deepseek-reasoner` included, gets HTTP 400 with DeepSeek's
 *   error JSON (`Model Not Exist`);
 * - thinking mode is on unless `thinking: {type: "disabled"}`; in thinking mode a request whose
 *   assistant messages with tool calls lack `reasoning_content` gets HTTP 400;
 * - answers stream `reasoning_content` deltas (thinking mode only), then content, then tool-call
 *   deltas split across events, the finish reason, usage and `[DONE]`.
 *
 * @module
 */

/** The ids the server accepts. */
export const CURRENT_MODEL_IDS: readonly string[] = [
  "deepseek-flash",
  "deepseek-v4-flash",
  "deepseek-v4-pro",
];

/** The message DeepSeek answers when reasoning was not passed back. */
export const REASONING_REQUIRED =
  "The `reasoning_content` in the thinking mode must be passed back to the API.";

/** One scripted answer. */
export interface FakeAnswer {
  /** Streamed as `reasoning_content` in thinking mode. @default {"Thinking about it."} */
  readonly reasoning?: string;
  /** Streamed as `content`. */
  readonly text?: string;
  /** Tool calls, streamed after the reasoning and the text. */
  readonly toolCalls?: readonly { readonly name: string; readonly arguments: string }[];
}

/** A scripted reply: an answer, a raw response (errors), or a function of the request body. */
export type FakeReply =
  | FakeAnswer
  | Response
  | ((body: ChatBody) => FakeAnswer | Response);

/** The parts of a request body the server reads. */
export interface ChatBody {
  readonly model?: unknown;
  readonly thinking?: { readonly type?: unknown };
  readonly messages?: readonly Record<string, unknown>[];
  readonly [key: string]: unknown;
}

/** A recorded request and the status it got. */
export interface RecordedRequest {
  readonly body: ChatBody;
  readonly status: number;
  /** The `Authorization` header as received (`Bearer <key>`), if any. */
  readonly authorization: string | undefined;
}

/** A running fake server. */
export interface FakeDeepSeek extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  /** Every request, in order. */
  readonly requests: RecordedRequest[];
}

function errorResponse(status: number, message: string, type = "invalid_request_error"): Response {
  return Response.json(
    { error: { message, type, param: null, code: "invalid_request_error" } },
    { status },
  );
}

/** Why today's DeepSeek would refuse the body, or `undefined`. */
export function refusal(body: ChatBody): Response | undefined {
  if (typeof body.model !== "string" || !CURRENT_MODEL_IDS.includes(body.model)) {
    return errorResponse(400, "Model Not Exist");
  }
  const mode = body.thinking?.type ?? "enabled";
  if (mode !== "enabled" && mode !== "disabled") {
    return errorResponse(400, `Invalid thinking type: ${JSON.stringify(mode)}`);
  }
  if (mode === "enabled") {
    for (const message of body.messages ?? []) {
      const calls = message.tool_calls;
      if (
        message.role === "assistant" && Array.isArray(calls) && calls.length > 0 &&
        typeof message.reasoning_content !== "string"
      ) {
        return errorResponse(400, REASONING_REQUIRED);
      }
    }
  }
  return undefined;
}

function event(delta: unknown, finish: string | null = null): string {
  return `data: ${
    JSON.stringify({
      id: "chatcmpl-fake",
      object: "chat.completion.chunk",
      model: "deepseek-flash",
      choices: [{ index: 0, delta, finish_reason: finish }],
    })
  }\n\n`;
}

function halves(text: string): [string, string] {
  const middle = Math.floor(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}

function stream(answer: FakeAnswer, thinking: boolean, request: number): Response {
  const parts: string[] = [event({ role: "assistant", content: null })];
  if (thinking) {
    for (const piece of halves(answer.reasoning ?? "Thinking about it.")) {
      if (piece !== "") parts.push(event({ reasoning_content: piece }));
    }
  }
  if (answer.text !== undefined && answer.text !== "") parts.push(event({ content: answer.text }));
  const calls = answer.toolCalls ?? [];
  calls.forEach((call, index) => {
    parts.push(event({
      tool_calls: [{
        index,
        id: `call_${request}_${index}`,
        type: "function",
        function: { name: call.name, arguments: "" },
      }],
    }));
    for (const piece of halves(call.arguments)) {
      parts.push(event({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  parts.push(event({}, calls.length > 0 ? "tool_calls" : "stop"));
  parts.push(`data: ${
    JSON.stringify({
      choices: [],
      usage: {
        prompt_tokens: 10,
        completion_tokens: 5,
        prompt_cache_hit_tokens: 0,
        prompt_cache_miss_tokens: 10,
      },
    })
  }\n\n`);
  parts.push("data: [DONE]\n\n");
  return new Response(parts.join(""), { headers: { "content-type": "text/event-stream" } });
}

/**
 * Starts the server on 127.0.0.1 and a random port. Each accepted request takes the next reply;
 * refused requests (retired model, missing reasoning) do not.
 */
export function fakeDeepSeek(replies: FakeReply[]): FakeDeepSeek {
  const requests: RecordedRequest[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      if (new URL(request.url).pathname !== "/chat/completions") {
        return new Response("not found", { status: 404 });
      }
      const body = await request.json() as ChatBody;
      const record = (response: Response) => {
        const authorization = request.headers.get("authorization") ?? undefined;
        requests.push({ body, status: response.status, authorization });
        return response;
      };
      if (!/^Bearer \S+$/.test(request.headers.get("authorization") ?? "")) {
        return record(errorResponse(401, "Authentication Fails", "authentication_error"));
      }
      const refused = refusal(body);
      if (refused !== undefined) return record(refused);
      const next = replies.shift();
      if (next === undefined) return record(new Response("no reply scripted", { status: 599 }));
      const reply = typeof next === "function" ? next(body) : next;
      if (reply instanceof Response) return record(reply);
      return record(stream(reply, body.thinking?.type !== "disabled", requests.length + 1));
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
