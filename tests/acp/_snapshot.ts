/**
 * The ACP snapshot runner (docs/contracts.md §5): boots `acp/main.ts` with a scripted model under its
 * computed permission profile, drives it over stdio with the SDK client, and returns the
 * normalized stdout frames and session log.
 */
import { client, type RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { dirname, join } from "node:path";
import { type AgentProcess, spawnAgentProcess } from "../../acp/_agent_process.ts";
import { parseConfig } from "../../acp/config.ts";
import { permissionFlags } from "../../acp/permissions.ts";
import { secretsLine } from "../../acp/_stdin_prefix.ts";
import { normalizeText, scrubVolatile } from "../../testing/_normalize.ts";
import { HANG_GUARD_MS } from "../_helpers.ts";

/** The MCP "everything" test server (installed by `deno task test` into test_deps/). */
export const EVERYTHING = new URL(
  "../../test_deps/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
  import.meta.url,
).pathname;

/** The minimal environment the test agents run with (`clearEnv: true`). */
export function plainEnv(home: string): Record<string, string> {
  return { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: home, TMPDIR: home };
}

/** One step of a scenario (docs/contracts.md §5 ops, plus `restart` and `loadSession`). */
export type Step =
  | { op: "initialize"; terminalOutput?: boolean }
  | { op: "newSession" }
  | { op: "newSessionExpectError"; cwd?: string; additionalDirectories?: string[] }
  | { op: "prompt"; text: string }
  | { op: "promptExpectError"; text: string }
  | { op: "promptAndWaitForAgentMessage"; text: string; waitForText: string }
  | {
    op: "promptAndCancel";
    text: string;
    afterUpdate?: "agent_message_chunk" | "tool_call";
    waitForFile?: string | { path: string; timeoutMs?: number };
    waitForToolCallUpdate?: string;
  }
  | { op: "waitForTurnEnd"; timeoutMs?: number }
  | { op: "cancel" }
  | { op: "restart" }
  | { op: "loadSession" };

/** input.json. */
export interface ScenarioInput {
  /** What the scenario shows. */
  description?: string;
  /** The dsh.jsonc content. */
  config?: Record<string, unknown>;
  /** Seed files written into the workspace (relative path → content). */
  workspace?: Record<string, string>;
  /** The scripted model (see acp/script_model.ts). */
  script: unknown[];
  /** The steps. */
  steps: Step[];
  /** FIFO permission answers by option kind; running out answers `cancelled`. */
  permissionAnswers?: string[];
  /**
   * The agent's coalescing window (`--flush-ms`). The default sends buffered deltas and output
   * only at events, which keeps transcripts deterministic; a scenario that waits for a streamed
   * message while the model hangs needs a short window.
   */
  flushMs?: number;
}

/** What a run produced. */
export interface ScenarioRun {
  /** Normalized stdout frames (one JSON text per line). */
  stdout: string[];
  /** Normalized session log lines. */
  session: string[];
  /** Normalized `session/update` payloads per phase: `live` (prompts) and `replay` (loads). */
  updates: { live: string[]; replay: string[] };
  /** The workspace's absolute path (removed after the run; a remote copy may outlive it). */
  cwd: string;
}

/**
 * Optional extras of a run (the remote variant, tests/acp/snapshot_remote_test.ts): the same
 * scenario, pointed at another executor.
 */
export interface ScenarioHooks {
  /** Variables added to the agent's environment (e.g. `DENO_SANDBOX_ENDPOINT`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Values of the secrets line written first on the agent's stdin, as the launcher does. */
  readonly secrets?: Readonly<Record<string, string>>;
  /** The sandbox API endpoint the permission profile lets the agent reach. */
  readonly sandboxEndpoint?: string;
  /** Whether `waitForFile`'s file exists (absolute workspace path). @default {a host stat} */
  readonly fileExists?: (path: string) => Promise<boolean>;
}

/** Replaces volatile values in one JSON text. */
export { normalizeText };
const scrub = scrubVolatile;

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = HANG_GUARD_MS,
) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Snapshot step timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs one scenario folder. */
export async function runScenario(
  dir: string,
  input: ScenarioInput,
  hooks: ScenarioHooks = {},
): Promise<ScenarioRun> {
  const root = await Deno.makeTempDir({ prefix: "dsh_snap_" });
  const cwd = join(root, "ws");
  const sessionsDir = join(root, "sessions");
  await Deno.mkdir(cwd);
  await Deno.mkdir(sessionsDir);
  try {
    for (const [path, content] of Object.entries(input.workspace ?? {})) {
      await Deno.mkdir(dirname(join(cwd, path)), { recursive: true });
      await Deno.writeTextFile(join(cwd, path), content);
    }
    const configText = JSON.stringify(input.config ?? {});
    const configPath = join(root, "dsh.jsonc");
    await Deno.writeTextFile(configPath, configText);
    const scriptPath = join(root, "script.json");
    await Deno.writeTextFile(scriptPath, JSON.stringify(input.script));
    const config = parseConfig(configText, configPath);
    const flags = permissionFlags(config, {
      roots: [cwd],
      sessionsDir,
      readOnly: [configPath, scriptPath],
      tmpDir: root,
      useDeepSeek: false,
      ...(hooks.sandboxEndpoint ? { sandboxEndpoint: { endpoint: hooks.sandboxEndpoint } } : {}),
    });
    const answers = [...(input.permissionAnswers ?? [])];
    const failures: string[] = [];
    const frames: { proc: number; line: string }[] = [];
    const updates = { live: [] as unknown[], replay: [] as unknown[] };
    let phase: "live" | "replay" = "live";
    let sessionId: string | undefined;
    let proc = 0;
    const seen: Record<string, unknown>[] = [];
    const app = client({ name: "dsh-snapshot" })
      .onNotification("session/update", ({ params }) => {
        seen.push(params.update as Record<string, unknown>);
        updates[phase].push(params.update);
      })
      .onRequest(
        "session/request_permission",
        ({ params }: { params: RequestPermissionRequest }) => {
          const kind = answers.shift();
          if (kind === undefined) return { outcome: { outcome: "cancelled" } };
          const option = params.options.find((o) => o.kind === kind);
          if (!option) {
            // Fails the run (a handler throw would only reach the agent as an error answer).
            failures.push(`Snapshot answer "${kind}" is not among the offered options`);
            return { outcome: { outcome: "cancelled" } };
          }
          return { outcome: { outcome: "selected", optionId: option.optionId } };
        },
      );
    const start = () => {
      const current = ++proc;
      return spawnAgentProcess(app, {
        permissions: flags,
        args: [
          "--config",
          configPath,
          "--script",
          scriptPath,
          "--sessions-dir",
          sessionsDir,
          "--flush-ms",
          String(input.flushMs ?? 60_000),
        ],
        cwd,
        clearEnv: true,
        env: { ...plainEnv(root), ...hooks.env },
        ...(hooks.secrets ? { stdinPrefix: secretsLine(hooks.secrets) } : {}),
        onFrame: (line) => frames.push({ proc: current, line }),
      });
    };
    let agent: AgentProcess = start();
    // The prompt of `promptAndWaitForAgentMessage`, settled by `waitForTurnEnd`.
    let running: Promise<unknown> | undefined;
    const prompt = (text: string) => {
      if (running !== undefined) throw new Error("A prompt is already running: add waitForTurnEnd");
      phase = "live";
      return agent.connection.agent.request("session/prompt", {
        sessionId: sessionId!,
        prompt: [{ type: "text", text }],
      });
    };
    try {
      for (const step of input.steps) {
        const a = agent.connection.agent;
        switch (step.op) {
          case "initialize":
            await a.request("initialize", {
              protocolVersion: 1,
              clientCapabilities: {
                fs: { readTextFile: false, writeTextFile: false },
                terminal: false,
                ...(step.terminalOutput ? { _meta: { terminal_output: true } } : {}),
              },
              clientInfo: { name: "dsh-snapshot", version: "1" },
            });
            break;
          case "newSession":
            sessionId = (await a.request("session/new", { cwd, mcpServers: [] })).sessionId;
            break;
          case "newSessionExpectError": {
            const error = await a.request("session/new", {
              cwd: step.cwd ?? cwd,
              mcpServers: [],
              ...(step.additionalDirectories !== undefined
                ? { additionalDirectories: step.additionalDirectories }
                : {}),
            }).then(() => undefined, (e) => e);
            if (error === undefined) {
              throw new Error("session/new succeeded but an error was expected");
            }
            break;
          }
          case "prompt":
            await prompt(step.text);
            break;
          case "promptExpectError": {
            const error = await prompt(step.text).then(() => undefined, (e) => e);
            if (error === undefined) {
              throw new Error("session/prompt succeeded but an error was expected");
            }
            break;
          }
          case "promptAndWaitForAgentMessage": {
            const before = seen.length;
            running = prompt(step.text);
            running.catch(() => {});
            await waitFor(
              () =>
                seen.slice(before).filter((u) => u.sessionUpdate === "agent_message_chunk")
                  .map((u) => (u.content as { text?: string }).text ?? "").join("")
                  .includes(step.waitForText),
              `an agent message with ${JSON.stringify(step.waitForText)}`,
            );
            break;
          }
          case "promptAndCancel": {
            const before = seen.length;
            const done = prompt(step.text);
            done.catch(() => {});
            if (step.waitForFile !== undefined) {
              const file = typeof step.waitForFile === "string"
                ? { path: step.waitForFile }
                : step.waitForFile;
              const path = join(cwd, file.path);
              await waitFor(
                () => (hooks.fileExists ?? exists)(path),
                file.path,
                file.timeoutMs,
              );
            }
            if (step.afterUpdate !== undefined) {
              await waitFor(
                () => seen.slice(before).some((u) => u.sessionUpdate === step.afterUpdate),
                step.afterUpdate,
              );
            }
            if (step.waitForToolCallUpdate !== undefined) {
              await waitFor(
                () =>
                  seen.slice(before).some((u) =>
                    u.sessionUpdate === "tool_call_update" &&
                    u.toolCallId === step.waitForToolCallUpdate
                  ),
                `a tool_call_update of ${step.waitForToolCallUpdate}`,
              );
            }
            await a.notify("session/cancel", { sessionId: sessionId! });
            await done;
            break;
          }
          case "waitForTurnEnd": {
            if (running === undefined) throw new Error("waitForTurnEnd without a running prompt");
            let timer: ReturnType<typeof setTimeout> | undefined;
            const timeout = new Promise<never>((_, reject) => {
              timer = setTimeout(
                () => reject(new Error("Snapshot step timed out waiting for the turn end")),
                step.timeoutMs ?? HANG_GUARD_MS,
              );
            });
            try {
              await Promise.race([running, timeout]);
            } finally {
              clearTimeout(timer);
              running = undefined;
            }
            break;
          }
          case "cancel":
            await a.notify("session/cancel", { sessionId: sessionId! });
            break;
          case "restart":
            await agent.close();
            agent = start();
            break;
          case "loadSession":
            phase = "replay";
            await a.request("session/load", { sessionId: sessionId!, cwd, mcpServers: [] });
            phase = "live";
            break;
        }
      }
      if (running !== undefined) throw new Error("A prompt is still running: add waitForTurnEnd");
      if (failures.length > 0) throw new Error(failures.join("\n"));
    } catch (error) {
      await agent.close();
      throw new Error(
        `Scenario ${dir} failed: ${
          (error as Error).message
        }\n--- agent stderr ---\n${agent.stderr()}`,
      );
    }
    const status = await agent.close();
    if (!status.success) throw new Error(`Agent exited with ${status.code}\n${agent.stderr()}`);
    const names = {
      cwds: [cwd, await Deno.realPath(cwd)],
      sessionsDir,
      ...(sessionId ? { sessionId } : {}),
    };
    const ids = new Map<string, number>();
    const stdout = frames.map(({ proc, line }) => {
      const frame = JSON.parse(line) as Record<string, unknown>;
      if ("id" in frame && frame.id !== null) {
        const key = `${proc}:${"method" in frame ? "agent" : "client"}:${String(frame.id)}`;
        if (!ids.has(key)) ids.set(key, ids.size + 1);
        frame.id = ids.get(key);
      }
      return normalizeText(JSON.stringify(scrub(frame)), names);
    });
    let session: string[] = [];
    if (sessionId) {
      const text = await Deno.readTextFile(join(sessionsDir, `${sessionId}.jsonl`));
      // Signature lines (`log/mac`) depend on the key; tests/agent/session_signature_test.ts checks them.
      session = text.trimEnd().split("\n").filter((line) => !line.startsWith('{"type":"log/mac"'))
        .map((line) => normalizeText(JSON.stringify(scrub(JSON.parse(line))), names));
    }
    const norm = (list: unknown[]) => list.map((u) => normalizeText(JSON.stringify(u), names));
    const replay = norm(updates.replay);
    return { stdout, session, updates: { live: norm(updates.live), replay }, cwd };
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}
