/**
 * A consumer project: a temp folder with its own deno.json whose import map points
 * `@dsh/harness` and `@dsh/harness/<entry>` at this checkout's entry files (as a user with a
 * path or vendored copy has it), with Deno's default compiler options or the strict ones.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ShownCommand } from "./_doc_blocks.ts";

/** The checkout's root folder. */
export const HARNESS_ROOT: string = fileURLToPath(new URL("../../", import.meta.url));

interface HarnessConfig {
  readonly exports: Record<string, string>;
  readonly imports: Record<string, string>;
  readonly compilerOptions: Record<string, unknown>;
}

const harness = JSON.parse(
  await Deno.readTextFile(join(HARNESS_ROOT, "deno.json")),
) as HarnessConfig;

/** The import specifiers of every entry point (`@dsh/harness`, `@dsh/harness/agent`, …). */
export const ENTRY_SPECIFIERS: readonly string[] = Object.keys(harness.exports).map((key) =>
  key === "." ? "@dsh/harness" : `@dsh/harness/${key.slice(2)}`
);

/** The strict compiler options (the harness's own: `strict`, `exactOptionalPropertyTypes`, …). */
export const STRICT_OPTIONS: Readonly<Record<string, unknown>> = harness.compilerOptions;

/** A consumer project folder, removed on dispose. */
export interface Consumer extends AsyncDisposable {
  /** The folder. */
  readonly dir: string;
  /** Writes a file (relative path), creating its folders. */
  write(file: string, text: string): Promise<void>;
}

/**
 * Creates a consumer project. Its import map carries the harness's npm dependencies too: a
 * path import shares the importer's map, so a user with a vendored copy lists them as well.
 */
export async function consumerProject(options: { strict: boolean }): Promise<Consumer> {
  const dir = await Deno.makeTempDir({ prefix: "dsh_consumer_" });
  const imports: Record<string, string> = { ...harness.imports };
  for (const [key, path] of Object.entries(harness.exports)) {
    const name = key === "." ? "@dsh/harness" : `@dsh/harness/${key.slice(2)}`;
    imports[name] = join(HARNESS_ROOT, path);
  }
  const config = {
    imports,
    lock: false,
    ...(options.strict ? { compilerOptions: STRICT_OPTIONS } : {}),
  };
  await Deno.writeTextFile(join(dir, "deno.json"), JSON.stringify(config, null, 2) + "\n");
  return {
    dir,
    async write(file, text) {
      const path = join(dir, file);
      await Deno.mkdir(join(path, ".."), { recursive: true });
      await Deno.writeTextFile(path, text);
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** What a command printed. */
export interface CommandRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** What Deno needs to find its caches and the npm registry (proxies, certificates). */
const PASSED_ENV = [
  "PATH",
  "HOME",
  "TMPDIR",
  "DENO_DIR",
  "XDG_CACHE_HOME",
  "NPM_CONFIG_REGISTRY",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
];

/** The environment a user's shell would pass: no secrets of the CI machine, Deno's caches kept. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const name of PASSED_ENV) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** Runs a shown command in `dir` (`deno` is this Deno), with its env assignments and `extraEnv`. */
export async function runShown(
  dir: string,
  command: ShownCommand,
  extraEnv: Readonly<Record<string, string>> = {},
): Promise<CommandRun> {
  const [program, ...args] = command.argv;
  if (program !== "deno") throw new Error(`Cannot run "${command.text}": not a deno command`);
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: dir,
    clearEnv: true,
    env: { ...baseEnv(), ...command.env, ...extraEnv },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** Throws with the command's output unless it exited 0. */
export function assertRan(run: CommandRun, what: string): void {
  if (run.code === 0) return;
  throw new Error(
    `${what} exited with code ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`,
  );
}
