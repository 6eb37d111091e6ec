/**
 * Private: `deno task compile`. Builds `dist/dsh-agent` with `deno compile` under the same
 * scoped profile as `deno task agent` (`acp/permissions.ts`), for one workspace folder chosen
 * at compile time: read and write for that folder (every project inside it), the sessions dir
 * and tmp, the user's config folder (read, and written only by the binary's own `trust`
 * subcommand: no second Deno can run it), and `--allow-net` exactly the host:port of the
 * model endpoint: `DEEPSEEK_BASE_URL` when set at compile time, else `model.baseUrl` of the
 * folder's trusted config, else `https://api.deepseek.com` (so `api.deepseek.com:443`); with
 * `"executor": {"provider": "deno-sandbox"}` also the sandbox API's host (`DENO_SANDBOX_ENDPOINT`
 * at compile time, else the SDK's `<region>.sandbox-api.deno.net:443`) and the SDK's variables.
 *
 * ```sh
 * deno task compile [--output dist/dsh-agent] [--workspace ~/code] [--config dsh.jsonc]
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { dirname, resolve } from "node:path";
import { loadConfig } from "./config.ts";
import { permissionFlags, type PermissionFlagsOptions } from "./permissions.ts";
import { sessionsLocation } from "./_session_dir.ts";
import type { AgentConfig } from "./config.ts";
import { modelBaseUrl } from "./_model_endpoint.ts";
import { userConfigDir } from "../core/user_dirs.ts";

/** Options of {@linkcode compileArgs}. */
export interface CompileArgsOptions {
  /** The model endpoint baked into `--allow-net`. */
  readonly baseUrl: string;
  /** The binary to write. */
  readonly output: string;
  /** The (trusted) config whose `env`, `roots`, MCP servers and `allowRun` shape the profile. */
  readonly config: AgentConfig;
  /** The folder the binary may read and write (absolute). */
  readonly workspace: string;
  /** Where relative config paths resolve. @default {workspace} */
  readonly base?: string;
  /** Files the binary only reads (its config). @default {[]} */
  readonly readOnly?: readonly string[];
  /**
   * The user's config folder: read (user-level config, grants), and written by the binary's own
   * `trust` subcommand only (a compiled binary cannot start a second Deno to do it; the fs tools
   * are denied there and the sandbox hides it). @default {undefined}
   */
  readonly userConfigDir?: string;
  /** The temp directory. @default {"/tmp"} */
  readonly tmpDir?: string;
  /**
   * `DENO_SANDBOX_ENDPOINT` (and `DENO_SANDBOX_BASE_DOMAIN`) at compile time: a config with
   * `"executor": {"provider": "deno-sandbox"}` bakes in that host, else the SDK's API hosts.
   * @default {{}}
   */
  readonly sandboxEndpoint?: PermissionFlagsOptions["sandboxEndpoint"];
}

/** Commands the compiled agent may also run (no Deno executable is known at compile time). */
const RUN = ["bwrap", "deno", "node"];

/** The permission flags baked into the binary (the same as `deno task agent`'s for the folder). */
export function compileFlags(options: CompileArgsOptions): string[] {
  const { config, workspace } = options;
  const base = options.base ?? workspace;
  const flags = permissionFlags(config, {
    roots: [workspace, ...config.roots.map((r) => resolve(base, r))],
    sessionsDir: sessionsLocation(workspace, base, config.sessionsDir, undefined).dir,
    readOnly: options.readOnly ?? [],
    tmpDir: options.tmpDir ?? "/tmp",
    useDeepSeek: true,
    modelBaseUrl: options.baseUrl,
    denoPath: "deno",
    sandboxEndpoint: options.sandboxEndpoint ?? {},
    configDir: base,
  });
  const add = (flag: string, name: string, extra: readonly string[]) =>
    `--allow-${name}=${[
      ...new Set([...flag.slice(`--allow-${name}=`.length).split(","), ...extra]),
    ]}`;
  const user = options.userConfigDir === undefined ? [] : [options.userConfigDir];
  return flags.map((flag) => {
    for (const [name, extra] of [["run", RUN], ["read", user], ["write", user]] as const) {
      if (flag.startsWith(`--allow-${name}=`)) return add(flag, name, extra);
    }
    return flag;
  });
}

/** The `deno compile` arguments (after the `deno` executable). */
export function compileArgs(options: CompileArgsOptions): string[] {
  const main = new URL("./main.ts", import.meta.url);
  return [
    "compile",
    "--output",
    options.output,
    ...compileFlags(options),
    main.protocol === "file:" ? main.pathname : main.href,
  ];
}

function userConfigRead(): string | undefined {
  try {
    return userConfigDir();
  } catch {
    return undefined;
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      output: { type: "string" },
      config: { type: "string" },
      workspace: { type: "string" },
    },
    strict: true,
  });
  const workspace = resolve(values.workspace ?? Deno.cwd());
  const configDir = userConfigRead();
  const { config, file } = await loadConfig(workspace, values.config);
  const args = compileArgs({
    baseUrl: modelBaseUrl(config),
    output: values.output ?? "dist/dsh-agent",
    config,
    workspace,
    base: file === undefined ? workspace : dirname(file),
    readOnly: file === undefined ? [] : [file],
    ...(configDir === undefined ? {} : { userConfigDir: configDir }),
    tmpDir: Deno.env.get("TMPDIR") ?? "/tmp",
    // As launch.ts passes them (executorGrants takes "" as unset).
    sandboxEndpoint: {
      endpoint: Deno.env.get("DENO_SANDBOX_ENDPOINT"),
      baseDomain: Deno.env.get("DENO_SANDBOX_BASE_DOMAIN"),
    },
  });
  const { code } = await new Deno.Command(Deno.execPath(), {
    args,
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  Deno.exit(code);
}
