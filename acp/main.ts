/**
 * The dsh ACP agent binary. Reads `dsh.jsonc` (or `--config`), builds the harness (built-in
 * tools, jobs, Code Mode, MCP servers, permission rules) and serves ACP over stdio: stdout
 * carries only protocol frames, logs go to stderr.
 *
 * ```sh
 * deno run <flags from acp/permissions.ts> acp/main.ts [--config dsh.jsonc] [--script answers.json]
 *   [--sessions-dir dir] [--flush-ms 50] [--log-level info] [--help] [--version]
 * ```
 *
 * Uses DeepSeek when `DEEPSEEK_API_KEY` is set (and the provider is `auto` or `deepseek`), the
 * built-in scripted demo model only for `"model": {"provider": "demo"}`, and otherwise answers
 * each prompt with how to set the key (calling no tool).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import type { LogLevel } from "../core/mod.ts";
import type { ToolsContext } from "../registry/tools_plugin.ts";
import type { PreExecuteMiddleware } from "../registry/mod.ts";
import type { AgentConfig } from "./config.ts";
import { compilePermissionRules, type PermissionMatcher } from "../tools/permission_rules.ts";
import { EarlyInitialize } from "./_early_initialize.ts";
// Evaluated after `initialize` is answered: the config, sessions and agent modules weigh.
import type { Startup } from "./_agent_setup.ts";
import type { AgentArgs } from "./_agent_args.ts";
import { guardStdout } from "./_stdout_guard.ts";
import { serveStartupError, writeFrame } from "./_startup_error.ts";
import { errorMessage } from "../core/error_message.ts";
import { defaultRules, type SafetyState } from "./_safety_config.ts";
import { AGENT_HELP, AGENT_VERSION } from "./_cli.ts";
import { exitCodeFor, shutdownWithin, type StopReason, watchLifetime } from "./_shutdown.ts";
import { type AgentSecrets, takeSecrets } from "./_stdin_prefix.ts";
import { LiveTrees } from "../jobs/process_containment.ts";

export type { AgentArgs } from "./_agent_args.ts";

/**
 * Parses the agent's command line.
 *
 * @param args `Deno.args`.
 * @returns The options.
 * @throws {TypeError} On an unknown flag or a bad value.
 *
 * @example Usage
 * ```ts
 * import { parseAgentArgs } from "./main.ts";
 * import { equal } from "node:assert/strict";
 * equal(parseAgentArgs(["--flush-ms", "10"]).flushMs, 10);
 * ```
 */
export function parseAgentArgs(args: readonly string[]): AgentArgs {
  const flags = {
    config: { type: "string" },
    script: { type: "string" },
    "sessions-dir": { type: "string" },
    "flush-ms": { type: "string" },
    "log-level": { type: "string" },
    help: { type: "boolean", short: "h" },
    version: { type: "boolean", short: "V" },
  } as const;
  let values: ReturnType<typeof parseArgs<{ options: typeof flags }>>["values"];
  try {
    ({ values } = parseArgs({ args: [...args], options: flags, strict: true }));
  } catch (error) {
    const reason = (error as Error).message.replace(/\.$/, "");
    throw new TypeError(
      `Cannot start the agent: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}: expected ${
        Object.entries(flags).map(([f, o]) => `--${f}${o.type === "string" ? " <value>" : ""}`)
          .join(", ")
      }; received ${JSON.stringify(args)}`,
    );
  }
  const flushMs = Number(values["flush-ms"] ?? 50);
  if (!Number.isFinite(flushMs) || flushMs < 0) {
    throw new TypeError(
      `Cannot start the agent as '--flush-ms' must be a non-negative number: current value is ${
        JSON.stringify(values["flush-ms"])
      }`,
    );
  }
  const logLevel = values["log-level"] ?? envLogLevel() ?? "info";
  if (!["debug", "info", "warn", "error"].includes(logLevel)) {
    throw new TypeError(
      `Cannot start the agent as '--log-level' must be debug, info, warn or error: current value is ${
        JSON.stringify(logLevel)
      }`,
    );
  }
  return {
    ...(values.config !== undefined ? { config: values.config } : {}),
    ...(values.script !== undefined ? { script: values.script } : {}),
    ...(values["sessions-dir"] !== undefined ? { sessionsDir: values["sessions-dir"] } : {}),
    flushMs,
    logLevel: logLevel as LogLevel,
    ...(values.help === true ? { help: true as const } : {}),
    ...(values.version === true ? { version: true as const } : {}),
  };
}

function envLogLevel(): string | undefined {
  try {
    return Deno.env.get("DSH_LOG_LEVEL");
  } catch {
    return undefined;
  }
}

/**
 * Whether the agent will talk to DeepSeek (a key is set and the provider is not `demo`).
 *
 * @param config The configuration.
 * @param apiKey The `DEEPSEEK_API_KEY` value.
 * @returns True for DeepSeek.
 *
 * @example Usage
 * ```ts
 * import { DEFAULT_CONFIG } from "./config.ts";
 * import { usesDeepSeek } from "./main.ts";
 * import { equal } from "node:assert/strict";
 * equal(usesDeepSeek(DEFAULT_CONFIG, undefined), false);
 * equal(usesDeepSeek(DEFAULT_CONFIG, "sk-1"), true);
 * ```
 */
export function usesDeepSeek(config: AgentConfig, apiKey: string | undefined): boolean {
  if (config.model.provider === "demo") return false;
  return config.model.provider === "deepseek" || (apiKey !== undefined && apiKey !== "");
}

function permissionGate(config: AgentConfig, safety: SafetyState): PreExecuteMiddleware {
  // The user's rules first, then the safe defaults (MCP tools and unsandboxed bash ask),
  // compiled once and again only when bash learns whether it is sandboxed.
  let compiled: { sandboxed: boolean | undefined; match: PermissionMatcher } | undefined;
  return function gate({ exec }, next) {
    if (compiled === undefined || compiled.sandboxed !== safety.bashSandboxed) {
      const rules = [...config.permissions, ...defaultRules(safety)];
      compiled = { sandboxed: safety.bashSandboxed, match: compilePermissionRules(rules) };
    }
    const rule = compiled.match(exec.name, exec.arguments)?.rule;
    const verdict = rule?.decision ?? config.defaultDecision;
    if (verdict === "allow") return next();
    if (verdict === "deny") {
      return {
        kind: "deny",
        reason: rule?.reason ?? `the permission rules deny tool "${exec.name}"`,
      };
    }
    return { kind: "ask", ...(rule?.reason !== undefined ? { reason: rule.reason } : {}) };
  };
}

/**
 * Runs the agent over stdio until stdin closes.
 *
 * @param args The command line.
 * @returns The exit code.
 *
 * @example Usage
 * ```ts ignore
 * import { main } from "./main.ts";
 * Deno.exit(await main(Deno.args));
 * ```
 */
export async function main(args: readonly string[]): Promise<number> {
  // `trust [folder]`: the user grants a folder's config in a terminal (see acp/_trust_cli.ts).
  if (args[0] === "trust") return await trustSubcommand(args.slice(1));
  // A bad flag, config or script must reach the editor as an error, not as a silent exit.
  let startupError: unknown;
  let options: AgentArgs = { flushMs: 50, logLevel: "info" };
  try {
    options = parseAgentArgs(args);
  } catch (error) {
    startupError = error;
  }
  if (options.help || options.version) {
    await writeFrame(options.help ? AGENT_HELP.trimEnd() : `dsh-agent ${AGENT_VERSION}`);
    return 0;
  }
  const early = new EarlyInitialize();
  // In a terminal nobody sends `initialize` right away: load first, so the banner shows.
  const terminal = Deno.stdin.isTerminal();
  // The key, from the launcher's first stdin line (or the environment), is held in memory only.
  const secrets = await takeSecrets(early.input, !terminal);
  early.input = secrets.input;
  if (!terminal) await early.take();
  guardStdout();
  let startup: Startup | undefined;
  if (startupError === undefined) {
    try {
      const { readStartup } = await import("./_agent_setup.ts");
      startup = await readStartup(Deno.cwd(), options);
    } catch (error) {
      startupError = error;
    }
  }
  if (startupError !== undefined || startup === undefined) {
    if (terminal) await early.take();
    await serveStartupError(startupError, early.input);
    return 1;
  }
  return await serve(startup, options, secrets, async () => {
    if (terminal) await early.take();
    return early;
  });
}

async function trustSubcommand(args: readonly string[]): Promise<number> {
  const { runTrust } = await import("./_trust_cli.ts");
  try {
    return await runTrust(args, Deno.cwd());
  } catch (error) {
    Deno.stderr.writeSync(new TextEncoder().encode(`[dsh] ERROR trust: ${errorMessage(error)}\n`));
    return 1;
  }
}

/**
 * The trust notice, and the sandbox's: it is probed when the first prompt needs it, not at
 * start-up; a failed probe is said in the session (bash then fails with it, and asks).
 */
function sessionNotice(
  safety: SafetyState,
  trustText: string | undefined,
): Promise<string | undefined> {
  return (safety.probe?.() ?? Promise.resolve()).then(
    () => safety.notice,
    (error) => `Cannot prepare bash: ${errorMessage(error)}`,
  ).then((sandbox) =>
    [trustText, sandbox].filter((t) => t !== undefined).join("\n\n") || undefined
  );
}

/** Builds the harness and serves ACP until stdin closes or a stop is requested. */
async function serve(
  startup: Startup,
  options: AgentArgs,
  { deepSeekApiKey: apiKey, values: stdinSecrets }: Omit<AgentSecrets, "input">,
  connect: () => Promise<EarlyInitialize>,
): Promise<number> {
  const { config } = startup;
  const [{ createHarness }, { createAcpServer }] = await Promise.all([
    import("../registry/tools_plugin.ts"),
    import("./server.ts"),
  ]);
  // A key file is read per session, so a missing one fails session/new with its message.
  const keyed = apiKey ?? (config.model.apiKeyFile !== undefined ? "(file)" : undefined);
  const deepSeek = startup.scripted === undefined && usesDeepSeek(config, keyed);
  const { chooseModel, loadTools } = await import("./_agent_setup.ts");
  const { createAdapter, model } = await chooseModel(startup, deepSeek, apiKey);
  const safety: SafetyState = { bashSandboxed: undefined, notice: undefined };
  const ctx: ToolsContext = await createHarness({ name: "dsh", logLevel: options.logLevel });
  // This agent's tool process trees: a signal or the end of stdin kills them all at once.
  const liveTrees = new LiveTrees();
  const workspace = Deno.cwd();
  const { agentProtectedPaths } = await import("./_trust_guard.ts");
  const protectedPaths = agentProtectedPaths({
    roots: [workspace, ...config.roots.map((root) => resolve(startup.base, root))],
    configFile: startup.configFile,
    trust: startup.trust,
  });
  const { trustNotice, trustStderrLine } = await import("./_trust_cli.ts");
  const trustText = trustNotice(startup.trust);
  if (trustText !== undefined) {
    Deno.stderr.writeSync(new TextEncoder().encode(trustStderrLine(startup.trust!)));
  }
  // A signal, the end of stdin or the parent's exit stops every job's process tree in time.
  const lifetime = watchLifetime();
  let reason: StopReason = "stdin closed";
  try {
    ctx.tools.use("tools/pre-execute", permissionGate(config, safety));
    ctx.tools.restrict(config.tools); // dsh.jsonc "tools": hidden from every session's model
    // Tools load after the connection is up; session requests wait for them.
    const ready = loadTools(ctx, startup, {
      liveTrees,
      safety,
      model,
      logLevel: options.logLevel,
      workspace,
      protectedPaths,
      secrets: stdinSecrets,
    });
    const { input, initialized } = await connect();
    const server = createAcpServer(ctx, {
      ready,
      createAdapter,
      model,
      sessionsDir: startup.sessionsDir,
      logKey: startup.logKey,
      verifySessionsDir: () => startup.sessions.verify(),
      toolMode: config.toolMode,
      flushMs: options.flushMs,
      // Every process a tool starts gets this scrubbed environment (never DEEPSEEK_API_KEY).
      envPolicy: config.env,
      notice: () => sessionNotice(safety, trustText),
      ...(initialized !== undefined ? { initialized } : {}),
    });
    const connection = server.connect(Deno.stdout.writable, input);
    reason = await Promise.race([
      connection.closed.then(() => "stdin closed" as const),
      lifetime.stopRequested,
    ]);
  } finally {
    if (reason !== "stdin closed") ctx.logger.info(`Stopping: ${reason}`);
    await shutdownWithin(() => ctx.fiber.dispose(), {
      trees: liveTrees,
      log: (m) => ctx.logger.warn(m),
    });
    lifetime[Symbol.dispose]();
  }
  return exitCodeFor(reason);
}

if (import.meta.main) {
  try {
    // Exit now: after a signal, a read of stdin may still be pending.
    Deno.exit(await main(Deno.args));
  } catch (error) {
    Deno.stderr.writeSync(new TextEncoder().encode(`[dsh] ERROR acp: ${errorMessage(error)}\n`));
    Deno.exit(1);
  }
}
