/**
 * Private: `deno task compile`. Builds `dist/dsh-agent` with `deno compile` under the agent's
 * fixed permission profile, whose `--allow-net` is exactly the host:port of the model endpoint:
 * `DEEPSEEK_BASE_URL` when set at compile time, else `model.baseUrl` of `./dsh.jsonc`, else
 * `https://api.deepseek.com` (so `api.deepseek.com:443`).
 *
 * ```sh
 * deno task compile [--output dist/dsh-agent] [--config dsh.jsonc]
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { loadConfig } from "./config.ts";
import { envFlag } from "./permissions.ts";
import type { AgentConfig } from "./config.ts";
import { modelBaseUrl } from "./_model_endpoint.ts";
import { netHost } from "../core/permission_hint.ts";

/** Options of {@linkcode compileArgs}. */
export interface CompileArgsOptions {
  /** The model endpoint baked into `--allow-net`. */
  readonly baseUrl: string;
  /** The binary to write. */
  readonly output: string;
  /** The config whose `env` policy decides the `--allow-env` flag. */
  readonly config: AgentConfig;
}

/** The commands the compiled agent may run (a compiled binary cannot derive them per workspace). */
const RUN = ["bash", "sh", "setsid", "ps", "kill", "unshare", "setpriv", "bwrap", "deno", "node"];

/** The `deno compile` arguments (after the `deno` executable). */
export function compileArgs(options: CompileArgsOptions): string[] {
  const main = new URL("./main.ts", import.meta.url);
  return [
    "compile",
    "--output",
    options.output,
    "--allow-read",
    "--allow-write",
    envFlag(options.config),
    `--allow-run=${RUN.join(",")}`,
    `--allow-net=${netHost(options.baseUrl)}`,
    main.protocol === "file:" ? main.pathname : main.href,
  ];
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { output: { type: "string" }, config: { type: "string" } },
    strict: true,
  });
  const { config } = await loadConfig(Deno.cwd(), values.config);
  const args = compileArgs({
    baseUrl: modelBaseUrl(config),
    output: values.output ?? "dist/dsh-agent",
    config,
  });
  const { code } = await new Deno.Command(Deno.execPath(), {
    args,
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  Deno.exit(code);
}
