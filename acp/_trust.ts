/**
 * Private: workspace trust, the pure half. A project's `dsh.jsonc` is split into what it may do
 * without trust (narrowing settings) and what it asks for (everything that runs code or widens
 * access), and the user-level config is merged under it. The asked items are the request the
 * user grants with the trust command; a grant covers a later request that asks for the same or
 * less.
 *
 * Kept without trust: `model.provider`, `model.model`, `model.thinking`,
 * `model.reasoningEffort`, `toolMode`, `tools` masks, `ask`/`deny` permission rules,
 * `defaultDecision` `ask`/`deny`, a sandbox level no weaker than the user's, hidden paths that
 * hide more, `env.exclude` and an `env.inherit` no wider than the user's, and on the user's own
 * executor provider a narrower `executor.allowNet` (see `_trust_executor.ts`).
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import { absoluteSecretFiles, gateExecutor, mergeExecutor } from "./_trust_executor.ts";

/** A raw (validated) config object, before defaults. */
export type RawConfig = Readonly<Record<string, unknown>>;

/** One thing a project config asks for that needs trust. */
export interface TrustItem {
  /** Canonical and stable: what a grant records and compares. */
  readonly key: string;
  /** What it means, for the user. */
  readonly label: string;
}

/** The project config split by trust. */
export interface TrustGate {
  /** What needs trust (empty when the config asks for nothing). */
  readonly asked: readonly TrustItem[];
  /** The project config without the asked items (what applies until trusted). */
  readonly restricted: RawConfig;
}

type Rec = Record<string, unknown>;

const SANDBOX_RANK: Readonly<Record<string, number>> = {
  "read-only": 0,
  "workspace-write": 1,
  auto: 1,
  "danger-full-access": 2,
  off: 2,
};
const INHERIT_RANK: Readonly<Record<string, number>> = { none: 0, core: 1, all: 2 };
const DEFAULT_BASE_URL = "https://api.deepseek.com";

function rec(value: unknown): Rec {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? { ...value as Rec }
    : {};
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/**
 * JSON with sorted object keys: the same value always gives the same text.
 *
 * @example Usage
 * ```ts ignore
 * canonicalJson({ b: 1, a: [2] }); // '{"a":[2],"b":1}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Rec).filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * Makes a config's relative paths (local `plugins`, `roots`, `sessionsDir`) absolute against its
 * folder, so configs from two folders can be merged.
 */
export function absolutePaths(raw: RawConfig, dir: string): RawConfig {
  const out: Rec = { ...raw };
  const abs = (p: string) => isAbsolute(p) ? p : resolve(dir, p);
  if (Array.isArray(raw.plugins)) {
    out.plugins = strings(raw.plugins).map((p) => /^\.{1,2}\//.test(p) ? abs(p) : p);
  }
  if (Array.isArray(raw.roots)) out.roots = strings(raw.roots).map(abs);
  if (typeof raw.sessionsDir === "string") out.sessionsDir = abs(raw.sessionsDir);
  if (raw.executor !== undefined) out.executor = absoluteSecretFiles(raw.executor, dir);
  const model = rec(raw.model);
  if (typeof model.apiKeyFile === "string" && !model.apiKeyFile.startsWith("~/")) {
    out.model = { ...model, apiKeyFile: abs(model.apiKeyFile) };
  }
  return out;
}

function mcpLabel(name: string, server: Rec): string {
  if (typeof server.url === "string") return `connects to MCP server "${name}" at ${server.url}`;
  const argv = [server.command, ...strings(server.args)].map(String).join(" ");
  return `starts MCP server "${name}" on this machine: ${argv.slice(0, 160)}`;
}

function ruleLabel(rule: Rec): string {
  const args = Object.entries(rec(rule.args)).map(([k, v]) => `${k}=${String(v)}`).join(", ");
  return `lets ${String(rule.tool)}${args === "" ? "" : ` (${args})`} run without asking`;
}

/** The items of `env` that widen what tools get, and the env that applies without trust. */
function gateEnv(env: Rec, userEnv: Rec, asked: TrustItem[]): Rec | undefined {
  const kept: Rec = {};
  if (env.exclude !== undefined) kept.exclude = env.exclude;
  const inherit = env.inherit;
  if (typeof inherit === "string") {
    const base = typeof userEnv.inherit === "string" ? userEnv.inherit : "all";
    if ((INHERIT_RANK[inherit] ?? 2) > (INHERIT_RANK[base] ?? 2)) {
      asked.push({
        key: `env.inherit:${inherit}`,
        label: `passes the ${inherit === "all" ? "whole" : "core"} environment to tools`,
      });
    } else kept.inherit = inherit;
  }
  for (const glob of strings(env.include)) {
    asked.push({
      key: `env.include:${glob}`,
      label: `passes environment variables matching ${glob} to tools, secrets included`,
    });
  }
  for (const [name, value] of Object.entries(rec(env.set))) {
    asked.push({
      key: `env.set:${name}=${String(value)}`,
      label: `sets ${name} for every process a tool starts`,
    });
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}

function gateModel(model: Rec, userModel: Rec, asked: TrustItem[]): Rec {
  const { baseUrl, apiKeyFile, ...kept } = model;
  if (typeof apiKeyFile === "string") {
    asked.push({
      key: `model.apiKeyFile:${apiKeyFile}`,
      label: `reads the API key from ${apiKeyFile}`,
    });
  }
  const base = typeof userModel.baseUrl === "string" ? userModel.baseUrl : DEFAULT_BASE_URL;
  if (typeof baseUrl === "string" && baseUrl !== base) {
    asked.push({
      key: `model.baseUrl:${baseUrl}`,
      label: `sends your API key and the conversation to ${baseUrl}`,
    });
  }
  return kept;
}

function gateLists(project: Rec, out: Rec, asked: TrustItem[]): void {
  for (const plugin of strings(project.plugins)) {
    asked.push({ key: `plugin:${plugin}`, label: `runs plugin ${plugin} in the agent's process` });
  }
  for (const [name, server] of Object.entries(rec(project.mcpServers))) {
    asked.push({ key: `mcp:${name}:${canonicalJson(server)}`, label: mcpLabel(name, rec(server)) });
  }
  for (const root of strings(project.roots)) {
    asked.push({ key: `root:${root}`, label: `reads and writes the extra root ${root}` });
  }
  for (const command of strings(project.allowRun)) {
    asked.push({ key: `allowRun:${command}`, label: `lets the agent run ${command}` });
  }
  const hidden = strings(project.hiddenPaths);
  for (const entry of hidden.filter((h) => h.startsWith("!"))) {
    asked.push({
      key: `unhide:${entry.slice(1)}`,
      label: `shows ${entry.slice(1)} (hidden credentials) inside the sandbox`,
    });
  }
  if (project.hiddenPaths !== undefined) {
    out.hiddenPaths = hidden.filter((h) => !h.startsWith("!"));
  }
  if (Array.isArray(project.permissions)) {
    const rules = project.permissions.map(rec);
    for (const rule of rules.filter((r) => r.decision === "allow")) {
      asked.push({ key: `allow:${canonicalJson(rule)}`, label: ruleLabel(rule) });
    }
    out.permissions = rules.filter((r) => r.decision !== "allow");
  }
  for (const key of ["plugins", "mcpServers", "roots", "allowRun"]) delete out[key];
}

/**
 * Splits a project config (paths absolute, see {@linkcode absolutePaths}) by trust, against the
 * user-level config it merges onto: a setting asks for trust when it widens what the user-level
 * config (or the default) gives.
 *
 * @param project The project's raw config.
 * @param user The user-level raw config (`{}` when there is none).
 * @returns The asked items and the config that applies without trust.
 */
export function gateProject(project: RawConfig, user: RawConfig = {}): TrustGate {
  const asked: TrustItem[] = [];
  const out: Rec = { ...project };
  if (project.model !== undefined) {
    out.model = gateModel(rec(project.model), rec(user.model), asked);
  }
  const sandbox = project.sandbox;
  if (typeof sandbox === "string") {
    const base = typeof user.sandbox === "string" ? user.sandbox : "auto";
    if ((SANDBOX_RANK[sandbox] ?? 2) > (SANDBOX_RANK[base] ?? 1)) {
      asked.push({
        key: `sandbox:${sandbox}`,
        label: `runs bash with sandbox "${sandbox}"${
          SANDBOX_RANK[sandbox] === 2 ? " (unconfined, on this machine)" : ""
        }`,
      });
      delete out.sandbox;
    }
  }
  if (project.defaultDecision === "allow" && (user.defaultDecision ?? "allow") !== "allow") {
    asked.push({
      key: "defaultDecision:allow",
      label: "lets every call no rule matches run without asking",
    });
    delete out.defaultDecision;
  }
  if (typeof project.sessionsDir === "string") {
    asked.push({
      key: `sessionsDir:${project.sessionsDir}`,
      label: `writes session logs to ${project.sessionsDir}`,
    });
    delete out.sessionsDir;
  }
  if (project.env !== undefined) {
    const env = gateEnv(rec(project.env), rec(user.env), asked);
    if (env === undefined) delete out.env;
    else out.env = env;
  }
  if (project.executor !== undefined) {
    const executor = gateExecutor(project.executor, user.executor, asked);
    if (executor === undefined) delete out.executor;
    else out.executor = executor;
  }
  gateLists(project, out, asked);
  return { asked, restricted: out };
}

/**
 * Merges a project config onto the user-level one (both with absolute paths): objects (`model`,
 * `mcpServers`, `env.set`) merge by key with the project winning, lists add up with the user's
 * entries first (so the user's permission rules match first), a user's `tools.allow` list stays,
 * and other keys of the project replace the user's.
 */
export function mergeConfigs(user: RawConfig, project: RawConfig): RawConfig {
  const out: Rec = { ...user, ...project };
  for (const key of ["model", "mcpServers"]) {
    if (user[key] !== undefined || project[key] !== undefined) {
      out[key] = { ...rec(user[key]), ...rec(project[key]) };
    }
  }
  for (const key of ["permissions", "hiddenPaths", "roots", "allowRun", "plugins"]) {
    if (Array.isArray(user[key]) || Array.isArray(project[key])) {
      const list = [...(user[key] as unknown[] ?? []), ...(project[key] as unknown[] ?? [])];
      out[key] = key === "permissions" ? list : [...new Set(list)];
    }
  }
  if (user.env !== undefined && project.env !== undefined) {
    const u = rec(user.env), p = rec(project.env);
    out.env = {
      ...u,
      ...p,
      include: [...strings(u.include), ...strings(p.include)],
      exclude: [...strings(u.exclude), ...strings(p.exclude)],
      set: { ...rec(u.set), ...rec(p.set) },
    };
  }
  if (user.executor !== undefined || project.executor !== undefined) {
    out.executor = mergeExecutor(user.executor, project.executor);
  }
  if (user.tools !== undefined && project.tools !== undefined) {
    const u = rec(user.tools), p = rec(project.tools);
    out.tools = {
      ...(u.allow ?? p.allow) === undefined ? {} : { allow: u.allow ?? p.allow },
      deny: [...strings(u.deny), ...strings(p.deny)],
    };
  }
  return out;
}

/**
 * Whether a recorded grant covers a request: every asked key was granted (asking for the same
 * or less stays trusted, asking for anything new asks again).
 *
 * @param granted The keys recorded by the trust command.
 * @param asked What the config asks for now.
 * @returns The items not covered (empty: trusted).
 */
export function notGranted(
  granted: readonly string[],
  asked: readonly TrustItem[],
): TrustItem[] {
  const keys = new Set(granted);
  return asked.filter((item) => !keys.has(item.key));
}

/**
 * A digest of a request (sha256 of its sorted keys), shown by the trust command and stored
 * with the grant.
 */
export async function requestDigest(asked: readonly TrustItem[]): Promise<string> {
  const text = canonicalJson([...new Set(asked.map((a) => a.key))].sort());
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return `sha256:${[...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}
