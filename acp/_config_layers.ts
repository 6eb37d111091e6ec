/**
 * Private: the layers of the agent's configuration. The user-level `dsh.jsonc` (trusted) comes
 * first; the project's config merges on top of it, whole when the user trusts the folder for
 * what it asks, else without what needs trust (`_trust.ts`). A config named with `--config`
 * outside the workspace was chosen by the user and is trusted like the user-level one.
 *
 * @module
 */
import { isInside } from "../tools/paths.ts";
import { dirname, join, resolve } from "node:path";
import { userConfigDir } from "../core/user_dirs.ts";
import type { AgentConfig } from "./_config_types.ts";
import {
  absolutePaths,
  gateProject,
  mergeConfigs,
  notGranted,
  type RawConfig,
  type TrustItem,
} from "./_trust.ts";
import { grantedKeys } from "./_trust_store.ts";

/** The trust state of a project config. */
export interface ConfigTrust {
  /** The trusted folder this grant is for (the config file's folder, symlinks resolved). */
  readonly folder: string;
  /** The project config file. */
  readonly file: string;
  /** Everything in it that needs trust. */
  readonly asked: readonly TrustItem[];
  /** What the user has not granted yet (empty: trusted, the whole file applies). */
  readonly missing: readonly TrustItem[];
  /** The user's config folder, where the grant is recorded. */
  readonly configDir: string | undefined;
}

/** The parsers of config.ts. */
export interface ConfigParsers {
  parseRaw(text: string, source: string): Record<string, unknown>;
  parseValue(raw: unknown, source: string): AgentConfig;
}

async function readText(file: string, optional: boolean): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      if (optional) return undefined;
      throw new Deno.errors.NotFound(`Cannot read config "${file}": the file does not exist`);
    }
    // The user-level file outside this process's read permission counts as absent.
    if (optional && error instanceof Deno.errors.NotCapable) return undefined;
    // An empty folder is the sandbox's placeholder left by an agent killed mid-command.
    if (optional && isEmptyDir(file)) return undefined;
    throw error;
  }
}

function isEmptyDir(path: string): boolean {
  try {
    return Deno.lstatSync(path).isDirectory && Deno.readDirSync(path).next().done === true;
  } catch {
    return false;
  }
}

async function realDir(path: string): Promise<string> {
  try {
    return await Deno.realPath(path);
  } catch {
    return resolve(path);
  }
}

function configDirOf(env: (name: string) => string | undefined): string | undefined {
  try {
    return userConfigDir(env);
  } catch {
    return undefined; // no HOME: no user-level config and no grants
  }
}

/** Reads and validates one file; `undefined` when an optional one is missing. */
async function readLayer(
  file: string,
  optional: boolean,
  parsers: ConfigParsers,
): Promise<RawConfig | undefined> {
  const text = await readText(file, optional);
  if (text === undefined) return undefined;
  const raw = parsers.parseRaw(text, file);
  parsers.parseValue(raw, file); // every error names its own file
  return raw;
}

/** The layered configuration (see config.ts `loadConfig`). */
export async function loadLayers(
  cwd: string,
  path: string | undefined,
  env: (name: string) => string | undefined,
  parsers: ConfigParsers,
): Promise<{
  config: AgentConfig;
  file?: string;
  userFile?: string;
  trust?: ConfigTrust;
}> {
  const configDir = configDirOf(env);
  const userPath = configDir === undefined ? undefined : join(configDir, "dsh.jsonc");
  const userRaw = userPath === undefined ? undefined : await readLayer(userPath, true, parsers);
  // The user's relative paths resolve in its folder; the project's stay relative to its own.
  const user = userRaw === undefined ? undefined : absolutePaths(userRaw, configDir!);
  const file = path === undefined ? join(cwd, "dsh.jsonc") : resolve(cwd, path);
  const project = await readLayer(file, path === undefined, parsers);
  let applied = project ?? {};
  let trust: ConfigTrust | undefined;
  if (project !== undefined && isInside(await realDir(file), await realDir(cwd))) {
    const folder = await realDir(dirname(file));
    const gate = gateProject(project, user ?? {});
    const granted = configDir === undefined ? [] : await grantedKeys(configDir, folder);
    const missing = notGranted(granted, gate.asked);
    trust = { folder, file, asked: gate.asked, missing, configDir };
    if (missing.length > 0) applied = gate.restricted;
  }
  const source = project !== undefined ? file : user !== undefined ? userPath! : "(defaults)";
  const config = parsers.parseValue(mergeConfigs(user ?? {}, applied), source);
  return {
    config,
    ...(project !== undefined ? { file } : {}),
    ...(user !== undefined ? { userFile: userPath! } : {}),
    ...(trust !== undefined ? { trust } : {}),
  };
}
