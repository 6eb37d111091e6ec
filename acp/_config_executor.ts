/**
 * Private: the `executor` key of `dsh.jsonc`: where tools run. `"local"` (the default) is this
 * machine (bubblewrap, see `sandbox`); `"deno-sandbox"` is one Deno Sandbox microVM per session
 * (`remote/`), reached with the user's `DENO_DEPLOY_TOKEN`.
 *
 * @module
 */
import {
  asRecord,
  type ConfigSchema,
  customField,
  didYouMean,
  type Fail,
} from "./_config_fields.ts";

/** Where tools run: this machine, or a Deno Sandbox per session. */
export type ExecutorProvider = "local" | "deno-sandbox";

/** The executor providers `dsh.jsonc` may choose. */
const EXECUTOR_PROVIDERS: readonly ExecutorProvider[] = ["local", "deno-sandbox"];

/** The Deno Sandbox regions of the pinned SDK (`AVAILABLE_REGIONS` of `@deno/sandbox@0.13.2`). */
export const DENO_SANDBOX_REGIONS: readonly string[] = ["ord", "ams"];

/** The memory range of a Deno Sandbox, in MiB. */
const SANDBOX_MEMORY_MIB = { min: 768, max: 4096 } as const;

/** One secret for the sandbox: substituted on the wire for HTTPS requests to `hosts` only. */
export interface ExecutorSecret {
  /** The hosts whose HTTPS requests get the value (`api.example.com`, `*.example.com`). */
  readonly hosts: readonly string[];
  /** Read the value from this environment variable of the agent. */
  readonly fromEnv?: string;
  /** Read the value from this file (absolute, `~/`, or relative to the config file). */
  readonly fromFile?: string;
}

/** The `executor` setting, defaults applied. */
export interface ExecutorConfig {
  /** Where tools run. @default {"local"} */
  readonly provider: ExecutorProvider;
  /** The Deno Sandbox region (`ord`, `ams`). @default {the SDK's first, "ord"} */
  readonly region?: string;
  /** The sandbox's memory in MiB (768 to 4096). @default {the SDK's, 1280} */
  readonly memory?: number;
  /** Hosts the sandbox may reach (`[]`: none); required for `deno-sandbox`. @default {[]} */
  readonly allowNet: readonly string[];
  /**
   * How long a sandbox outlives its last use (`"30m"`, `"600s"`); a session in use extends it.
   * @default {"30m"}
   */
  readonly timeout: string;
  /** What happens to a session's sandbox when the session ends. @default {"keep"} */
  readonly onSessionEnd: "destroy" | "keep";
  /** The user's secrets by environment variable name, substituted on the wire. @default {{}} */
  readonly secrets: Readonly<Record<string, ExecutorSecret>>;
}

/** The `executor` of a config that sets none: tools run on this machine. */
const DEFAULT_EXECUTOR: ExecutorConfig = {
  provider: "local",
  allowNet: [],
  timeout: "30m",
  onSessionEnd: "keep",
  secrets: {},
};

const KEYS = ["provider", "region", "memory", "allowNet", "timeout", "onSessionEnd", "secrets"];
const SECRET_KEYS = ["hosts", "fromEnv", "fromFile"];
const TIMEOUT = /^[1-9][0-9]*[sm]$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// A host name, `*.` wildcard, IPv4 or bracketed IPv6, with an optional port (the SDK's forms).
const NET_HOST =
  /^(\*\.)?([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$/;
/** What `onSessionEnd` may say. */
const SESSION_ENDS = ["destroy", "keep"] as const;
const REMOTE_ONLY = ["region", "memory", "allowNet", "timeout", "secrets"];

const show = (value: unknown): string => JSON.stringify(value) ?? String(value);

const HOSTS: ConfigSchema = { type: "array", items: { type: "string", minLength: 1 } };

const SCHEMA: ConfigSchema = {
  type: "object",
  description:
    'Where tools run: "local" (this machine, in the sandbox above) or "deno-sandbox" (one Deno Sandbox microVM per session, with DENO_DEPLOY_TOKEN; the workspace is uploaded and synced back). A project config needs trust to choose it.',
  additionalProperties: false,
  default: { provider: "local" },
  properties: {
    provider: { type: "string", enum: EXECUTOR_PROVIDERS, default: "local" },
    region: { type: "string", enum: DENO_SANDBOX_REGIONS, description: "The sandbox region." },
    memory: {
      type: "integer",
      minimum: SANDBOX_MEMORY_MIB.min,
      maximum: SANDBOX_MEMORY_MIB.max,
      description: "The sandbox's memory in MiB (the SDK's default is 1280).",
    },
    allowNet: {
      ...HOSTS,
      description:
        'Hosts the sandbox may reach ("example.com", "*.example.com", "example.com:443"); [] for none. Required for deno-sandbox.',
    },
    timeout: {
      type: "string",
      pattern: TIMEOUT.source,
      default: "30m",
      description:
        'How long a sandbox outlives its last use: "30m", "600s" (a session in use extends it; the SDK\'s "session" is not offered: it ends the sandbox with the connection, so no reattach and no durable jobs).',
    },
    onSessionEnd: {
      type: "string",
      enum: SESSION_ENDS,
      default: "keep",
      description:
        "keep leaves the sandbox to its timeout so session/load can reattach it; destroy removes it when the session closes.",
    },
    secrets: {
      type: "object",
      default: {},
      description:
        "Secrets by environment variable name: the sandbox sees a placeholder, the value is put in on the wire for HTTPS requests to hosts only.",
      additionalProperties: {
        type: "object",
        required: ["hosts"],
        additionalProperties: false,
        properties: {
          hosts: { ...HOSTS, minItems: 1 },
          fromEnv: { type: "string", pattern: ENV_NAME.source },
          fromFile: { type: "string", minLength: 1 },
        },
        oneOf: [{ required: ["fromEnv"] }, { required: ["fromFile"] }],
      },
    },
  },
};

function unknownKeys(record: Record<string, unknown>, known: string[], prefix: string): string[] {
  return Object.keys(record).filter((name) => !known.includes(name)).map((name) =>
    `unknown key "${prefix}.${name}":${didYouMean(name, known)} expected one of ${known.join(", ")}`
  );
}

function hostList(value: unknown, key: string, problems: string[], nonEmpty: boolean): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    problems.push(`"${key}" must be an array of host names: received ${show(value)}`);
    return [];
  }
  if (nonEmpty && value.length === 0) {
    problems.push(`"${key}" must name at least one host: received []`);
  }
  value.forEach((host, i) => {
    if (!NET_HOST.test(host)) {
      problems.push(
        `"${key}[${i}]" must be a host name, "*.domain", an IP address or "[IPv6]", optionally with ":port" (no scheme or path): received ${
          show(host)
        }`,
      );
    }
  });
  return value;
}

function parseSecret(value: unknown, key: string, problems: string[]): ExecutorSecret {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problems.push(
      `"${key}" must be an object with "hosts" and "fromEnv" or "fromFile": received ${
        show(value)
      }`,
    );
    return { hosts: [] };
  }
  const secret = value as Record<string, unknown>;
  problems.push(...unknownKeys(secret, SECRET_KEYS, key));
  const hosts = hostList(secret.hosts, `${key}.hosts`, problems, true);
  const { fromEnv, fromFile } = secret;
  if ((fromEnv === undefined) === (fromFile === undefined)) {
    problems.push(
      `"${key}" must have exactly one of "fromEnv" (an environment variable) or "fromFile" (a file holding the value): received ${
        show(value)
      }`,
    );
  }
  if (fromEnv !== undefined && (typeof fromEnv !== "string" || !ENV_NAME.test(fromEnv))) {
    problems.push(
      `"${key}.fromEnv" must be an environment variable name: received ${show(fromEnv)}`,
    );
  }
  if (fromFile !== undefined && (typeof fromFile !== "string" || fromFile === "")) {
    problems.push(`"${key}.fromFile" must be a non-empty path: received ${show(fromFile)}`);
  }
  return {
    hosts,
    ...(typeof fromEnv === "string" ? { fromEnv } : {}),
    ...(typeof fromFile === "string" ? { fromFile } : {}),
  };
}

function parseSecrets(
  value: unknown,
  key: string,
  problems: string[],
): Record<string, ExecutorSecret> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problems.push(
      `"${key}" must be an object of secrets by variable name: received ${show(value)}`,
    );
    return {};
  }
  const out: Record<string, ExecutorSecret> = {};
  for (const [name, secret] of Object.entries(value)) {
    if (!ENV_NAME.test(name)) {
      problems.push(
        `"${key}" names must be environment variable names (letters, digits, "_"): received ${
          show(name)
        }`,
      );
    }
    out[name] = parseSecret(secret, `${key}.${name}`, problems);
  }
  return out;
}

function parseMemory(value: unknown, key: string, problems: string[]): number | undefined {
  if (value === undefined) return undefined;
  const { min, max } = SANDBOX_MEMORY_MIB;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    problems.push(
      `"${key}" must be a whole number of MiB from ${min} to ${max} (a Deno Sandbox's range): received ${
        show(value)
      }`,
    );
    return undefined;
  }
  return value;
}

function parseChoice<T extends string>(
  value: unknown,
  key: string,
  values: readonly T[],
  problems: string[],
): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string" && (values as readonly string[]).includes(value)) return value as T;
  const hint = didYouMean(value, values);
  problems.push(
    `"${key}" must be one of ${values.map((v) => `"${v}"`).join(", ")}: received ${show(value)}${
      hint === "" ? "" : `;${hint}`
    }`,
  );
  return undefined;
}

function checkRemote(record: Record<string, unknown>, key: string, problems: string[]): void {
  if (record.provider === "deno-sandbox" && record.allowNet === undefined) {
    problems.push(
      `"${key}.allowNet" is required for provider "deno-sandbox": list the hosts the sandbox may reach, or [] for none (the SDK's default differs between its typings and its docs)`,
    );
  }
  if (record.provider !== "deno-sandbox") {
    for (const name of REMOTE_ONLY.filter((n) => record[n] !== undefined)) {
      problems.push(
        `"${key}.${name}" applies only to provider "deno-sandbox": received it with provider ${
          show(record.provider ?? "local")
        }`,
      );
    }
  }
}

function parseExecutor(value: unknown, key: string, fail: Fail): ExecutorConfig {
  if (value === undefined) return DEFAULT_EXECUTOR;
  const record = asRecord(value, key, fail);
  const problems = unknownKeys(record, KEYS, key);
  const provider = parseChoice(record.provider, `${key}.provider`, EXECUTOR_PROVIDERS, problems);
  const region = parseChoice(record.region, `${key}.region`, DENO_SANDBOX_REGIONS, problems);
  const memory = parseMemory(record.memory, `${key}.memory`, problems);
  const allowNet = record.allowNet === undefined
    ? []
    : hostList(record.allowNet, `${key}.allowNet`, problems, false);
  const timeout = record.timeout ?? DEFAULT_EXECUTOR.timeout;
  if (typeof timeout !== "string" || !TIMEOUT.test(timeout)) {
    problems.push(
      `"${key}.timeout" must be a positive whole number of seconds or minutes ("600s", "30m"; not "session": it would end the sandbox with the agent's connection, so no reattach): received ${
        show(timeout)
      }`,
    );
  }
  const onSessionEnd = parseChoice(
    record.onSessionEnd,
    `${key}.onSessionEnd`,
    SESSION_ENDS,
    problems,
  );
  const secrets = parseSecrets(record.secrets, `${key}.secrets`, problems);
  if (provider !== undefined || record.provider === undefined) checkRemote(record, key, problems);
  if (problems.length > 0) {
    fail(
      problems.length === 1
        ? problems[0]!
        : `${problems.length} problems in "${key}":\n${
          problems.map((m, i) => `  ${i + 1}. ${m}`).join("\n")
        }`,
    );
  }
  return {
    provider: provider ?? "local",
    ...(region !== undefined ? { region } : {}),
    ...(memory !== undefined ? { memory } : {}),
    allowNet,
    timeout: timeout as string,
    onSessionEnd: onSessionEnd ?? "keep",
    secrets,
  };
}

/** The `executor` field of the config table. */
export const executorField = customField<ExecutorConfig>(SCHEMA, parseExecutor);
