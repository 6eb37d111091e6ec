/**
 * Runs `deno doc --lint` once per entry point of deno.json's `exports`, each with the doors its
 * users read beside it: the entry points of lower layers (`LAYERS` of `.ci/check_layers.ts`), and
 * the root door (`defineTool`, `createHarness`, `createAgent` and their types) for entry points
 * above every folder the root door exports from. Each name comes out of ONE door (the `one-door`
 * rule), so an entry point passes without re-exporting another's types, and a type that none of
 * those doors exports is reported (`private-type-ref`): a `tools/` signature may name a `core/`
 * type, never an `acp/` one.
 *
 *     deno run --allow-read=deno.json,mod.ts,.ci --allow-run=deno .ci/doc_lint.ts
 *
 * @module
 */
import { LAYERS } from "./check_layers.ts";

/** The top-level folder of an entry point path (`""` for the root door). */
function doorFolder(path: string): string {
  const parts = path.replace(/^\.\//, "").split("/");
  return parts.length === 1 ? "" : parts[0]!;
}

/**
 * The entry points linted with `entry`: itself, then the doors of lower layers, and the root door
 * when `entry` sits above every folder in `rootFolders` (those the root door exports from).
 *
 * @example Usage
 * ```ts
 * import { lintGroup } from "./doc_lint.ts";
 * import { deepEqual } from "node:assert/strict";
 * const doors = ["./mod.ts", "./core/mod.ts", "./tools/mod.ts", "./acp/mod.ts"];
 * deepEqual(lintGroup("./tools/mod.ts", doors, ["tools"]), ["./tools/mod.ts", "./core/mod.ts"]);
 * deepEqual(lintGroup("./acp/mod.ts", doors, ["tools"]), [
 *   "./acp/mod.ts",
 *   "./mod.ts",
 *   "./core/mod.ts",
 *   "./tools/mod.ts",
 * ]);
 * ```
 */
export function lintGroup(
  entry: string,
  doors: readonly string[],
  rootFolders: readonly string[],
): string[] {
  const layer = LAYERS[doorFolder(entry)];
  if (layer === undefined) throw new Error(`${entry}: folder has no layer in LAYERS`);
  const below = (folder: string) => LAYERS[folder] !== undefined && LAYERS[folder]! < layer;
  const beside = doors.filter((door) => {
    if (door === entry) return false;
    const folder = doorFolder(door);
    return folder === "" ? rootFolders.every(below) : below(folder);
  });
  return [entry, ...beside];
}

/** The folders a door module re-exports from (`export … from "./<folder>/…"`). */
export function exportedFolders(source: string): string[] {
  const folders = [...source.matchAll(/^export [^;]*? from "\.\/([a-z_]+)\//gms)].map((m) => m[1]!);
  return [...new Set(folders)];
}

if (import.meta.main) {
  const config = JSON.parse(await Deno.readTextFile("deno.json")) as {
    exports: Record<string, string>;
  };
  const doors = Object.values(config.exports);
  const rootFolders = exportedFolders(await Deno.readTextFile("mod.ts"));
  const failed: string[] = [];
  for (const entry of doors) {
    const { code, stderr } = await new Deno.Command("deno", {
      args: ["doc", "--lint", ...lintGroup(entry, doors, rootFolders)],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (code === 0) continue;
    failed.push(entry);
    await Deno.stderr.write(stderr);
  }
  if (failed.length > 0) {
    console.error(
      `deno doc --lint failed for ${failed.length} entry point(s): ${failed.join(", ")}`,
    );
    Deno.exit(1);
  }
  console.log(`deno doc --lint: ${doors.length} entry points clean, each with the doors below it`);
}
