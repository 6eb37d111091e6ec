/**
 * Private: the agent's remote executor (`"executor": {"provider": "deno-sandbox"}`), loaded only
 * when the config chooses it (the local path never loads the SDK). One Deno Sandbox per session:
 *
 * - **Recorded:** when a session's sandbox is created or reattached, the ACP layer appends
 *   `executor/opened` `{sessionId, record}` to that session's log (`ctx.emit("executor/opened")`).
 * - **Reattached:** `session/load` finds the last `executor/opened` in the loaded events and opens
 *   that record: the same sandbox, or a fresh one (with a session notice) when it is gone.
 * - **Ended:** when the editor closes the connection, `onSessionEnd` applies (`destroy`, or
 *   `keep`: detach, left to its timeout); when the agent stops, every sandbox is detached.
 *
 * The Deno Deploy token and the secrets' values come from the launcher's stdin secrets line (or
 * the environment when the agent runs without it) and are held here only: they never enter a
 * sandbox (the engine substitutes secrets on the wire).
 *
 * @module
 */
import { resolve } from "node:path";
import type { ToolsContext } from "../registry/tools_plugin.ts";
import type { Executor } from "../tools/executor.ts";
import type { ProtectedPaths } from "../builtins/protected_paths.ts";
import { createWorkspaceSync, denoSandboxExecutor, type SandboxSecret } from "../remote/mod.ts";
import type { AgentConfig } from "./config.ts";
import type { ExecutorSecret } from "./_config_executor.ts";
import { errorMessage } from "../core/error_message.ts";
import {
  EXECUTOR_OPENED,
  lastOpened,
  SESSION_ENVIRONMENTS,
  type SessionEnvironments,
} from "./_session_environments.ts";

/** Options of {@linkcode createRemoteExecutor}. */
export interface RemoteExecutorOptions {
  readonly config: AgentConfig;
  readonly workspace: string;
  readonly roots: readonly string[];
  readonly protectedPaths: ProtectedPaths;
  /** Where the config's relative paths resolve. */
  readonly base: string;
  /** The launcher's stdin secrets (`DENO_DEPLOY_TOKEN`, `fromEnv` variables). @default {{}} */
  readonly secrets?: Readonly<Record<string, string>>;
}

function envValue(name: string): string | undefined {
  try {
    return Deno.env.get(name) || undefined;
  } catch {
    return undefined;
  }
}

/** Reads the value of one `executor.secrets` entry. */
async function secretValue(
  name: string,
  secret: ExecutorSecret,
  base: string,
  given: Readonly<Record<string, string>>,
): Promise<string> {
  if (secret.fromEnv !== undefined) {
    const value = given[secret.fromEnv] ?? envValue(secret.fromEnv);
    if (value === undefined) {
      throw new TypeError(
        `Cannot start the remote executor as secret "${name}" reads the environment variable ${secret.fromEnv}, which is not set: set it before starting the agent, or remove "executor.secrets.${name}" from dsh.jsonc`,
      );
    }
    return value;
  }
  const file = secret.fromFile!.startsWith("~/")
    ? resolve(envValue("HOME") ?? "/", secret.fromFile!.slice(2))
    : resolve(base, secret.fromFile!);
  try {
    return (await Deno.readTextFile(file)).replace(/\r?\n$/, "");
  } catch (error) {
    throw new TypeError(
      `Cannot start the remote executor as secret "${name}" cannot be read from ${
        JSON.stringify(file)
      }: ${errorMessage(error)}`,
    );
  }
}

/**
 * Creates the Deno Sandbox executor for the agent's tools and provides
 * {@linkcode SessionEnvironments} as `ctx.sessionEnvironments`; the root context's disposal
 * detaches every sandbox.
 *
 * @param ctx The harness.
 * @param options Config, workspace, paths and secrets.
 * @returns The executor (one sandbox per session through `forSession`).
 * @throws {TypeError} Without a token, or when a secret cannot be read.
 */
export async function createRemoteExecutor(
  ctx: ToolsContext,
  options: RemoteExecutorOptions,
): Promise<Executor> {
  const { config, workspace, roots, protectedPaths, base } = options;
  const given = options.secrets ?? {};
  const settings = config.executor;
  const token = given.DENO_DEPLOY_TOKEN ?? envValue("DENO_DEPLOY_TOKEN");
  if (token === undefined) {
    throw new TypeError(
      'Cannot start the remote executor as DENO_DEPLOY_TOKEN is not set: "executor": {"provider": "deno-sandbox"} in dsh.jsonc runs tools in Deno Sandbox with your Deno Deploy token (plus DENO_DEPLOY_ORG for a personal token); set it, or choose "provider": "local"',
    );
  }
  const secrets: Record<string, SandboxSecret> = {};
  for (const [name, secret] of Object.entries(settings.secrets)) {
    secrets[name] = { hosts: secret.hosts, value: await secretValue(name, secret, base, given) };
  }
  const executor = denoSandboxExecutor({
    workspace,
    writableRoots: roots,
    allowNet: settings.allowNet,
    ...(settings.region !== undefined ? { region: settings.region as "ord" | "ams" } : {}),
    ...(settings.memory !== undefined ? { memory: settings.memory } : {}),
    timeout: settings.timeout as `${number}m`,
    // Only what the user set: nothing of this machine's environment goes up.
    env: config.env.set ?? {},
    ...(Object.keys(secrets).length > 0 ? { secrets } : {}),
    // DENO_DEPLOY_ORG and DENO_SANDBOX_ENDPOINT: the executor reads them from the environment.
    token,
    onRecord: (sessionId, record) => ctx.emit(EXECUTOR_OPENED, sessionId, record),
    sync: createWorkspaceSync({ workspace, hiddenPaths: config.hiddenPaths, protectedPaths }),
  });
  const ending = new Set<Promise<void>>();
  ctx.provide(SESSION_ENVIRONMENTS, sessionEnvironments(executor, settings.onSessionEnd, ending));
  // The agent stops (signal, end of stdin): the sessions' ends run out, then every other sandbox
  // is detached and lives on, reattachable until its timeout.
  ctx.effect(() => async () => {
    await Promise.allSettled(ending);
    await executor.detach().catch(() => {});
  });
  return executor;
}

function sessionEnvironments(
  executor: Executor,
  onSessionEnd: "destroy" | "keep",
  ending: Set<Promise<void>>,
): SessionEnvironments {
  return {
    async resume(sessionId, events) {
      const record = lastOpened(events);
      // Nothing recorded (or another provider's): the first call creates the sandbox.
      if (record === undefined || record.provider !== "deno-sandbox") return [];
      try {
        const opened = await executor.forSession(sessionId).open(record);
        if (opened.id === record.id) return [];
        return [
          `The Deno Sandbox ${
            record.id ?? "(unnamed)"
          } of this session is gone (expired or destroyed); tools now run in a new one, ${
            opened.id ?? "(unnamed)"
          }: files only the old sandbox had and its background jobs are lost (the workspace was uploaded again).`,
        ];
      } catch (error) {
        return [
          `Cannot reattach the Deno Sandbox ${record.id ?? "(unnamed)"} of this session: ${
            errorMessage(error)
          }. The next tool call tries again.`,
        ];
      }
    },
    end(sessionId) {
      const session = executor.forSession(sessionId);
      const done = onSessionEnd === "destroy" ? session.destroy() : session.detach();
      // Tracked for the shutdown, which only waits (the caller sees the failure).
      const tracked: Promise<void> = done.then(() => {}, () => {}).finally(() =>
        ending.delete(tracked)
      );
      ending.add(tracked);
      return done;
    },
  };
}
