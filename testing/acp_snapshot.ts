/**
 * `assertAcpSnapshot`: pins what an editor receives for your tool (cards, terminal output,
 * diffs) by running a scripted scenario through the real ACP server, in process.
 *
 * @module
 */
import { deepStrictEqual } from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { LineSplitter } from "../core/lines.ts";
import type { Plugin, PluginFunction } from "../core/context.ts";
import type { ModelRequest } from "../agent/model.ts";
import { MockAdapter, type MockEntry } from "../agent/mod.ts";
import type { ToolMode } from "../codemode/mod.ts";
import type { ToolsContext } from "../registry/tools_plugin.ts";
import { normalizeText, scrubVolatile } from "./_normalize.ts";

/** The env var that re-records transcripts instead of comparing them. */
export const UPDATE_SNAPSHOTS_ENV = "DSH_UPDATE_SNAPSHOTS";

/** A permission answer by ACP option kind. */
export type PermissionAnswer = "allow_once" | "allow_always" | "reject_once" | "reject_always";

/** What {@linkcode assertAcpSnapshot} runs. */
export interface AcpScenario {
  /** The plugins that register the tools under test (loaded into a fresh harness). @default {[]} */
  readonly plugins?: readonly (Plugin<undefined> | PluginFunction<undefined>)[];
  /**
   * Extra setup on the harness before the session starts (register a tool, add a listener).
   * @default {undefined}
   */
  readonly setup?: (ctx: ToolsContext) => void | Promise<void>;
  /** The model's answers, one per request (`toolCallResponse`, `textResponse`, …). */
  readonly script: readonly MockEntry[];
  /** The user's prompts, one turn each, in order. @default {["go"]} */
  readonly prompts?: readonly string[];
  /** Files written into the session's workspace before it starts (relative path → text). @default {{}} */
  readonly workspace?: Readonly<Record<string, string>>;
  /** Advertise the `terminal_output` client capability (terminal cards stream in place). @default {false} */
  readonly terminalOutput?: boolean;
  /** Answers to `session/request_permission`, in order; when they run out the client cancels. @default {[]} */
  readonly permissionAnswers?: readonly PermissionAnswer[];
  /** How tools are presented to the model. @default {"native"} */
  readonly toolMode?: ToolMode;
}

/** Options of {@linkcode assertAcpSnapshot}. */
export interface AcpSnapshotOptions {
  /**
   * Record the transcript instead of comparing it. A test that records on purpose passes this
   * rather than setting the process-wide variable, which parallel test files share.
   * @default {Deno.env.get("DSH_UPDATE_SNAPSHOTS") === "1"}
   */
  readonly update?: boolean;
}

/** What a scenario run produced (also when it matched). */
export interface AcpSnapshotRun {
  /** The normalized frames the agent sent, one JSON text each (the stored transcript). */
  readonly transcript: readonly string[];
  /** Every model request the scenario made (assert on the tools and messages the model saw). */
  readonly requests: readonly ModelRequest[];
}

/** How to re-record: the variable, and `--allow-env` for it when this test may not read it. */
function recordHint(): string {
  const granted =
    Deno.permissions.querySync({ name: "env", variable: UPDATE_SNAPSHOTS_ENV }).state === "granted";
  return `${UPDATE_SNAPSHOTS_ENV}=1${
    granted ? "" : ` (and --allow-env=${UPDATE_SNAPSHOTS_ENV}: this test may not read it)`
  }`;
}

function readEnv(name: string): string | undefined {
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
    return undefined;
  }
  return Deno.env.get(name);
}

async function readLines(path: string): Promise<string[] | undefined> {
  try {
    const text = await Deno.readTextFile(path);
    return text === "" ? [] : text.trimEnd().split("\n");
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** Splits a byte stream into lines and hands each to `onLine`, passing the bytes through. */
function tap(onLine: (line: string) => void): TransformStream<Uint8Array, Uint8Array> {
  const splitter = new LineSplitter();
  return new TransformStream({
    transform(chunk, controller) {
      for (const line of splitter.push(chunk)) {
        if (line.trim() !== "") onLine(line.trim());
      }
      controller.enqueue(chunk);
    },
  });
}

/**
 * Runs `scenario` through the real ACP server in process (a fresh harness with your plugins, a
 * {@linkcode MockAdapter} playing `script`, the SDK client on the other end of an in-memory
 * pipe) and compares the frames the agent sent with the transcript stored at `path`: one
 * normalized JSON frame a line, with the session id, UUIDs, the temporary workspace and timings
 * replaced by placeholders. With `DSH_UPDATE_SNAPSHOTS=1` in the environment the transcript is
 * (re)written instead. The session's workspace and log live in a temporary directory that is
 * removed afterwards.
 *
 * @param path The transcript file (a path or a `file:` URL, such as
 * `new URL("./__snapshots__/word_count.jsonl", import.meta.url)`); its folder is created on update.
 * @param scenario The plugins, the model script and the prompts.
 * @param options `update` records instead of comparing (default: `DSH_UPDATE_SNAPSHOTS=1`).
 * @returns The run (transcript and model requests) for further assertions.
 * @throws {Error} When the transcript is missing (run once with `DSH_UPDATE_SNAPSHOTS=1`), when a
 * script entry is left unused, or when a step of the run fails.
 * @throws {AssertionError} When the transcript differs (the message shows the diff).
 *
 * @example Usage
 * ```ts ignore
 * import { assertAcpSnapshot } from "@dsh/harness/testing";
 * import { textResponse, toolCallResponse } from "@dsh/harness/agent";
 * import * as wordCount from "./word_count.ts";
 *
 * Deno.test("word_count shows its card in the editor", async () => {
 *   await assertAcpSnapshot(new URL("./__snapshots__/word_count.jsonl", import.meta.url), {
 *     plugins: [wordCount],
 *     script: [toolCallResponse("c1", "word_count", { text: "a b c" }), textResponse("3 words")],
 *   });
 * });
 * ```
 */
export async function assertAcpSnapshot(
  path: string | URL,
  scenario: AcpScenario,
  options: AcpSnapshotOptions = {},
): Promise<AcpSnapshotRun> {
  const { update = readEnv(UPDATE_SNAPSHOTS_ENV) === "1" } = options;
  const file = path instanceof URL ? fileURLToPath(path) : path;
  if (!Array.isArray(scenario?.script)) {
    throw new TypeError(
      `Cannot run the ACP snapshot "${file}": scenario.script must be an array of model answers`,
    );
  }
  const run = await runAcpScenario(scenario);
  if (update) {
    await Deno.mkdir(dirname(file), { recursive: true });
    await Deno.writeTextFile(file, run.transcript.join("\n") + "\n");
    return run;
  }
  const expected = await readLines(file);
  if (expected === undefined) {
    throw new Error(
      `Cannot compare the ACP snapshot: no transcript at "${file}": run the test once with ${recordHint()} to record it`,
    );
  }
  deepStrictEqual(
    [...run.transcript],
    expected,
    `The ACP transcript differs from "${file}" (re-record it with ${recordHint()} if the change is intended)`,
  );
  return run;
}

async function runAcpScenario(scenario: AcpScenario): Promise<AcpSnapshotRun> {
  // Loaded on demand: `@dsh/harness/testing` stays light for tests that never talk ACP.
  const [{ createAcpServer }, sdk, { createHarness }] = await Promise.all([
    import("../acp/server.ts"),
    import("@agentclientprotocol/sdk"),
    import("../registry/tools_plugin.ts"),
  ]);
  const root = await Deno.makeTempDir({ prefix: "dsh_acp_snapshot_" });
  const ctx = await createHarness({ logLevel: "error" });
  try {
    const { cwd, sessionsDir } = await prepareWorkspace(root, scenario);
    for (const plugin of scenario.plugins ?? []) await ctx.plugin(plugin as Plugin).ready;
    await scenario.setup?.(ctx);
    const adapter = new MockAdapter(scenario.script);
    const server = createAcpServer(ctx, {
      createAdapter: () => adapter,
      model: "mock",
      sessionsDir,
      flushMs: 60_000,
      ...(scenario.toolMode !== undefined ? { toolMode: scenario.toolMode } : {}),
    });
    const failures: string[] = [];
    const app = permissionClient(sdk, scenario.permissionAnswers ?? [], failures);
    const frames: string[] = [];
    const toClient = new TransformStream<Uint8Array, Uint8Array>();
    const toAgent = new TransformStream<Uint8Array, Uint8Array>();
    const agentOut = tap((line) => frames.push(line));
    void agentOut.readable.pipeTo(toClient.writable).catch(() => {});
    const connection = server.connect(agentOut.writable, toAgent.readable);
    const peer = app.connect(sdk.ndJsonStream(toAgent.writable, toClient.readable));
    let sessionId: string | undefined;
    try {
      sessionId = await driveSession(peer, scenario, cwd);
    } finally {
      peer.close();
      await peer.closed.catch(() => {});
      await connection.close().catch(() => {});
    }
    if (adapter.remaining > 0) failures.push(unusedScript(adapter));
    if (failures.length > 0) {
      throw new Error(`Cannot run the ACP snapshot scenario: ${failures.join("; ")}`);
    }
    const names = {
      cwds: [cwd, await Deno.realPath(cwd)],
      sessionsDir,
      ...(sessionId !== undefined ? { sessionId } : {}),
    };
    return { transcript: normalizeFrames(frames, names), requests: adapter.requests };
  } finally {
    await ctx.fiber.dispose();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

type AcpSdk = typeof import("@agentclientprotocol/sdk");
type ClientApp = ReturnType<AcpSdk["client"]>;
type ClientPeer = ReturnType<ClientApp["connect"]>;

/** Makes the workspace (with the scenario's files) and the sessions folder under `root`. */
async function prepareWorkspace(
  root: string,
  scenario: AcpScenario,
): Promise<{ cwd: string; sessionsDir: string }> {
  const cwd = join(root, "ws");
  const sessionsDir = join(root, "sessions");
  await Deno.mkdir(cwd);
  await Deno.mkdir(sessionsDir);
  for (const [relative, text] of Object.entries(scenario.workspace ?? {})) {
    await Deno.mkdir(dirname(join(cwd, relative)), { recursive: true });
    await Deno.writeTextFile(join(cwd, relative), text);
  }
  return { cwd, sessionsDir };
}

/** The client: answers permission requests from `answers` in order (a missing one cancels). */
function permissionClient(
  sdk: AcpSdk,
  answers: readonly PermissionAnswer[],
  failures: string[],
): ClientApp {
  const queue = [...answers];
  return sdk.client({ name: "dsh-snapshot" }).onRequest(
    "session/request_permission",
    ({ params }) => {
      const kind = queue.shift();
      const option = params.options.find((o) => o.kind === kind);
      if (kind !== undefined && option === undefined) {
        failures.push(`the permission answer "${kind}" is not among the offered options`);
      }
      return option === undefined
        ? { outcome: { outcome: "cancelled" as const } }
        : { outcome: { outcome: "selected" as const, optionId: option.optionId } };
    },
  );
}

/** Initializes, opens a session in `cwd` and sends each prompt; returns the session id. */
async function driveSession(
  peer: ClientPeer,
  scenario: AcpScenario,
  cwd: string,
): Promise<string> {
  await request("initialize", () =>
    peer.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: {
        fs: { readTextFile: false, writeTextFile: false },
        terminal: false,
        ...(scenario.terminalOutput ? { _meta: { terminal_output: true } } : {}),
      },
      clientInfo: { name: "dsh-snapshot", version: "1" },
    }));
  const { sessionId } = await request(
    "session/new",
    () => peer.agent.request("session/new", { cwd, mcpServers: [] }),
  );
  for (const text of scenario.prompts ?? ["go"]) {
    // An error frame is part of the transcript; the run goes on.
    await peer.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] })
      .catch((error: unknown) => error);
  }
  return sessionId;
}

/**
 * Runs a setup request; its failure names the method and the agent's details (the SDK's own
 * message is only `Internal error`).
 */
async function request<T>(method: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    const { message, data } = error as { message?: unknown; data?: { details?: unknown } };
    const details = typeof data?.details === "string" ? `: ${data.details}` : "";
    throw new Error(
      `Cannot run the ACP snapshot scenario: ${method} failed: ${message}${details}`,
      {
        cause: error,
      },
    );
  }
}

function unusedScript(adapter: MockAdapter): string {
  return `${adapter.remaining} script entr${
    adapter.remaining === 1 ? "y was" : "ies were"
  } left unused: the model was asked ${adapter.requests.length} time(s)`;
}

/** Numbers the JSON-RPC ids per direction and replaces the volatile parts with placeholders. */
function normalizeFrames(
  frames: readonly string[],
  names: Parameters<typeof normalizeText>[1],
): string[] {
  const ids = new Map<string, number>();
  return frames.map((line) => {
    const frame = JSON.parse(line) as Record<string, unknown>;
    if ("id" in frame && frame.id !== null) {
      const key = `${"method" in frame ? "agent" : "client"}:${String(frame.id)}`;
      if (!ids.has(key)) ids.set(key, ids.size + 1);
      frame.id = ids.get(key);
    }
    // The dsh version changes with every release; the snapshot pins the tool's frames.
    const info = (frame.result as { agentInfo?: { version?: unknown } } | undefined)?.agentInfo;
    if (info?.version !== undefined) info.version = "{{version}}";
    return normalizeText(JSON.stringify(scrubVolatile(frame)), names);
  });
}
