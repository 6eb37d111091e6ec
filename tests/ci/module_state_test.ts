import { deepEqual, equal, match, ok } from "node:assert/strict";
import { checkLayers } from "../../.ci/check_layers.ts";
import { MODULE_STATE_ALLOWED, moduleStateFindings } from "../../.ci/_module_state.ts";
import { listSourceFiles, parseSourceFile, ROOT, ts } from "../../.ci/_source_files.ts";
import { checkRepo as check, violations } from "./_layer_repo.ts";

const parse = (text: string) =>
  ts.createSourceFile("x.ts", text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);

/** Every shape of module-level state the rule knows, one per line. */
const STATEFUL = [
  "let counter = 0;",
  "export let exported = 1;",
  "var old = 2;",
  "const TABLE = new WeakMap<object, number>();",
  "const SEEN = new WeakSet();",
  "const CACHE = new Map<string, number>();",
  "export function remember(k: string) { CACHE.set(k, 1); }",
  "const LIST: number[] = [];",
  "export function add(n: number) { LIST.push(n); }",
  "const SLOTS: (number | undefined)[] = [];",
  "export function slot(i: number) { return SLOTS[i] ??= i; }",
  "const STATE = { hits: 0 };",
  "export function hit() { STATE.hits++; }",
  "const OPTIONS: Record<string, unknown> = {};",
  'export function configure(o: object) { Object.assign(OPTIONS, o); delete OPTIONS["x"]; }',
  'export const NAMES = new Set(["a"]);',
  "const client = new Client();",
  "export class Pool { static size = 0; static readonly max = 9; }",
].join("\n");

/** Module-level bindings that are not state: nothing may fire on these. */
const STATELESS = [
  'import { thing } from "./thing.ts";',
  'const LOOKUP = new Set(["a", "b"]);',
  "export function known(k: string) { return LOOKUP.has(k); }",
  'export const KEYS: ReadonlySet<string> = new Set(["k"]);',
  'export const PAIRS: ReadonlyMap<string, number> = new Map([["a", 1]]);',
  "const ORDER = [1, 2, 3] as const;",
  "const TABLE: Readonly<Record<string, number>> = { a: 1 };",
  "const ENCODER = new TextEncoder();",
  'const HOME = new URL("./", import.meta.url);',
  "const EMPTY = new Uint8Array(0);",
  "const FROZEN = Object.freeze([1]);",
  "declare let ambient: number;",
  "export function local() { let n = 0; const m = new Map(); m.set(1, n++); return m; }",
  "export class Box { static readonly NAME = 'box'; #count = 0; bump() { this.#count++; } }",
  "export { thing, ENCODER, EMPTY, ORDER, TABLE, FROZEN, HOME };",
].join("\n");

Deno.test("moduleStateFindings() finds each kind of module-level state", () => {
  deepEqual(moduleStateFindings(parse(STATEFUL)).map((f) => `${f.line} ${f.what}: ${f.why}`), [
    "1 let counter: a mutable module binding",
    "2 let exported: a mutable module binding",
    "3 var old: a mutable module binding",
    "4 const TABLE = new WeakMap: a module-level side table",
    "5 const SEEN = new WeakSet: a module-level side table",
    "6 const CACHE = new Map: a module-level collection this file mutates",
    "8 const LIST = […]: a module-level collection this file mutates",
    "10 const SLOTS = […]: a module-level collection this file mutates",
    "12 const STATE = {…}: a module-level collection this file mutates",
    "14 const OPTIONS = {…}: a module-level collection this file mutates",
    "16 const NAMES = new Set: an exported mutable collection (type it Readonly… if it is a table)",
    "17 const client = new Client: a module-level instance, which may keep state",
    "18 static Pool.size: a mutable static field",
  ]);
});

Deno.test("moduleStateFindings() leaves lookup tables, stateless values and locals alone", () => {
  deepEqual(moduleStateFindings(parse(STATELESS)), []);
});

Deno.test("module-state: a product file with module state fails the check", async () => {
  const files = {
    "mod.ts": "export const root = 1;\n",
    "core/mod.ts": 'export { next } from "./ids.ts";\n',
    "core/ids.ts": "let counter = 0;\nexport function next(): number {\n  return ++counter;\n}\n",
    "core/_table.ts": "const byKey = new WeakMap<object, string>();\nexport { byKey };\n",
    // Tests and examples are not product code.
    "tests/x_test.ts": "let shared = 0;\nshared++;\n",
  };
  const report = await check(files);
  equal(report.code, 1);
  deepEqual(violations(report.lines), [
    "core/_table.ts:1 const byKey = new WeakMap: module-state — a module-level side table, " +
    "shared by every harness in the process: move it into the instance that owns it, or allow " +
    "it in .ci/_module_state.ts with why it is process-wide",
    "core/ids.ts:1 let counter: module-state — a mutable module binding, shared by every harness " +
    "in the process: move it into the instance that owns it, or allow it in .ci/_module_state.ts " +
    "with why it is process-wide",
  ]);
  match(report.lines.at(-1)!, /module-state {12}2/);
  equal((await check(files, ["--off=module-state"])).code, 0);
  const only = await check(files, ["--only=module-state"]);
  equal(violations(only.lines).length, 2);
});

Deno.test("module-state: the state moved into an instance passes", async () => {
  const report = await check({
    "mod.ts": "export const root = 1;\n",
    "core/mod.ts": 'export { Ids } from "./ids.ts";\n',
    "core/ids.ts": "export class Ids {\n  #counter = 0;\n  next(): number {\n" +
      "    return ++this.#counter;\n  }\n}\n",
  });
  equal(report.code, 0, violations(report.lines).join("\n"));
});

Deno.test("module-state: this repository has no module state beyond its allowlist", async () => {
  const report = await checkLayers(["--only=module-state"]);
  equal(report.code, 0, violations(report.lines).join("\n"));
  deepEqual(report.lines.filter((line) => /module-state allows/.test(line)), []);
  // Each allowed binding exists, and each reason is one line saying why it is process-wide.
  const found = new Set<string>();
  for (const file of await listSourceFiles(ROOT)) {
    if (file.area !== "product") continue;
    const { source } = await parseSourceFile(file, ROOT);
    for (const { name } of moduleStateFindings(source)) found.add(`${file.path} ${name}`);
  }
  deepEqual([...found].sort(), Object.keys(MODULE_STATE_ALLOWED).sort());
  for (const [key, reason] of Object.entries(MODULE_STATE_ALLOWED)) {
    ok(/^(process-wide|process-unique|stateless)/.test(reason) && !reason.includes("\n"), key);
  }
});
