/**
 * The explicit Deno permission profile of the agent binary, derived from its configuration
 * (never `-A`): read/write for the workspace roots, the sessions dir and tmp; run for the shell,
 * the sandbox, Deno (Code Mode) and MCP server commands; net for the model host only; env for
 * the DeepSeek variables.
 *
 * @module
 */
import type { AgentConfig } from "./config.ts";

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
  /** True when DeepSeek will be used (grants net to the model host). */
  readonly useDeepSeek: boolean;
  /** The Deno executable (allowed to run, for Code Mode). @default {Deno.execPath()} */
  readonly denoPath?: string;
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
];

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
 * ok(flags.includes("--allow-net=api.deepseek.com"));
 * ok(!flags.includes("-A"));
 * ```
 */
export function permissionFlags(config: AgentConfig, options: PermissionFlagsOptions): string[] {
  const { roots, sessionsDir, readOnly = [], tmpDir = "/tmp", useDeepSeek } = options;
  const denoPath = options.denoPath ?? Deno.execPath();
  const writable = unique([...roots, sessionsDir, tmpDir]);
  const readable = unique([...writable, ...readOnly]);
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
    ...(config.sandbox === "workspace-write" ? ["bwrap"] : []),
    "deno",
    denoPath,
    ...Object.values(config.mcpServers).flatMap((s) => "command" in s ? [s.command] : []),
    ...config.allowRun,
  ]);
  const hosts = unique([
    ...(useDeepSeek ? [new URL(config.model.baseUrl).host] : []),
    ...Object.values(config.mcpServers).flatMap((s) => "url" in s ? [new URL(s.url).host] : []),
  ]);
  const flags = [
    `--allow-read=${readable.join(",")}`,
    `--allow-write=${writable.join(",")}`,
    `--allow-run=${run.join(",")}`,
    `--allow-env=${AGENT_ENV_VARS.join(",")}`,
  ];
  if (hosts.length > 0) flags.push(`--allow-net=${hosts.join(",")}`);
  return flags;
}
