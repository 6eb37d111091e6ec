/**
 * Private: the DeepSeek endpoint and adapter options the agent uses, from `dsh.jsonc` and the
 * environment. `DEEPSEEK_BASE_URL` overrides `model.baseUrl` and `DEEPSEEK_MODEL` overrides
 * `model.model`; the launcher, the compile task and the agent all read them here, so the
 * permission profile grants exactly the host:port the adapter calls.
 *
 * @module
 */
import type { DeepSeekAdapterOptions } from "../agent/mod.ts";
import type { AgentConfig } from "./_config_types.ts";

/** Reads one variable; `""` and a missing `--allow-env` count as unset. */
export type EnvReader = (name: string) => string | undefined;

/** `Deno.env.get`, tolerant of a missing permission. */
export function readEnv(name: string): string | undefined {
  try {
    const value = Deno.env.get(name);
    return value === "" ? undefined : value;
  } catch {
    return undefined;
  }
}

/** The default endpoint (the only one that needs no check). */
export const DEFAULT_MODEL_ENDPOINT = "https://api.deepseek.com";

/**
 * Whether a URL host is loopback: `localhost`, `127.0.0.0/8` or `::1`.
 *
 * @example Usage
 * ```ts ignore
 * isLoopbackHost("127.0.0.1"); // true
 * isLoopbackHost("[::1]"); // true
 * isLoopbackHost("10.0.0.1"); // false
 * ```
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === "localhost" || host === "[::1]" || host === "::1") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Checks a model endpoint: the default, any `https` URL, or `http` on loopback only (the key and
 * the conversation never travel in clear text over a network).
 *
 * @param value The URL.
 * @returns What is wrong (`must be …`), or `undefined` when it may be used.
 */
export function endpointProblem(value: string): string | undefined {
  if (value === DEFAULT_MODEL_ENDPOINT) return undefined;
  const url = URL.parse(value);
  if (url !== null && url.protocol === "https:") return undefined;
  if (url !== null && url.protocol === "http:" && isLoopbackHost(url.hostname)) return undefined;
  return "must be an https URL, or http on loopback (localhost, 127.0.0.0/8, ::1), since it receives the API key and the conversation";
}

/**
 * Checks `model.baseUrl` of a config (see {@linkcode endpointProblem}).
 *
 * @throws {SyntaxError} A config error naming the file.
 */
export function checkModelEndpoint(value: string, source: string): void {
  const problem = endpointProblem(value);
  if (problem === undefined) return;
  throw new SyntaxError(
    `Cannot read config "${source}": "model.baseUrl" ${problem}: received ${JSON.stringify(value)}`,
  );
}

/**
 * The base URL the agent calls: `DEEPSEEK_BASE_URL` when set, else `model.baseUrl`.
 *
 * @throws {TypeError} When `DEEPSEEK_BASE_URL` is not an https URL (or http on loopback).
 */
export function modelBaseUrl(config: AgentConfig, env: EnvReader = readEnv): string {
  const value = env("DEEPSEEK_BASE_URL");
  if (value === undefined) return config.model.baseUrl;
  const problem = endpointProblem(value);
  if (problem !== undefined) {
    throw new TypeError(
      `Cannot start the agent as DEEPSEEK_BASE_URL ${problem}: current value is ${
        JSON.stringify(value)
      }`,
    );
  }
  return value;
}

/** The path of `model.apiKeyFile` (`~/` expanded), or `undefined`. */
export function apiKeyFilePath(config: AgentConfig, env: EnvReader = readEnv): string | undefined {
  const file = config.model.apiKeyFile;
  if (file === undefined) return undefined;
  if (!file.startsWith("~/")) return file;
  const home = env("HOME");
  if (home === undefined) {
    throw new TypeError(
      `Cannot read the API key file ${
        JSON.stringify(file)
      }: HOME is not set (use an absolute path)`,
    );
  }
  return `${home.replace(/\/+$/, "")}/${file.slice(2)}`;
}

/**
 * The API key: `DEEPSEEK_API_KEY` when set, else the first line of `model.apiKeyFile`.
 *
 * @throws {Error} When the key file cannot be read or is empty.
 */
export function modelApiKey(config: AgentConfig, env: EnvReader = readEnv): string | undefined {
  const fromEnv = env("DEEPSEEK_API_KEY");
  if (fromEnv !== undefined) return fromEnv;
  const path = apiKeyFilePath(config, env);
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    throw new Error(
      `Cannot read the API key file ${JSON.stringify(path)} ("model.apiKeyFile"): ${
        error instanceof Deno.errors.NotFound ? "the file does not exist" : (error as Error).message
      }`,
    );
  }
  const key = text.split("\n")[0]!.trim();
  if (key === "") {
    throw new Error(
      `Cannot use the API key file ${JSON.stringify(path)} ("model.apiKeyFile"): it is empty`,
    );
  }
  return key;
}

/** The DeepSeek adapter's options for this config and environment. */
export function deepSeekOptions(
  config: AgentConfig,
  env: EnvReader = readEnv,
): DeepSeekAdapterOptions & { readonly model: string; readonly baseUrl: string } {
  const apiKey = modelApiKey(config, env);
  const { thinking, reasoningEffort } = config.model;
  return {
    ...(apiKey === undefined ? {} : { apiKey }),
    baseUrl: modelBaseUrl(config, env),
    model: env("DEEPSEEK_MODEL") ?? config.model.model,
    thinking,
    ...(reasoningEffort === undefined ? {} : { reasoningEffort }),
  };
}
