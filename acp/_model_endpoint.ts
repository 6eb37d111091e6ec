/**
 * Private: the DeepSeek endpoint and adapter options the agent uses, from `dsh.jsonc` and the
 * environment. `DEEPSEEK_BASE_URL` overrides `model.baseUrl` and `DEEPSEEK_MODEL` overrides
 * `model.model`; the launcher, the compile task and the agent all read them here, so the
 * permission profile grants exactly the host:port the adapter calls.
 *
 * @module
 */
import type { DeepSeekAdapterOptions } from "../agent/mod.ts";
import type { AgentConfig } from "./config.ts";

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

/**
 * The base URL the agent calls: `DEEPSEEK_BASE_URL` when set, else `model.baseUrl`.
 *
 * @throws {TypeError} When `DEEPSEEK_BASE_URL` is not an http or https URL.
 */
export function modelBaseUrl(config: AgentConfig, env: EnvReader = readEnv): string {
  const value = env("DEEPSEEK_BASE_URL");
  if (value === undefined) return config.model.baseUrl;
  const url = URL.parse(value);
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new TypeError(
      `Cannot start the agent as DEEPSEEK_BASE_URL must be an http or https URL: current value is ${
        JSON.stringify(value)
      }`,
    );
  }
  return value;
}

/** The DeepSeek adapter's options for this config and environment. */
export function deepSeekOptions(
  config: AgentConfig,
  env: EnvReader = readEnv,
): DeepSeekAdapterOptions & { readonly model: string; readonly baseUrl: string } {
  const apiKey = env("DEEPSEEK_API_KEY");
  const { thinking, reasoningEffort } = config.model;
  return {
    ...(apiKey === undefined ? {} : { apiKey }),
    baseUrl: modelBaseUrl(config, env),
    model: env("DEEPSEEK_MODEL") ?? config.model.model,
    thinking,
    ...(reasoningEffort === undefined ? {} : { reasoningEffort }),
  };
}
