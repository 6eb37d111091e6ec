/**
 * Private: workspace trust for the `executor` key. A remote executor uploads the user's workspace
 * and runs there with the user's `DENO_DEPLOY_TOKEN` (and bill); secrets leave the machine on the
 * wire. So an untrusted project config may not choose another provider than the user-level one
 * (to a remote one, or back to this machine when the user keeps commands off it), widen
 * `allowNet` beyond the user's, or add secrets. What only narrows (a shorter `allowNet`,
 * `region`, `memory`, `timeout`, `onSessionEnd` on the user's own provider) applies.
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import type { TrustItem } from "./_trust.ts";

type Rec = Record<string, unknown>;

function rec(value: unknown): Rec {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? { ...value as Rec }
    : {};
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function providerOf(executor: Rec): string {
  return typeof executor.provider === "string" ? executor.provider : "local";
}

/** JSON with sorted keys (the same secret always gives the same grant key). */
function sorted(value: Rec): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(value).sort(([a], [b]) => a < b ? -1 : 1)),
  );
}

function providerLabel(provider: string): string {
  return provider === "deno-sandbox"
    ? "runs tools in a Deno Sandbox in the cloud: uploads this workspace there with your DENO_DEPLOY_TOKEN"
    : `runs tools on this machine (executor "${provider}") instead of where your user-level config runs them`;
}

/**
 * Splits a project's `executor` by trust against the user-level one: pushes what it asks for
 * onto `asked` and returns what applies without trust (`undefined`: nothing of it applies).
 *
 * @param project The project's raw `executor` value.
 * @param user The user-level raw `executor` value (`undefined`: the default, local).
 * @param asked Receives the items that need trust.
 * @returns The part of the project's `executor` that applies untrusted.
 */
export function gateExecutor(
  project: unknown,
  user: unknown,
  asked: TrustItem[],
): Rec | undefined {
  const p = rec(project), u = rec(user);
  const provider = providerOf(p);
  if (provider !== providerOf(u)) {
    asked.push({ key: `executor.provider:${provider}`, label: providerLabel(provider) });
    // The rest only means something with that provider: ask for it too, apply none of it.
    for (const host of strings(p.allowNet)) {
      asked.push({
        key: `executor.allowNet:${host}`,
        label: `lets the remote sandbox reach ${host}`,
      });
    }
    pushSecrets(rec(p.secrets), {}, asked);
    return undefined;
  }
  const kept: Rec = { ...p };
  if (p.allowNet !== undefined) {
    const allowed = new Set(strings(u.allowNet));
    for (const host of strings(p.allowNet).filter((h) => !allowed.has(h))) {
      asked.push({
        key: `executor.allowNet:${host}`,
        label: `lets the remote sandbox reach ${host}`,
      });
    }
    kept.allowNet = strings(p.allowNet).filter((h) => allowed.has(h));
  }
  if (p.secrets !== undefined) {
    const userSecrets = rec(u.secrets);
    const added = pushSecrets(rec(p.secrets), userSecrets, asked);
    kept.secrets = Object.fromEntries(
      Object.entries(rec(p.secrets)).filter(([name]) => !added.includes(name)),
    );
  }
  return kept;
}

/** Asks for every secret of `project` not identical to the user's; returns their names. */
function pushSecrets(project: Rec, user: Rec, asked: TrustItem[]): string[] {
  const added: string[] = [];
  for (const [name, value] of Object.entries(project)) {
    const secret = rec(value);
    if (user[name] !== undefined && sorted(rec(user[name])) === sorted(secret)) continue;
    added.push(name);
    const from = typeof secret.fromEnv === "string"
      ? `your environment variable ${secret.fromEnv}`
      : `the file ${String(secret.fromFile)}`;
    asked.push({
      key: `executor.secret:${name}:${sorted(secret)}`,
      label: `sends ${from} as secret ${name} to ${
        strings(secret.hosts).join(", ")
      } from the remote sandbox`,
    });
  }
  return added;
}

/**
 * Merges the project's `executor` onto the user's: by key (project wins, `secrets` by name) on
 * the same provider; a project naming another provider replaces the user's whole setting.
 *
 * @param user The user-level raw `executor`.
 * @param project The project's raw `executor` (already gated).
 * @returns The merged raw value.
 */
export function mergeExecutor(user: unknown, project: unknown): Rec {
  const u = rec(user), p = rec(project);
  if (user === undefined) return p;
  if (project === undefined) return u;
  if (providerOf(p) !== providerOf(u)) return p;
  const out: Rec = { ...u, ...p };
  if (u.secrets !== undefined || p.secrets !== undefined) {
    out.secrets = { ...rec(u.secrets), ...rec(p.secrets) };
  }
  return out;
}

/**
 * Makes the relative `fromFile` paths of `executor.secrets` absolute against the config's folder.
 *
 * @param executor The raw `executor`.
 * @param dir The config file's folder.
 * @returns The value with absolute paths (`~/` paths stay).
 */
export function absoluteSecretFiles(executor: unknown, dir: string): unknown {
  const e = rec(executor);
  if (e.secrets === undefined) return executor;
  const secrets = Object.fromEntries(
    Object.entries(rec(e.secrets)).map(([name, value]) => {
      const s = rec(value);
      if (typeof s.fromFile !== "string" || s.fromFile.startsWith("~/") || isAbsolute(s.fromFile)) {
        return [name, value];
      }
      return [name, { ...s, fromFile: resolve(dir, s.fromFile) }];
    }),
  );
  return { ...e, secrets };
}
