/**
 * Private: the start-up steps of the agent binary: reading the configuration, choosing the
 * model, and loading the tools and plugins after the connection is up.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import type { ModelAdapter } from "../agent/mod.ts";
import type { ToolsContext } from "../registry/mod.ts";
import { type AgentConfig, loadConfig } from "./config.ts";
import type { SafetyState } from "./_safety_config.ts";
import { bannerLine } from "./_cli.ts";
import { readEnv } from "./_model_endpoint.ts";
import { retiredModelProblem } from "../agent/deepseek_models.ts";
import type { AgentArgs } from "./main.ts";

/** What start-up read: the configuration and the places it names. */
export interface Startup {
  readonly config: AgentConfig;
  /** The config file, when one exists. */
  readonly configFile: string | undefined;
  /** Where relative paths of the config resolve (its folder, else the cwd). */
  readonly base: string;
  /** The sessions directory (created). */
  readonly sessionsDir: string;
  /** The `--script` model, when given. */
  readonly scripted: ModelAdapter | undefined;
}

/** Reads the config, creates the sessions directory and loads a `--script` model. */
export async function readStartup(cwd: string, options: AgentArgs): Promise<Startup> {
  const { config, file } = await loadConfig(cwd, options.config);
  checkModelEnv();
  const base = file === undefined ? cwd : dirname(resolve(file));
  const sessionsDir = resolve(options.sessionsDir ?? resolve(base, config.sessionsDir));
  await Deno.mkdir(sessionsDir, { recursive: true });
  let scripted: ModelAdapter | undefined;
  if (options.script !== undefined) {
    const { loadScriptModel } = await import("./script_model.ts");
    scripted = await loadScriptModel(options.script);
  }
  return { config, configFile: file, base, sessionsDir, scripted };
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
): Promise<{ createAdapter: () => ModelAdapter; model: string }> {
  if (scripted !== undefined) return { createAdapter: () => scripted, model: "scripted" };
  const model = Deno.env.get("DEEPSEEK_MODEL") ?? config.model.model;
  if (deepSeek) {
    const [{ deepSeekOptions }, { DeepSeekAdapter }] = await Promise.all([
      import("./_model_endpoint.ts"),
      import("../agent/mod.ts"),
    ]);
    // Per session, so a bad DEEPSEEK_BASE_URL fails session/new with its message.
    return { createAdapter: () => new DeepSeekAdapter(deepSeekOptions(config)), model };
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
  { safety, model, logLevel, workspace }: {
    readonly safety: SafetyState;
    readonly model: string;
    readonly logLevel: AgentArgs["logLevel"];
    readonly workspace: string;
  },
): Promise<void> {
  const { config, base, configFile } = startup;
  const ready = import("./_builtins.ts").then(({ loadBuiltins }) =>
    loadBuiltins(ctx, {
      config,
      workspace,
      roots: config.roots.map((root) => resolve(base, root)),
      safety,
    })
  ).then(async () => {
    const { startConfigPlugins } = await import("./_plugins.ts");
    await startConfigPlugins(ctx, config.plugins, base);
    if (logLevel !== "debug" && logLevel !== "info") return;
    Deno.stderr.writeSync(new TextEncoder().encode(bannerLine({
      model,
      sandbox: config.sandbox !== "auto"
        ? config.sandbox
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
