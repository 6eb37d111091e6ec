/**
 * Private: what the `executor` setting adds to the agent's Deno permission profile. For
 * `"deno-sandbox"` the agent talks to the sandbox API (a WebSocket and `DELETE`/`PATCH` on the
 * same host) and reads a few variables; measured by running `npm:@deno/sandbox@0.13.2` under the
 * scoped profile (`tests/acp/executor_profile_test.ts`):
 *
 * - **net:** the sandbox endpoint's host:port: `DENO_SANDBOX_ENDPOINT` when set, else
 *   `<region>.sandbox-api.deno.net:443` (`DENO_SANDBOX_BASE_DOMAIN` replaces the domain) for every
 *   region, since a reattach goes to the region in the sandbox's id, not the configured one.
 * - **env:** `DENO_DEPLOY_TOKEN`, `DENO_DEPLOY_ORG`, `DENO_DEPLOY_ENDPOINT`,
 *   `DENO_SANDBOX_ENDPOINT`, `DENO_SANDBOX_BASE_DOMAIN` (the SDK's `getTokenAndApiEndpoint` and
 *   `getSandboxEndpoint` read them at each create and connect), `WS_NO_BUFFER_UTIL` and
 *   `WS_NO_UTF_8_VALIDATE` (`npm:ws`), `_ISEXE_TEST_PLATFORM_` and `PATHEXT` (`npm:isexe` and
 *   `npm:which`, loaded by `@deno/shim-deno`), plus every `secrets.*.fromEnv`.
 * - **read:** every `secrets.*.fromFile`.
 *
 * @module
 */
import { resolve } from "node:path";
import { DENO_SANDBOX_REGIONS, type ExecutorConfig } from "./_config_executor.ts";

/** Variables the Deno Sandbox SDK (and its dependencies) read. */
const DENO_SANDBOX_ENV_VARS: readonly string[] = [
  "DENO_DEPLOY_TOKEN",
  "DENO_DEPLOY_ORG",
  "DENO_DEPLOY_ENDPOINT",
  "DENO_SANDBOX_ENDPOINT",
  "DENO_SANDBOX_BASE_DOMAIN",
  "WS_NO_BUFFER_UTIL",
  "WS_NO_UTF_8_VALIDATE",
  "_ISEXE_TEST_PLATFORM_",
  "PATHEXT",
];

/** The SDK's default API domain (`https://<region>.sandbox-api.deno.net`). */
const DENO_SANDBOX_DOMAIN = "sandbox-api.deno.net";

/** What the executor adds to the profile. */
export interface ExecutorGrants {
  /** `host:port` entries for `--allow-net`. */
  readonly net: readonly string[];
  /** Variables for `--allow-env`. */
  readonly env: readonly string[];
  /** Files for `--allow-read` (secret files). */
  readonly read: readonly string[];
}

/** Where the endpoint comes from: the agent's environment at launch (or compile) time. */
export interface SandboxEndpointEnv {
  /** `DENO_SANDBOX_ENDPOINT`. */
  readonly endpoint?: string | undefined;
  /** `DENO_SANDBOX_BASE_DOMAIN`. */
  readonly baseDomain?: string | undefined;
}

function hostPort(url: string, what: string): string {
  const parsed = URL.parse(url);
  if (parsed === null || !/^(https?|wss?):$/.test(parsed.protocol)) {
    throw new TypeError(
      `Cannot start the agent as ${what} must be an http(s) or ws(s) URL: current value is ${
        JSON.stringify(url)
      }`,
    );
  }
  const secure = parsed.protocol === "https:" || parsed.protocol === "wss:";
  return `${parsed.hostname}:${parsed.port !== "" ? parsed.port : secure ? "443" : "80"}`;
}

/**
 * The hosts, variables and files the agent needs for its executor (none for `"local"`).
 *
 * @param executor The (trusted) `executor` setting.
 * @param endpoint `DENO_SANDBOX_ENDPOINT` and `DENO_SANDBOX_BASE_DOMAIN`.
 * @param base Where relative `fromFile` paths resolve (the config's folder).
 * @param home `$HOME`, for `~/` paths.
 * @returns The grants.
 * @throws {TypeError} When `DENO_SANDBOX_ENDPOINT` is not a URL.
 */
export function executorGrants(
  executor: ExecutorConfig,
  endpoint: SandboxEndpointEnv,
  base: string,
  home?: string,
): ExecutorGrants {
  if (executor.provider !== "deno-sandbox") return { net: [], env: [], read: [] };
  const domain = endpoint.baseDomain || DENO_SANDBOX_DOMAIN;
  const net = endpoint.endpoint
    ? [hostPort(endpoint.endpoint, "DENO_SANDBOX_ENDPOINT")]
    : DENO_SANDBOX_REGIONS.map((region) => `${region}.${domain}:443`);
  const secrets = Object.values(executor.secrets);
  return {
    net,
    env: [...DENO_SANDBOX_ENV_VARS, ...secrets.flatMap((s) => s.fromEnv ?? [])],
    read: secrets.flatMap((s) => {
      if (s.fromFile === undefined) return [];
      if (!s.fromFile.startsWith("~/")) return [resolve(base, s.fromFile)];
      return home === undefined ? [] : [resolve(home, s.fromFile.slice(2))];
    }),
  };
}
