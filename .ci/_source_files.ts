/**
 * Shared by `.ci/check_layers.ts` and `.ci/check_sizes.ts`: lists the repository's source files,
 * sorts them into product code and examples, and parses them with the TypeScript compiler API.
 *
 * Product code is every `.ts`/`.tsx`/`.js`/`.mjs` file outside `tests/`, `bench/`, `examples/`,
 * `test_deps/`, `node_modules/`, `.ci/` and any dot or git-ignored build folder (`dist/`).
 *
 * @module
 */
import { restoreEnv } from "./_env_shim.ts";
import ts from "npm:typescript@5.9.3";
import { join } from "node:path";

restoreEnv();

export { ts };

/** Folders that are never product code. */
const NOT_PRODUCT: ReadonlySet<string> = new Set([
  "tests",
  "bench",
  "examples",
  "test_deps",
  "node_modules",
  "dist",
]);

const SOURCE_REGEXP = /\.(?:ts|tsx|mts|js|mjs)$/;

/** One source file, by its path relative to the repository root (always with `/`). */
export interface SourceFile {
  /** Path relative to the root, `/`-separated: `acp/server.ts`. */
  readonly path: string;
  /** `product` for shipped code, `examples` for `examples/`. */
  readonly area: "product" | "examples";
  /** Top-level folder (`acp`), or `""` for a file at the root (`mod.ts`). */
  readonly folder: string;
}

/** The repository root: the parent of this script's folder. */
export const ROOT: string = new URL("..", import.meta.url).pathname;

/**
 * Lists product and example source files under `root`, sorted by path.
 *
 * @param root The repository root.
 * @returns The files, sorted by path.
 */
export async function listSourceFiles(root: string = ROOT): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  for await (const path of walk(root, "")) {
    const top = path.includes("/") ? path.slice(0, path.indexOf("/")) : "";
    if (top === "examples") out.push({ path, area: "examples", folder: top });
    else if (!NOT_PRODUCT.has(top)) out.push({ path, area: "product", folder: top });
  }
  return out.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

async function* walk(root: string, dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(join(root, dir))) {
    const rel = dir === "" ? entry.name : `${dir}/${entry.name}`;
    if (entry.name.startsWith(".")) continue;
    if (entry.isDirectory) {
      if (dir === "" && NOT_PRODUCT.has(entry.name) && entry.name !== "examples") continue;
      if (entry.name === "node_modules") continue;
      yield* walk(root, rel);
    } else if (entry.isFile && SOURCE_REGEXP.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      yield rel;
    }
  }
}

/**
 * Reads and parses one file (no type checking, parent pointers set).
 *
 * @param file The file to parse.
 * @param root The repository root.
 * @returns The parsed source and its text.
 */
export async function parseSourceFile(
  file: SourceFile,
  root: string = ROOT,
): Promise<{ source: ts.SourceFile; text: string }> {
  const text = await Deno.readTextFile(join(root, file.path));
  const kind = file.path.endsWith("x") ? ts.ScriptKind.TSX : file.path.endsWith(".js") ||
      file.path.endsWith(".mjs")
    ? ts.ScriptKind.JS
    : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file.path, text, ts.ScriptTarget.Latest, true, kind);
  return { source, text };
}

/**
 * The 1-based line of a position.
 *
 * @param source The parsed file.
 * @param pos A character offset.
 * @returns The line number, counting from 1.
 */
export function lineOf(source: ts.SourceFile, pos: number): number {
  return source.getLineAndCharacterOfPosition(pos).line + 1;
}

/**
 * Parses `--off=a,b`, `--on=a,b` and `--only=a,b` flags against a set of named rules.
 *
 * @param args The command-line arguments.
 * @param names Every rule name, in report order.
 * @param offByDefault Rules that run only when `--on=` or `--only=` names them.
 * @returns The enabled rules.
 * @throws {TypeError} On an unknown flag or rule name.
 */
export function enabledRules(
  args: readonly string[],
  names: readonly string[],
  offByDefault: readonly string[] = [],
): Set<string> {
  const enabled = new Set(names.filter((name) => !offByDefault.includes(name)));
  for (const arg of args) {
    const match = /^--(off|on|only)=(.*)$/.exec(arg);
    if (!match) {
      throw new TypeError(
        `Cannot parse the argument ${
          JSON.stringify(arg)
        }: expected --off=<rules>, --on=<rules> or --only=<rules>`,
      );
    }
    const listed = match[2]!.split(",").filter((name) => name !== "");
    for (const name of listed) {
      if (!names.includes(name)) {
        throw new TypeError(
          `Cannot find the rule ${JSON.stringify(name)}: expected one of ${names.join(", ")}`,
        );
      }
    }
    if (match[1] === "only") {
      enabled.clear();
      for (const name of listed) enabled.add(name);
    } else if (match[1] === "on") {
      for (const name of listed) enabled.add(name);
    } else {
      for (const name of listed) enabled.delete(name);
    }
  }
  return enabled;
}
