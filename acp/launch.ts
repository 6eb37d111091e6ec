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
import { modelBaseUrl } from "./_model_endpoint.ts";
import { serveStartupError } from "./_startup_error.ts";
import { pluginGrants } from "./_plugin_grants.ts";
import { AGENT_HELP, AGENT_VERSION } from "./_cli.ts";

/** What {@linkcode agentCommand} computed. */
export interface AgentCommand {
  /** The executable (`deno`). */
  readonly command: string;
  /** `run`, the permission flags, the entry point and the agent's arguments. */
  readonly args: readonly string[];
  /** The workspace (the process cwd). */
  readonly cwd: string;
}

/**
 * Computes the command that runs the agent for a workspace under its permission profile.
 *
 * @param workspace The workspace folder (absolute).
 * @param args The agent's arguments (`--config`, `--sessions-dir`, …).
 * @returns The command, arguments and cwd.
 * @throws {SyntaxError} When the config file is invalid.
 * @throws {TypeError} When `DEEPSEEK_BASE_URL` is not an http or https URL.
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
): Promise<AgentCommand> {
  const options = parseAgentArgs(args);
  const { config, file } = await loadConfig(workspace, options.config);
  const base = file === undefined ? workspace : dirname(resolve(workspace, file));
  const sessionsDir = resolve(options.sessionsDir ?? resolve(base, config.sessionsDir));
  const roots = [workspace, ...config.roots.map((r) => resolve(base, r))];
  const execPath = Deno.execPath();
  const command = Deno.permissions.querySync({ name: "run", command: execPath }).state === "granted"
    ? execPath
    : "deno";
  const plugins = await pluginGrants(config.plugins, base, command);
  const flags = permissionFlags(config, {
    roots,
    sessionsDir,
    readOnly: [
      ...(file === undefined ? [] : [resolve(workspace, file)]),
      ...(options.script ? [resolve(workspace, options.script)] : []),
      ...plugins.readable,
    ],
    plugins: plugins.permissions,
    tmpDir: Deno.env.get("TMPDIR") ?? "/tmp",
    useDeepSeek: usesDeepSeek(config, Deno.env.get("DEEPSEEK_API_KEY")),
    modelBaseUrl: modelBaseUrl(config),
  });
  const main = new URL("./main.ts", import.meta.url);
  return {
    command,
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      ...flags,
      main.protocol === "file:" ? main.pathname : main.href,
      ...args,
    ],
    cwd: workspace,
  };
}

if (import.meta.main) {
  const workspace = Deno.env.get("INIT_CWD") ?? Deno.cwd();
  const help = Deno.args.some((a) => ["-h", "--help", "-V", "--version"].includes(a));
  if (help) {
    // Print without reading the config (it may be the thing that is broken).
    const text = Deno.args.some((a) => a === "-h" || a === "--help")
      ? AGENT_HELP
      : `dsh-agent ${AGENT_VERSION}\n`;
    Deno.stdout.writeSync(new TextEncoder().encode(text));
    Deno.exit(0);
  }
  let computed: AgentCommand | undefined;
  try {
    computed = await agentCommand(workspace, Deno.args);
  } catch (error) {
    // A bad flag or config: tell the editor (every request fails with the message), no stack.
    await serveStartupError(error, Deno.stdin.readable);
    Deno.exit(1);
  }
  const { command, args, cwd } = computed;
  const status = await new Deno.Command(command, {
    args: [...args],
    cwd,
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  })
    .spawn().status;
  Deno.exit(status.code);
}
