/**
 * The agent launcher behind `deno task agent`: reads the workspace's config, derives the agent's
 * explicit Deno permission profile ({@linkcode permissionFlags}) and runs `acp/main.ts` under it
 * with the editor's stdio. The agent itself never runs with `-A`.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { loadConfig } from "./config.ts";
import { parseAgentArgs, usesDeepSeek } from "./main.ts";
import { permissionFlags } from "./permissions.ts";
import { serveStartupError } from "./_startup_error.ts";
import { denoCommand } from "./_deno_command.ts";
import { relayAgent } from "./_relay.ts";
import { apiKeyFilePath, modelBaseUrl } from "./_model_endpoint.ts";
import { pluginGrants } from "./_plugin_grants.ts";
import { AGENT_HELP, AGENT_VERSION } from "./_cli.ts";
import { sessionsLocation } from "./_session_dir.ts";
import { agentSpawn } from "./_agent_spawn.ts";
import { userConfigDir } from "../core/user_dirs.ts";

/** What {@linkcode agentCommand} computed. */
export interface AgentCommand {
  /** The Deno executable (see {@linkcode denoCommand}). */
  readonly command: string;
  /** `run`, the permission flags, the entry point and the agent's arguments. */
  readonly args: readonly string[];
  /** The workspace (the process cwd). */
  readonly cwd: string;
  /**
   * Variables the launcher moves from the agent's environment to its stdin secrets line (a
   * remote executor's `DENO_DEPLOY_TOKEN` and `secrets.*.fromEnv`). @default {[]}
   */
  readonly stdinSecrets?: readonly string[];
}

/**
 * Computes the command that runs the agent for a workspace under its permission profile.
 *
 * @param workspace The workspace folder (absolute).
 * @param args The agent's arguments (`--config`, `--sessions-dir`, …).
 * @param env Reads the environment (`HOME`, `XDG_CONFIG_HOME`: the user's config and trust). @default {Deno.env.get}
 * @returns The command, arguments and cwd.
 * @throws {SyntaxError} When the config file is invalid.
 *
 * @example Usage
 * ```ts ignore
 * import { agentCommand } from "./launch.ts";
 * const { command, args } = await agentCommand("/work/project", []);
 * ```
 */
export async function agentCommand(
  workspace: string,
  args: readonly string[],
  env: (name: string) => string | undefined = Deno.env.get,
): Promise<AgentCommand> {
  const options = parseAgentArgs(args);
  const { config, file } = await loadConfig(workspace, options.config, { env });
  const base = file === undefined ? workspace : dirname(resolve(workspace, file));
  const sessionsDir =
    sessionsLocation(workspace, base, config.sessionsDir, options.sessionsDir).dir;
  const roots = [workspace, ...config.roots.map((r) => resolve(base, r))];
  const keyFile = apiKeyFilePath(config);
  const command = denoCommand();
  const plugins = await pluginGrants(config.plugins, base, command);
  const flags = permissionFlags(config, {
    roots,
    sessionsDir,
    readOnly: [
      ...(file === undefined ? [] : [resolve(workspace, file)]),
      ...userConfigRead(env),
      ...(keyFile === undefined ? [] : [keyFile]),
      ...(options.script ? [resolve(workspace, options.script)] : []),
      ...plugins.readable,
    ],
    plugins: plugins.permissions,
    tmpDir: Deno.env.get("TMPDIR") ?? "/tmp",
    useDeepSeek: usesDeepSeek(config, Deno.env.get("DEEPSEEK_API_KEY")) ||
      (keyFile !== undefined && config.model.provider !== "demo"),
    modelBaseUrl: modelBaseUrl(config),
    sandboxEndpoint: {
      endpoint: env("DENO_SANDBOX_ENDPOINT"),
      baseDomain: env("DENO_SANDBOX_BASE_DOMAIN"),
    },
    configDir: base,
    home: env("HOME"),
  });
  const main = new URL("./main.ts", import.meta.url);
  return {
    command,
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      ...plugins.denoFlags,
      ...flags,
      main.protocol === "file:" ? main.pathname : main.href,
      ...args,
    ],
    cwd: workspace,
    stdinSecrets: remoteSecrets(config),
  };
}

/** A remote executor's token and secrets: never in the agent's environment (see `agentSpawn`). */
function remoteSecrets(config: Awaited<ReturnType<typeof loadConfig>>["config"]): string[] {
  if (config.executor.provider !== "deno-sandbox") return [];
  const fromEnv = Object.values(config.executor.secrets).flatMap((s) => s.fromEnv ?? []);
  return ["DENO_DEPLOY_TOKEN", ...fromEnv];
}

/** The user's config folder (user-level dsh.jsonc, trust records): the agent reads it, never writes. */
function userConfigRead(env: (name: string) => string | undefined = Deno.env.get): string[] {
  try {
    return [userConfigDir(env)];
  } catch {
    return [];
  }
}

/**
 * `trust [folder]`: runs the agent's trust subcommand in a Deno whose only write is the user's
 * config folder (the launcher itself writes nothing).
 */
export async function trust(workspace: string, args: readonly string[]): Promise<number> {
  const [configDir] = userConfigRead();
  if (configDir === undefined) {
    Deno.stderr.writeSync(
      new TextEncoder().encode(
        "[dsh] ERROR trust: set HOME (or XDG_CONFIG_HOME) to record the grant\n",
      ),
    );
    return 1;
  }
  const main = new URL("./main.ts", import.meta.url);
  const named = args.find((a, i) => !a.startsWith("-") && args[i - 1] !== "--config");
  const rest = named === undefined ? [...args, workspace] : [...args];
  const { code } = await new Deno.Command(denoCommand(), {
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      "--allow-read",
      `--allow-write=${configDir}`,
      "--allow-env",
      main.protocol === "file:" ? main.pathname : main.href,
      "trust",
      ...rest,
    ],
    cwd: workspace,
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  return code;
}

const FORWARDED = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
const SIGNAL_NUMBERS: Readonly<Record<string, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGKILL: 9,
  SIGTERM: 15,
};

/**
 * Runs the agent with the editor's stdio, forwards SIGTERM, SIGINT and SIGHUP to it (and SIGTERM
 * when its own parent goes away) and waits for it (it stops its jobs and exits by its own
 * deadline), so the launcher never orphans it. A start-up failure (the spawn refused or failing,
 * or the agent dying before it answered) is served to the editor as a JSON-RPC error.
 *
 * @param workspace The workspace folder.
 * @param args The agent's arguments.
 * @param stdin What the editor sends (after an `initialize` answered early, see
 *   `acp/dsh_agent.ts`). @default {Deno.stdin.readable}
 * @returns The exit code (`128 + n` when signal `n` ended the agent).
 *
 * @example Usage
 * ```ts ignore
 * import { launch } from "./launch.ts";
 * Deno.exit(await launch(Deno.cwd(), Deno.args));
 * ```
 */
export async function launch(
  workspace: string,
  args: readonly string[],
  stdin: ReadableStream<Uint8Array> = Deno.stdin.readable,
): Promise<number> {
  let child: Deno.ChildProcess;
  let spawned: ReturnType<typeof agentSpawn>;
  try {
    const { command, args: argv, cwd, stdinSecrets } = await agentCommand(workspace, args);
    try {
      // Piped, not inherited: the relay answers for an agent that dies before it can. Without
      // the key in its environment and without the descriptors the editor left open.
      spawned = agentSpawn(command, argv, cwd, stdinSecrets);
      child = spawned.child;
    } catch (error) {
      throw new Error(
        error instanceof Deno.errors.NotFound
          ? `Cannot start the agent: ${
            JSON.stringify(command)
          } was not found: run the launcher with the absolute path of deno`
          : `Cannot start the agent: cannot run ${JSON.stringify(command)}: ${
            error instanceof Error ? error.message : String(error)
          }`,
        { cause: error },
      );
    }
  } catch (error) {
    // A bad flag or config, or no way to run Deno: tell the editor (every request fails with
    // the message), no stack.
    await serveStartupError(error, stdin);
    return 1;
  }
  let stopping = false;
  const forward = FORWARDED.flatMap((signal) => {
    const listener = () => {
      stopping = true;
      try {
        child.kill(signal);
      } catch { /* already exited */ }
    };
    try {
      Deno.addSignalListener(signal, listener);
    } catch {
      return []; // not supported on this platform
    }
    return [() => Deno.removeSignalListener(signal, listener)];
  });
  // If whatever started the launcher is killed outright, the agent stops too.
  const parent = Deno.ppid;
  const watch = setInterval(() => {
    if (Deno.ppid === parent) return;
    stopping = true;
    try {
      child.kill("SIGTERM");
    } catch { /* already exited */ }
  }, 250);
  Deno.unrefTimer(watch);
  for (const warning of spawned.warnings) {
    Deno.stderr.writeSync(new TextEncoder().encode(`[dsh] WARN launcher: ${warning}\n`));
  }
  const code = await relayAgent(child, () => stopping, spawned.prefix, stdin);
  const status = await child.status;
  clearInterval(watch);
  for (const remove of forward) remove();
  if (status.signal === null) return code;
  return 128 + (SIGNAL_NUMBERS[status.signal] ?? 0);
}

if (import.meta.main) {
  if (
    Deno.args[0] !== "trust" &&
    Deno.args.some((a) => ["-h", "--help", "-V", "--version"].includes(a))
  ) {
    // Print without reading the config (it may be the thing that is broken).
    const text = Deno.args.some((a) => a === "-h" || a === "--help")
      ? AGENT_HELP
      : `dsh-agent ${AGENT_VERSION}\n`;
    Deno.stdout.writeSync(new TextEncoder().encode(text));
    Deno.exit(0);
  }
  const workspace = Deno.env.get("INIT_CWD") ?? Deno.cwd();
  Deno.exit(
    Deno.args[0] === "trust"
      ? await trust(workspace, Deno.args.slice(1))
      : await launch(workspace, Deno.args),
  );
}
