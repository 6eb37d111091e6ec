/**
 * The layer check on a tiny repository: a deno.json with `exports`, plus `files`, in a temp dir.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { checkLayers } from "../../.ci/check_layers.ts";
import { tempDir } from "../_helpers.ts";

/** The doors of the tiny repository unless a test names its own. */
const DOORS = { ".": "./mod.ts", "./core": "./core/mod.ts" };

/** Writes the repository and runs `checkLayers(args)` on it. */
export async function checkRepo(
  files: Record<string, string>,
  args: string[] = [],
  exports: Record<string, string> = DOORS,
): ReturnType<typeof checkLayers> {
  await using dir = await tempDir();
  await Deno.writeTextFile(
    join(dir.path, "deno.json"),
    JSON.stringify({ name: "@x/pkg", exports }),
  );
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(join(dir.path, dirname(path)), { recursive: true });
    await Deno.writeTextFile(join(dir.path, path), text);
  }
  return await checkLayers(args, dir.path);
}

/** The report lines that are violations (`<file>:<line> imports …: <rule> — <why>`). */
export const violations = (lines: readonly string[]): string[] =>
  lines.filter((l) => / — /.test(l));
