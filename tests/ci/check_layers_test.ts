import { deepEqual, equal, match } from "node:assert/strict";
import { checkLayers } from "../../.ci/check_layers.ts";
import { findImportCycles } from "../../.ci/_import_cycles.ts";
import { checkRepo as check, violations } from "./_layer_repo.ts";

Deno.test("findImportCycles() finds each strongly connected component once, with its shortest cycle", () => {
  const graph = new Map([
    ["a.ts", ["b.ts"]],
    ["b.ts", ["c.ts", "d.ts"]],
    ["c.ts", ["a.ts"]],
    ["d.ts", ["b.ts"]],
    ["e.ts", ["e.ts"]],
    ["f.ts", ["a.ts", "outside.ts"]],
  ]);
  deepEqual(findImportCycles(graph), [
    { path: ["a.ts", "b.ts", "c.ts", "a.ts"], files: ["a.ts", "b.ts", "c.ts", "d.ts"] },
    { path: ["e.ts", "e.ts"], files: ["e.ts"] },
  ]);
  deepEqual(findImportCycles(new Map([["a.ts", ["b.ts"]], ["b.ts", []]])), []);
});

Deno.test("findImportCycles() walks a long chain without overflowing the stack", () => {
  const graph = new Map<string, string[]>();
  for (let i = 0; i < 50_000; i++) graph.set(`f${i}.ts`, [`f${(i + 1) % 50_000}.ts`]);
  const [cycle, ...rest] = findImportCycles(graph);
  equal(rest.length, 0);
  equal(cycle?.files.length, 50_000);
  equal(cycle?.path.length, 50_001);
});

Deno.test("import-cycle: a cycle inside one folder fails the check, type-only imports included", async () => {
  const report = await check({
    "tools/mod.ts": 'export { a } from "./a.ts";\n',
    "tools/a.ts": 'import type { B } from "./b.ts";\nexport const a = 1;\nexport type A = B;\n',
    "tools/b.ts": 'import { a } from "./a.ts";\nexport type B = typeof a;\n',
    "mod.ts": 'export * from "./tools/mod.ts";\n',
  });
  equal(report.code, 1);
  deepEqual(violations(report.lines), [
    "tools/a.ts:1 imports ./b.ts (type): import-cycle — cycle tools/a.ts → tools/b.ts → tools/a.ts",
  ]);
  match(report.lines.at(-1)!, /import-cycle {12}1 {2}\(1 type-only\)/);
  equal((await check({ "core/a.ts": 'import "./b.ts";\n', "core/b.ts": "" })).code, 0);
});

Deno.test("import-cycle: a cycle in any folder is a violation, and --off silences it", async () => {
  for (const folder of ["acp", "tools"]) {
    const files = {
      [`${folder}/a.ts`]: 'import "./b.ts";\n',
      [`${folder}/b.ts`]: 'import "./c.ts";\n',
      [`${folder}/c.ts`]: 'import "./a.ts";\n',
    };
    const report = await check(files);
    equal(report.cycles.length, 1);
    equal(report.code, 1, folder);
    equal((await check(files, ["--off=import-cycle"])).code, 0);
  }
});

Deno.test("layer-order, private-file and sibling-import are reported with the import's line", async () => {
  const report = await check({
    "core/a.ts": '// one\nimport { r } from "../registry/r.ts";\nexport const a = r;\n',
    "registry/r.ts": "export const r = 1;\n",
    "registry/b.ts": 'import "../tools/_private.ts";\n',
    "tools/_private.ts": "",
    "jobs/j.ts": 'import "../agent/mod.ts";\n',
    "agent/mod.ts": "",
  });
  equal(report.code, 1);
  deepEqual(violations(report.lines), [
    "core/a.ts:2 imports ../registry/r.ts: layer-order — core/ (layer 0) may not import registry/ (layer 2)",
    "jobs/j.ts:1 imports ../agent/mod.ts: sibling-import — jobs/ and agent/ share layer 3 and may not import each other",
    "registry/b.ts:1 imports ../tools/_private.ts: private-file — tools/_private.ts is private to tools/",
  ]);
});

Deno.test("checkLayers() on this repository: no violations", async () => {
  const report = await checkLayers();
  equal(report.code, 0, violations(report.lines).join("\n"));
});
