import { deepEqual, equal, match } from "node:assert/strict";
import { checkLayers } from "../../.ci/check_layers.ts";
import { doorExports, multiDoorNames } from "../../.ci/_one_door.ts";
import { ts } from "../../.ci/_source_files.ts";
import { checkRepo } from "./_layer_repo.ts";

const DOORS = { ".": "./mod.ts", "./core": "./core/mod.ts", "./tools": "./tools/mod.ts" };
/** The layer check on a tiny repository with three doors plus `files`. */
const check = (files: Record<string, string>, args: string[] = []) => checkRepo(files, args, DOORS);

const parse = (files: Record<string, string>) => (path: string) =>
  files[path] === undefined
    ? undefined
    : ts.createSourceFile(path, files[path]!, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);

Deno.test("doorExports() reads declarations, renames, namespaces and export * chains", () => {
  const files: Record<string, string> = {
    "a/mod.ts": [
      "export const one = 1, two = 2;",
      "export function f() {}",
      "export interface I {}",
      "export type T = 1;",
      "export class C {}",
      'export { x as y, type Z } from "./x.ts";',
      'export * as ns from "./x.ts";',
      'export type * from "./star.ts";',
      "const local = 0;",
      "export { local as exported };",
    ].join("\n"),
    "a/x.ts": "export const x = 1;\nexport type Z = 2;\n",
    "a/star.ts": 'export type S = 1;\nexport default 1;\nexport * from "./mod.ts";\n',
  };
  const doors = doorExports(["a/mod.ts", "missing/mod.ts"], parse(files));
  deepEqual([...doors.keys()], ["a/mod.ts"]);
  deepEqual(doors.get("a/mod.ts")!.map((e) => e.name), [
    "one",
    "two",
    "f",
    "I",
    "T",
    "C",
    "y",
    "Z",
    "ns",
    "S",
    "exported",
  ]);
  equal(doors.get("a/mod.ts")!.find((e) => e.name === "S")!.line, 8);
});

Deno.test("multiDoorNames() keeps only names from several doors, in door order", () => {
  const doors = new Map([
    ["mod.ts", [{ name: "a", line: 1 }, { name: "b", line: 2 }]],
    ["core/mod.ts", [{ name: "a", line: 3 }]],
    ["tools/mod.ts", [{ name: "a", line: 4 }, { name: "c", line: 5 }]],
  ]);
  deepEqual([...multiDoorNames(doors)], [["a", ["mod.ts", "core/mod.ts", "tools/mod.ts"]]]);
});

Deno.test("one-door: a name two entry points export is a violation at the later door", async () => {
  const files = {
    "core/thing.ts": "export const thing = 1;\nexport type Shape = { a: 1 };\n",
    "core/mod.ts":
      'export { thing } from "./thing.ts";\nexport type { Shape } from "./thing.ts";\n',
    "tools/mod.ts": '// tools\nexport type * from "../core/thing.ts";\nexport const own = 1;\n',
    "mod.ts": 'export { own } from "./tools/mod.ts";\n',
  };
  const report = await check(files);
  equal(report.code, 1);
  deepEqual(report.lines.filter((l) => / — /.test(l)), [
    "tools/mod.ts:2 exports thing: one-door — core/mod.ts exports it too: each name comes out of one door",
    "tools/mod.ts:2 exports Shape: one-door — core/mod.ts exports it too: each name comes out of one door",
    // deno.json order: "." is the first door, so tools/mod.ts is the later one.
    "tools/mod.ts:3 exports own: one-door — mod.ts exports it too: each name comes out of one door",
  ]);
  equal(
    report.lines.includes(
      "note: 3 entry points export 6 symbols for 3 names; 3 name(s) from several doors",
    ),
    true,
  );
  match(report.lines.at(-1)!, /one-door {16}3/);
  equal((await check(files, ["--off=one-door"])).code, 0);
  const fixed = await check({ ...files, "tools/mod.ts": "export const own = 1;\n", "mod.ts": "" });
  equal(fixed.code, 0);
  equal(
    fixed.lines.includes(
      "note: 3 entry points export 3 symbols for 3 names; 0 name(s) from several doors",
    ),
    true,
  );
});

Deno.test("one-door: this repository's entry points share no name", async () => {
  const report = await checkLayers(["--only=one-door"]);
  deepEqual(report.lines.filter((l) => / — /.test(l)), []);
  equal(report.code, 0);
  match(report.lines.join("\n"), /entry points export (\d+) symbols for \1 names; 0 name\(s\)/);
});
