/**
 * Private to `deepseek.ts`: why a request never reached the server, read from the error chain
 * `fetch` rejects with (Deno words the cause inside the message of `error.cause`).
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";

/** A failed connection: what went wrong, in words, and whether retrying could help. */
export interface ConnectFailure {
  /** The cause for people: `connection refused (nothing listens there)`, … */
  readonly cause: string;
  /** True when the same request would fail the same way at once (no retry). */
  readonly permanent: boolean;
}

/** Every message of the error and its causes, outermost first. */
function messages(error: unknown): string[] {
  const out: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    out.push(errorMessage(e));
    e = (e as { cause?: unknown }).cause;
  }
  return out;
}

/** The innermost detail without Deno's `error sending request … client error (Connect):` prefix. */
function detail(all: readonly string[]): string {
  const last = all.at(-1) ?? "";
  const hyper = /client error \([^)]*\):\s*(.*)$/s.exec(last);
  if (hyper !== null) return hyper[1]!.trim();
  return last.replace(/^error sending request[^(]*\([^)]*\):\s*/i, "").trim();
}

const RULES: readonly { test: RegExp; cause: (text: string) => string; permanent: boolean }[] = [
  {
    test: /Requests to port \d+ are blocked/i,
    cause: (text) => `fetch refuses that port (${/port \d+/i.exec(text)?.[0]} is blocked)`,
    permanent: true,
  },
  {
    test: /connection refused|os error 111\b|ECONNREFUSED/i,
    cause: () => "connection refused (nothing listens there)",
    permanent: true,
  },
  {
    test: /temporary failure in name resolution|EAI_AGAIN/i,
    cause: () => "DNS lookup failed (no DNS server answered: is the network up?)",
    permanent: true,
  },
  {
    test:
      /dns error|failed to lookup address|name or service not known|nodename nor servname|no address associated|ENOTFOUND/i,
    cause: () => "DNS lookup failed (no such host)",
    permanent: true,
  },
  {
    test: /certificate|tls|ssl|handshake|corrupt message|InvalidContentType/i,
    cause: (text) => `TLS handshake failed (${text}); is the URL's scheme right?`,
    permanent: true,
  },
];

/**
 * Classifies a `fetch` rejection. Refused connections, unknown hosts, TLS failures and blocked
 * ports fail the same way on every try, so they are permanent; resets, timeouts and anything
 * unrecognized may pass on a retry.
 *
 * @param error What `fetch` rejected with.
 * @returns The cause and whether it is permanent.
 */
export function connectFailure(error: unknown): ConnectFailure {
  const all = messages(error);
  const text = all.join(" | ");
  const inner = detail(all);
  for (const rule of RULES) {
    if (rule.test.test(text)) return { cause: rule.cause(inner), permanent: rule.permanent };
  }
  return { cause: `network error: ${inner === "" ? "fetch failed" : inner}`, permanent: false };
}
