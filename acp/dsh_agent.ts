/**
 * The `dsh-agent` command (`deno task agent`, or `deno install` of this file, see the README's
 * Zed section): answers the editor's `initialize` at once, from a handful of small modules, then
 * runs the launcher (acp/launch.ts: the config, the permission profile, the agent process) with
 * the rest of stdin. The agent is told the request with a `{"dsh/initialized":…}` line in its
 * place, so it knows the client's capabilities and does not answer twice.
 *
 * ```sh
 * deno run --allow-read --allow-env --allow-run=deno,bash acp/dsh_agent.ts [agent flags]
 * ```
 *
 * @module
 */
import { initializeResponse } from "./initialize.ts";
import { readFirstLine } from "./_stdin_prefix.ts";
import { INITIALIZED_FRAME } from "./_early_initialize.ts";
import { writeFrame } from "./_startup_error.ts";

const encoder = new TextEncoder();

/** The `initialize` request of a line, if it is one. */
function initializeRequest(line: string | undefined): { id: unknown; params: object } | undefined {
  if (line === undefined || !line.includes('"initialize"')) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof message !== "object" || message === null) return undefined;
  const { id, method, params } = message as Record<string, unknown>;
  if (method !== "initialize" || (typeof id !== "number" && typeof id !== "string")) {
    return undefined;
  }
  if (typeof params !== "object" || params === null || Array.isArray(params)) return undefined;
  if (typeof (params as { protocolVersion?: unknown }).protocolVersion !== "number") {
    return undefined;
  }
  return { id, params };
}

/**
 * Stdin as the launcher reads it: the first line, once it arrives, is answered here when it is
 * `initialize` (and replaced by the `dsh/initialized` line), else passed on unchanged. Reading
 * starts now, so the answer never waits for the launcher.
 */
function answerInitialize(stdin: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const first = readFirstLine(stdin).then(async ({ line, rest }) => {
    const request = initializeRequest(line);
    if (request === undefined) return { head: line === undefined ? "" : `${line}\n`, rest };
    await writeFrame(
      JSON.stringify({ jsonrpc: "2.0", id: request.id, result: initializeResponse() }),
    );
    return { head: `${JSON.stringify({ [INITIALIZED_FRAME]: request.params })}\n`, rest };
  });
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (reader === undefined) {
        const { head, rest } = await first;
        reader = rest.getReader();
        if (head !== "") return controller.enqueue(encoder.encode(head));
      }
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel(reason) {
      if (reader !== undefined) return await reader.cancel(reason);
      await (await first).rest.cancel(reason);
    },
  });
}

if (import.meta.main) {
  const trust = Deno.args[0] === "trust"; // `deno task agent trust [folder]`: the launcher's own
  if (!trust && Deno.args.some((a) => ["-h", "--help", "-V", "--version"].includes(a))) {
    // Loaded only here: the help lists the config keys from the field table, a large graph.
    // A computed specifier, so Deno does not load it with this module's graph.
    const cli: typeof import("./_cli.ts") = await import(
      new URL("./_cli.ts", import.meta.url).href
    );
    const { AGENT_HELP, AGENT_VERSION } = cli;
    const text = Deno.args.some((a) => a === "-h" || a === "--help")
      ? AGENT_HELP
      : `dsh-agent ${AGENT_VERSION}\n`;
    Deno.stdout.writeSync(encoder.encode(text));
    Deno.exit(0);
  }
  const workspace = Deno.env.get("INIT_CWD") ?? Deno.cwd();
  if (trust) {
    const launcher: typeof import("./launch.ts") = await import(
      new URL("./launch.ts", import.meta.url).href
    );
    Deno.exit(await launcher.trust(workspace, Deno.args.slice(1)));
  }
  // In a terminal nobody sends `initialize`: the launcher starts as it always did.
  const input = Deno.stdin.isTerminal()
    ? Deno.stdin.readable
    : answerInitialize(Deno.stdin.readable);
  // A computed specifier: Deno loads the launcher's modules now, not before the first line runs.
  const launcher: typeof import("./launch.ts") = await import(
    new URL("./launch.ts", import.meta.url).href
  );
  const { launch } = launcher;
  Deno.exit(await launch(workspace, Deno.args, input));
}
