/**
 * The environment every process a tool starts receives (bash, MCP stdio servers, the Code Mode
 * subprocess), in the spirit of Codex's `shell_environment_policy`. One pure function,
 * {@linkcode scrubEnv}, decides; {@linkcode childEnv} applies it to the agent's own environment.
 *
 * The rules, in order:
 * 1. `inherit` picks the starting set: `"all"` (the default), `"core"` ({@linkcode CORE_ENV_VARS})
 *    or `"none"`.
 * 2. Variables that look like secrets are dropped from that set: names containing
 *    {@linkcode SECRET_NAME_PARTS} (case-insensitive substrings) or having one of
 *    {@linkcode SECRET_NAME_WORDS} as a `_`-separated word (`GH_PAT`, `SENTRY_DSN`), and values
 *    that carry credentials ({@linkcode looksSecretValue}: a URL with a password such as
 *    `postgres://app:pw@db/app`, a long token as its user name, or a `password=` field).
 * 3. `include` patterns pass matching variables anyway (whatever `inherit` says, secrets included).
 * 4. `exclude` patterns drop matching variables (they win over `include`).
 * 5. `set` assigns literal values.
 * 6. {@linkcode NEVER_PASSED_ENV_VARS} (`DEEPSEEK_API_KEY`) are removed, always.
 *
 * Patterns are case-insensitive globs where `*` matches any run of characters and `?` one.
 *
 * @module
 */

/** Where the inherited set starts. */
export type EnvInherit = "all" | "core" | "none";

/** An environment policy (the `env` key of `dsh.jsonc`). */
export interface EnvPolicy {
  /** The starting set. @default {"all"} */
  readonly inherit?: EnvInherit;
  /** Globs of variables passed even when `inherit` leaves them out or they look like secrets. @default {[]} */
  readonly include?: readonly string[];
  /** Globs of variables never passed (wins over `include`). @default {[]} */
  readonly exclude?: readonly string[];
  /** Literal values set last. @default {{}} */
  readonly set?: Readonly<Record<string, string>>;
}

/** The variables `inherit: "core"` keeps (when present). */
export const CORE_ENV_VARS: readonly string[] = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "USER",
  "USERNAME",
  "TMPDIR",
  "TEMP",
  "TMP",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TERM",
  "TZ",
];

/** A variable whose name contains one of these (any case) is dropped unless `include` names it. */
export const SECRET_NAME_PARTS: readonly string[] = [
  "KEY",
  "SECRET",
  "TOKEN",
  "PASSWORD",
  "PASSWD",
  "CREDENTIAL",
  "AUTH",
];

/**
 * A variable with one of these as a whole `_`-separated word of its name (any case) is dropped
 * unless `include` names it: `GH_PAT`, `PAT`, `SENTRY_DSN`, `DSN_PRIMARY` (but not `PATH`).
 */
export const SECRET_NAME_WORDS: readonly string[] = ["PAT", "DSN"];

/** Variables no tool process ever receives, whatever the policy says. */
export const NEVER_PASSED_ENV_VARS: readonly string[] = ["DEEPSEEK_API_KEY"];

const INHERITS: readonly EnvInherit[] = ["all", "core", "none"];

/**
 * Compiles a case-insensitive glob (`*` any run, `?` one character) to a regular expression.
 *
 * @param glob The pattern.
 * @returns The anchored expression.
 */
function globRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*").replaceAll(
    "?",
    ".",
  );
  return new RegExp(`^${body}$`, "i");
}

/**
 * Whether a variable name looks like a secret ({@linkcode SECRET_NAME_PARTS}).
 *
 * @param name The variable name.
 * @returns True for names such as `GITHUB_TOKEN`, `aws_secret_access_key` or `PGPASSWORD`.
 *
 * @example Usage
 * ```ts
 * import { looksSecret } from "./env_policy.ts";
 * import { equal } from "node:assert/strict";
 * equal(looksSecret("GITHUB_TOKEN"), true);
 * equal(looksSecret("PATH"), false);
 * ```
 */
export function looksSecret(name: string): boolean {
  const upper = name.toUpperCase();
  if (SECRET_NAME_PARTS.some((part) => upper.includes(part))) return true;
  const words = upper.split("_");
  return SECRET_NAME_WORDS.some((word) => words.includes(word));
}

/** `scheme://user:password@`, `scheme://:password@` (the password may be empty only with a user). */
const URL_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:[^\s/?#@]+@/i;
/** `scheme://<token>@`: a user name of 20 or more token characters is a credential. */
const URL_TOKEN_USER = /[a-z][a-z0-9+.-]*:\/\/[A-Za-z0-9_\-.~%]{20,}@/i;
/** `password=…`, `pwd=…` fields of libpq, ODBC and JDBC connection strings. */
const PASSWORD_FIELD = /(?:^|[\s;&?,])(?:password|passwd|pwd)=[^\s;&]/i;

/**
 * Whether a variable's value carries credentials: a URL with a password
 * (`postgres://app:pw@db/app`, `redis://:pw@cache`), a URL whose user name is a long token
 * (`https://ghp_…@github.com`), or a `password=` / `pwd=` field of a connection string.
 *
 * @param value The variable's value.
 * @returns True when the value should not reach a child process.
 *
 * @example Usage
 * ```ts
 * import { looksSecretValue } from "./env_policy.ts";
 * import { equal } from "node:assert/strict";
 * equal(looksSecretValue("postgres://app:hunter2@db:5432/app"), true);
 * equal(looksSecretValue("https://example.com/path"), false);
 * ```
 */
export function looksSecretValue(value: string): boolean {
  return URL_PASSWORD.test(value) || URL_TOKEN_USER.test(value) || PASSWORD_FIELD.test(value);
}

/**
 * Checks a policy's shape and returns it; every error names the key and the value received.
 *
 * @param value The raw value (for example the parsed `env` key of `dsh.jsonc`).
 * @param where How to name the value in errors. @default {"env"}
 * @returns The policy.
 * @throws {TypeError} On a wrong shape, an unknown key or an unknown `inherit`.
 *
 * @example Usage
 * ```ts
 * import { checkEnvPolicy } from "./env_policy.ts";
 * import { equal, throws } from "node:assert/strict";
 * equal(checkEnvPolicy({ inherit: "core" }).inherit, "core");
 * throws(() => checkEnvPolicy({ inherit: "some" }), /"env.inherit" must be one of/);
 * ```
 */
export function checkEnvPolicy(value: unknown, where = "env"): EnvPolicy {
  if (value === undefined) return {};
  const fail = (message: string): never => {
    throw new TypeError(message);
  };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    fail(`"${where}" must be an object: received ${JSON.stringify(value)}`);
  }
  const raw = value as Record<string, unknown>;
  const known = ["inherit", "include", "exclude", "set"];
  for (const key of Object.keys(raw)) {
    if (!known.includes(key)) {
      fail(`unknown key "${where}.${key}": expected one of ${known.join(", ")}`);
    }
  }
  const policy: { -readonly [K in keyof EnvPolicy]: EnvPolicy[K] } = {};
  if (raw.inherit !== undefined) {
    if (!INHERITS.includes(raw.inherit as EnvInherit)) {
      fail(
        `"${where}.inherit" must be one of "all", "core", "none": received ${
          JSON.stringify(raw.inherit)
        }`,
      );
    }
    policy.inherit = raw.inherit as EnvInherit;
  }
  for (const key of ["include", "exclude"] as const) {
    const list = raw[key];
    if (list === undefined) continue;
    if (!Array.isArray(list) || !list.every((v) => typeof v === "string" && v !== "")) {
      fail(
        `"${where}.${key}" must be an array of non-empty strings: received ${JSON.stringify(list)}`,
      );
    }
    policy[key] = list as string[];
  }
  if (raw.set !== undefined) {
    const set = raw.set;
    if (
      typeof set !== "object" || set === null || Array.isArray(set) ||
      !Object.values(set).every((v) => typeof v === "string")
    ) {
      fail(`"${where}.set" must be an object of string values: received ${JSON.stringify(set)}`);
    }
    policy.set = set as Record<string, string>;
  }
  return policy;
}

/**
 * Applies a policy to an environment (pure: no process state is read).
 *
 * @param source The environment to filter (for example `Deno.env.toObject()`).
 * @param policy The policy. @default {{}}
 * @returns The environment a child process receives.
 *
 * @example Usage
 * ```ts
 * import { scrubEnv } from "./env_policy.ts";
 * import { deepEqual } from "node:assert/strict";
 * const source = { PATH: "/bin", GITHUB_TOKEN: "t", DEEPSEEK_API_KEY: "sk", LANG: "C" };
 * deepEqual(scrubEnv(source), { PATH: "/bin", LANG: "C" });
 * deepEqual(scrubEnv(source, { inherit: "none", include: ["github_*"] }), { GITHUB_TOKEN: "t" });
 * ```
 */
export function scrubEnv(
  source: Readonly<Record<string, string>>,
  policy: EnvPolicy = {},
): Record<string, string> {
  const inherit = policy.inherit ?? "all";
  const include = (policy.include ?? []).map(globRegExp);
  const exclude = (policy.exclude ?? []).map(globRegExp);
  const core = new Set(CORE_ENV_VARS);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    const inherited = inherit === "all" || (inherit === "core" && core.has(name));
    const secret = looksSecret(name) || looksSecretValue(value);
    const passed = (inherited && !secret) || include.some((r) => r.test(name));
    if (passed && !exclude.some((r) => r.test(name))) out[name] = value;
  }
  Object.assign(out, policy.set ?? {});
  for (const name of NEVER_PASSED_ENV_VARS) delete out[name];
  return out;
}

/**
 * The agent's own environment, as far as its Deno permissions let it read: everything with
 * `--allow-env`, else each variable the policy could pass that is readable one by one.
 *
 * @param policy The policy (its `include` names the extra variables to try).
 * @returns The readable environment.
 */
function readableEnv(policy: EnvPolicy): Record<string, string> {
  try {
    return Deno.env.toObject();
  } catch {
    const out: Record<string, string> = {};
    const names = [...CORE_ENV_VARS, ...(policy.include ?? []).filter((n) => !/[*?]/.test(n))];
    for (const name of names) {
      try {
        const value = Deno.env.get(name);
        if (value !== undefined) out[name] = value;
      } catch { /* not readable under this profile: not passed */ }
    }
    return out;
  }
}

/**
 * The environment for a child process a tool starts: the agent's environment through
 * {@linkcode scrubEnv}. Spawn it with `clearEnv: true` so nothing else leaks through.
 *
 * @param policy The policy (the harness passes its own: there is no process-wide one). @default {{}}
 * @returns The child's environment.
 *
 * @example Usage
 * ```ts ignore
 * import { childEnv } from "./env_policy.ts";
 * new Deno.Command("bash", { args: ["-c", "env"], clearEnv: true, env: childEnv() });
 * ```
 */
export function childEnv(policy: EnvPolicy = {}): Record<string, string> {
  return scrubEnv(readableEnv(policy), policy);
}
