/**
 * The explicit Deno permission profile of the agent binary, derived from its configuration
 * (never `-A`): read/write for the workspace roots, the sessions dir and tmp; run for the shell,
 * the sandbox, Deno (Code Mode) and MCP server commands; net for the model host only; env for
 * the DeepSeek variables, or all of it when the `env` policy passes the inherited environment on
 * to tools (the agent reads it to scrub it: secrets and `DEEPSEEK_API_KEY` never reach a tool).
 *
 * @module
 */
import type { AgentConfig } from "./config.ts";
import { netHost } from "../core/permission_hint.ts";
import { CORE_ENV_VARS } from "../core/env_policy.ts";
import type { PluginPermissions } from "./plugin_permissions.ts";
import { sessionKeyDir } from "../agent/session_key.ts";
import { executorGrants } from "./_executor_permissions.ts";

/** Options of {@linkcode permissionFlags}. */
export interface PermissionFlagsOptions {
  /** Workspace roots the agent may read and write (absolute). */
  readonly roots: readonly string[];
  /** The sessions directory (absolute). */
  readonly sessionsDir: string;
  /** Extra paths the agent only reads (config file, script). @default {[]} */
  readonly readOnly?: readonly string[];
  /** The temp directory. @default {"/tmp"} */
  readonly tmpDir?: string;
  /** True when DeepSeek will be used (grants net to the model's host:port). */
  readonly useDeepSeek: boolean;
  /** The model endpoint (`DEEPSEEK_BASE_URL` when set). @default {config.model.baseUrl} */
  readonly modelBaseUrl?: string;
  /** The Deno executable (allowed to run, for Code Mode). @default {Deno.execPath()} */
  readonly denoPath?: string;
  /** What the config's plugins declare (`export const permissions`), added as is. @default {{}} */
  readonly plugins?: PluginPermissions;
  /** The folder of the key that signs session logs (read and written). @default {sessionKeyDir()} */
  readonly keyDir?: string;
  /**
   * For `"executor": {"provider": "deno-sandbox"}`: `DENO_SANDBOX_ENDPOINT` and
   * `DENO_SANDBOX_BASE_DOMAIN`, whose host the agent may reach. @default {the SDK's API hosts}
   */
  readonly sandboxEndpoint?: {
    readonly endpoint?: string | undefined;
    readonly baseDomain?: string | undefined;
  };
  /** Where the config's relative paths (secret files) resolve. @default {roots[0]} */
  readonly configDir?: string;
  /** `$HOME`, for `~/` secret files. @default {undefined} */
  readonly home?: string | undefined;
}

/** The environment variables the agent reads. */
export const AGENT_ENV_VARS: readonly string[] = [
  "DEEPSEEK_API_KEY",
  "DEEPSEEK_BASE_URL",
  "DEEPSEEK_MODEL",
  "DSH_LOG_LEVEL",
  "HOME",
  "TMPDIR",
  "PATH",
  // Read by the MCP SDK's stdio transport (default child environment) and its `which`.
  "LOGNAME",
  "SHELL",
  "TERM",
  "USER",
  "OSTYPE",
  "PATHEXT",
  // Read by Deno's node:child_process spawn (copied to the child), which the MCP SDK uses.
  "NODE_V8_COVERAGE",
  // Masked inside the sandbox (host sockets live there).
  "XDG_RUNTIME_DIR",
  // The user's dsh folders (user-level config, trust records, state).
  "XDG_CONFIG_HOME",
  "XDG_STATE_HOME",
];

/**
 * The agent's `--allow-env` flag: full env read when tools inherit the environment (`"all"`, or
 * an `include` glob), else the named variables.
 *
 * @example
 * ```ts
 * import { DEFAULT_CONFIG, envFlag } from "@dsh/harness/acp";
 * envFlag(DEFAULT_CONFIG); // "--allow-env"
 * ```
 */
export function envFlag(config: AgentConfig, extra: readonly string[] = []): string {
  const { inherit = "all", include = [] } = config.env;
  if (inherit === "all" || include.some((name) => /[*?]/.test(name))) return "--allow-env";
  return `--allow-env=${
    unique([...AGENT_ENV_VARS, ...CORE_ENV_VARS, ...include, ...extra]).join(",")
  }`;
}

/** The session-log key's folder, or "" (nothing granted) when there is no HOME to find it. */
function defaultKeyDir(): string {
  try {
    return sessionKeyDir();
  } catch {
    return "";
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.filter((v) => v !== ""))];
}

/**
 * Computes the `deno run` permission flags for the agent binary.
 *
 * @param config The agent configuration.
 * @param options Roots, sessions dir, tmp and whether DeepSeek is used.
 * @returns The flags, for example `["--allow-read=/w,/s,/tmp", …]`.
 * @throws {TypeError} When the model base URL is not a valid URL.
 *
 * @example Usage
 * ```ts
 * import { DEFAULT_CONFIG } from "./config.ts";
 * import { permissionFlags } from "./permissions.ts";
 * import { ok } from "node:assert/strict";
 * const flags = permissionFlags(DEFAULT_CONFIG, {
 *   roots: ["/w"],
 *   sessionsDir: "/w/.dsh/sessions",
 *   useDeepSeek: true,
 *   denoPath: "/usr/bin/deno",
 * });
 * ok(flags.includes("--allow-net=api.deepseek.com:443"));
 * ok(!flags.includes("-A"));
 * ```
 */
export function permissionFlags(config: AgentConfig, options: PermissionFlagsOptions): string[] {
  const { roots, sessionsDir, readOnly = [], tmpDir = "/tmp", useDeepSeek } = options;
  const denoPath = options.denoPath ?? Deno.execPath();
  const plugins = options.plugins ?? {};
  const keyDir = options.keyDir ?? defaultKeyDir();
  // A remote executor: the sandbox API's host, the SDK's variables, secret files.
  const executor = executorGrants(
    config.executor,
    options.sandboxEndpoint ?? {},
    options.configDir ?? roots[0] ?? "/",
    options.home,
  );
  const writable = unique([...roots, sessionsDir, keyDir, tmpDir, ...plugins.write ?? []]);
  const readable = unique([...writable, ...readOnly, ...plugins.read ?? [], ...executor.read]);
  const run = unique([
    "bash",
    "sh",
    "setsid",
    // Process trees: Deno demands --allow-all for /proc/<pid> reads and an unrestricted
    // --allow-run for Deno.kill, so the jobs layer walks them with ps and signals them with kill.
    "ps",
    "kill",
    // Containment: every tool process runs in its own PID namespace (jobs/process_containment.ts).
    "unshare",
    "setpriv",
    ...(config.sandbox === "off" || config.sandbox === "danger-full-access" ? [] : ["bwrap"]),
    "deno",
    denoPath,
    ...Object.values(config.mcpServers).flatMap((s) => "command" in s ? [s.command] : []),
    ...config.allowRun,
    ...plugins.run ?? [],
  ]);
  const hosts = unique([
    // Exactly the endpoint's host:port (443 or 80 when the URL names no port).
    ...(useDeepSeek ? [netHost(options.modelBaseUrl ?? config.model.baseUrl)] : []),
    ...Object.values(config.mcpServers).flatMap((s) => "url" in s ? [new URL(s.url).host] : []),
    ...plugins.net ?? [],
    ...executor.net,
  ]);
  const flags = [
    `--allow-read=${readable.join(",")}`,
    `--allow-write=${writable.join(",")}`,
    `--allow-run=${run.join(",")}`,
    envFlag(config, [...plugins.env ?? [], ...executor.env]),
  ];
  if (hosts.length > 0) flags.push(`--allow-net=${hosts.join(",")}`);
  return flags;
}
