import { deepEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import { exportedFolders, lintGroup } from "../../.ci/doc_lint.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))) as {
  exports: Record<string, string>;
};
const doors = Object.values(config.exports);

Deno.test("each entry point is linted with the doors of lower layers, never a higher one", () => {
  const rootFolders = exportedFolders(Deno.readTextFileSync(join(ROOT, "mod.ts")));
  deepEqual(rootFolders.sort(), ["agent", "registry", "tools"]);
  deepEqual(lintGroup("./core/mod.ts", doors, rootFolders), ["./core/mod.ts"]);
  deepEqual(lintGroup("./registry/mod.ts", doors, rootFolders).sort(), [
    "./core/mod.ts",
    "./registry/mod.ts",
    "./tools/mod.ts",
  ]);
  // builtins/ (layer 4) sits above every folder the root door exports from: it reads DefinedTool there.
  const builtins = lintGroup("./builtins/mod.ts", doors, rootFolders);
  equal(builtins.includes("./mod.ts"), true);
  equal(builtins.includes("./acp/mod.ts"), false);
  equal(builtins.includes("./mcp/mod.ts"), false); // a sibling of the same layer
});

Deno.test("a signature naming a type of a higher door fails the entry point's lint", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      join(dir, "low.ts"),
      [
        "/** A high type. */",
        "export interface High {\n  /** X. */\n  readonly x: number;\n}",
      ].join("\n"),
    );
    await Deno.writeTextFile(
      join(dir, "door.ts"),
      [
        '/**\n * A door.\n * @module\n */\nimport type { High } from "./low.ts";',
        "/**\n * Reads x.\n * @param h The value.\n * @returns Its x.\n * @example Usage\n * ```ts\n * read({ x: 1 });\n * ```\n */",
        "export function read(h: High): number {\n  return h.x;\n}",
      ].join("\n"),
    );
    const lint = (...files: string[]) =>
      new Deno.Command("deno", {
        args: ["doc", "--lint", ...files],
        stdout: "null",
        stderr: "piped",
      }).output();
    const alone = await lint(join(dir, "door.ts"));
    equal(alone.code, 1);
    equal(new TextDecoder().decode(alone.stderr).includes("private-type-ref"), true);
    equal((await lint(join(dir, "door.ts"), join(dir, "low.ts"))).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
