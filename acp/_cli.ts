/**
 * The agent binary's `--help` text, version and one-line start-up banner.
 *
 * @module
 */

import { CONFIG_FIELD } from "./_config_table.ts";

/** The package version (a test keeps it equal to deno.json's). */
export const AGENT_VERSION = "0.1.0";

/** `agent --help`. */
export const AGENT_HELP: string =
  `dsh-agent ${AGENT_VERSION}: the dsh ACP agent (Agent Client Protocol over stdio)

An editor (Zed, …) starts this program and speaks JSON-RPC on its stdin/stdout; logs go to stderr.

Usage:
  deno task agent [options]          run under the profile computed from dsh.jsonc (recommended)
  deno run <flags> acp/main.ts [options]
  deno task agent trust [folder]     trust a folder's dsh.jsonc (prints what it asks for;
                                     --revoke forgets it, trust --help for more)

Options:
  --config <file>        the configuration (default: ./dsh.jsonc if it exists)
  --script <file.json>   answer with a scripted model instead of DeepSeek or the demo model
  --sessions-dir <dir>   where session logs go (default: the config's "sessionsDir", else
                         $XDG_STATE_HOME/dsh/sessions/<workspace>, ~/.local/state/dsh/...)
  --flush-ms <n>         coalescing window for streamed text and terminal output (default: 50)
  --log-level <level>    debug, info, warn or error (default: $DSH_LOG_LEVEL or info)
  -h, --help             print this help and exit
  -V, --version          print the version and exit

Environment:
  DEEPSEEK_API_KEY       talk to DeepSeek (without it the agent explains how to set it;
                         "deno task demo" runs the offline scripted tour)
  DEEPSEEK_BASE_URL      override "model.baseUrl"
  DEEPSEEK_MODEL         override "model.model"
  DSH_LOG_LEVEL          the default --log-level
  DENO_DEPLOY_TOKEN      the Deno Deploy token of "executor": {"provider": "deno-sandbox"}
                         (DENO_DEPLOY_ORG too for a personal token)
  DENO_SANDBOX_ENDPOINT  another Deno Sandbox endpoint (a self-hosted or test one)

Configuration: $XDG_CONFIG_HOME/dsh/dsh.jsonc (default ~/.config/dsh/dsh.jsonc) is yours and
trusted; a project's ./dsh.jsonc merges on top of it. Until you trust the project folder (above),
everything in its dsh.jsonc that runs code or widens access (plugins, mcpServers, model.baseUrl,
model.apiKeyFile, a weaker sandbox, roots, "!" hiddenPaths, env include/set, allowRun, allow rules,
sessionsDir, another executor provider, wider executor.allowNet, executor.secrets) is ignored,
and each session says what was ignored. A --config file outside the workspace is trusted (you
named it).

dsh.jsonc keys (JSON Schema: dsh.schema.json):
${configKeys()}
`;

/** Every top-level `dsh.jsonc` key from the field table, wrapped at 100 columns. */
function configKeys(): string {
  const properties = CONFIG_FIELD.schema.properties as Record<string, unknown>;
  const keys = Object.keys(properties).filter((key) => key !== "$schema");
  const lines: string[] = [];
  let line = " ";
  for (const [i, key] of keys.entries()) {
    const word = ` ${key}${i === keys.length - 1 ? "." : ","}`;
    if (line.length + word.length > 100) {
      lines.push(line);
      line = " ";
    }
    line += word;
  }
  return [...lines, line].join("\n");
}

/** What the banner shows. */
export interface BannerInfo {
  /** The model id (`demo`, `scripted`, or the DeepSeek model). */
  readonly model: string;
  /** The sandbox level. */
  readonly sandbox: string;
  /** The config file, or `undefined` for defaults. */
  readonly configFile: string | undefined;
  /** How many tools the model can see. */
  readonly tools: number;
}

/**
 * The one-line start-up banner (stderr).
 *
 * @param info Model, sandbox, config file and tool count.
 * @returns The line, with a newline.
 */
export function bannerLine(info: BannerInfo): string {
  return `[dsh] dsh-agent ${AGENT_VERSION} · model ${info.model} · sandbox ${info.sandbox} · config ${
    info.configFile ?? "(none: defaults)"
  } · ${info.tools} tool${info.tools === 1 ? "" : "s"} · ACP on stdio\n`;
}
