/**
 * Private: the start-up steps of the agent binary: reading the configuration, choosing the
 * model, and loading the tools and plugins after the connection is up.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import type { ModelAdapter } from "../agent/mod.ts";
import type { ToolsContext } from "../registry/mod.ts";
import { type AgentConfig, type ConfigTrust, loadConfig } from "./config.ts";
import type { ProtectedPaths } from "../builtins/protected_paths.ts";
import type { SafetyState } from "./_safety_config.ts";
import { bannerLine } from "./_cli.ts";
import { readEnv } from "./_model_endpoint.ts";
import { retiredModelProblem } from "../agent/deepseek_models.ts";
import type { AgentArgs } from "./main.ts";
import type { SessionsDir } from "../agent/mod.ts";
import { openSessionStore } from "./_session_store.ts";

/** What start-up read: the configuration and the places it names. */
export interface Startup {
  readonly config: AgentConfig;
  /** The config file, when one exists. */
  readonly configFile: string | undefined;
  /** The project config's trust (`undefined` when no config lies inside the workspace). */
  readonly trust: ConfigTrust | undefined;
  /** Where relative paths of the config resolve (its folder, else the cwd). */
  readonly base: string;
  /** The sessions directory (created). */
  readonly sessionsDir: string;
  /** The checked sessions directory (no link on the way). */
  readonly sessions: SessionsDir;
  /** The key that signs session logs. */
  readonly logKey: Uint8Array;
  /** The `--script` model, when given. */
  readonly scripted: ModelAdapter | undefined;
}

/** Reads the config, creates the sessions directory and loads a `--script` model. */
export async function readStartup(cwd: string, options: AgentArgs): Promise<Startup> {
  const { config, file, trust } = await loadConfig(cwd, options.config);
  checkModelEnv();
  const base = file === undefined ? cwd : dirname(resolve(file));
  // Checked for links (and created); the key that signs the logs is read once.
  const { sessions, logKey } = openSessionStore(cwd, base, config.sessionsDir, options.sessionsDir);
  const sessionsDir = sessions.path;
  let scripted: ModelAdapter | undefined;
  if (options.script !== undefined) {
    const { loadScriptModel } = await import("./script_model.ts");
    scripted = await loadScriptModel(options.script);
  }
  return { config, configFile: file, trust, base, sessionsDir, sessions, logKey, scripted };
}

/** A retired `DEEPSEEK_MODEL` fails start-up, not the first prompt. */
function checkModelEnv(): void {
  const problem = retiredModelProblem(readEnv("DEEPSEEK_MODEL") ?? "");
  if (problem !== undefined) {
    throw new TypeError(
      `Cannot start the agent as DEEPSEEK_MODEL ${problem} (it overrides model.model in dsh.jsonc)`,
    );
  }
}

/** The model of every session: scripted, DeepSeek (when `deepSeek`), the demo, or the no-key note. */
export async function chooseModel(
  { config, scripted }: Startup,
  deepSeek: boolean,
  apiKey?: string,
): Promise<{ createAdapter: () => ModelAdapter; model: string }> {
  if (scripted !== undefined) return { createAdapter: () => scripted, model: "scripted" };
  const model = Deno.env.get("DEEPSEEK_MODEL") ?? config.model.model;
  if (deepSeek) {
    const [{ deepSeekOptions }, { DeepSeekAdapter }] = await Promise.all([
      import("./_model_endpoint.ts"),
      import("../agent/mod.ts"),
    ]);
    // Per session, so a bad DEEPSEEK_BASE_URL fails session/new with its message.
    // The key comes from memory (see takeSecrets), never from the environment again.
    const env = (name: string) => name === "DEEPSEEK_API_KEY" ? apiKey : Deno.env.get(name);
    return { createAdapter: () => new DeepSeekAdapter(deepSeekOptions(config, env)), model };
  }
  if (config.model.provider === "demo") {
    const { createDemoModel } = await import("./demo_model.ts");
    return { createAdapter: () => createDemoModel(), model: "demo" };
  }
  const { createNoKeyModel } = await import("./_no_key_model.ts");
  return { createAdapter: () => createNoKeyModel(), model: "none" };
}

/**
 * Loads the built-in tools and the config's plugins, then prints the banner. Session requests
 * wait for the promise; a failure is logged.
 */
export function loadTools(
  ctx: ToolsContext,
  startup: Startup,
  { safety, model, logLevel, workspace, protectedPaths, secrets }: {
    readonly safety: SafetyState;
    readonly protectedPaths: ProtectedPaths;
    readonly model: string;
    readonly logLevel: AgentArgs["logLevel"];
    readonly workspace: string;
    /** The launcher's stdin secrets (a remote executor's token). */
    readonly secrets?: Readonly<Record<string, string>>;
  },
): Promise<void> {
  const { config, base, configFile } = startup;
  const ready = import("./_builtins.ts").then(({ loadBuiltins, usePinnedOpen }) => {
    // The agent binary runs one JavaScript thread: the fs tools may pin folders with the
    // process's working directory (builtins/_pinned_open.ts).
    usePinnedOpen(true);
    return loadBuiltins(ctx, {
      config,
      workspace,
      roots: config.roots.map((root) => resolve(base, root)),
      safety,
      protectedPaths,
      base,
      secrets: secrets ?? {},
    });
  }).then(async () => {
    const { startConfigPlugins } = await import("./_plugins.ts");
    await startConfigPlugins(ctx, config.plugins, base, { protectedPaths });
    if (logLevel !== "debug" && logLevel !== "info") return;
    Deno.stderr.writeSync(new TextEncoder().encode(bannerLine({
      model,
      sandbox: config.executor.provider !== "local"
        ? `${config.executor.provider} (remote, one per session)`
        : config.sandbox !== "auto"
        ? config.sandbox
        : safety.bashSandboxed === undefined
        ? "auto (probed at the first prompt)"
        : safety.bashSandboxed
        ? "workspace-write"
        : "none (bash asks)",
      configFile,
      tools: ctx.tools.list().length,
    })));
  });
  ready.catch((error) => {
    if (ctx.fiber.state !== "disposed") {
      ctx.logger.error("Cannot load the tools", { error: String(error) });
    }
  });
  return ready;
}
