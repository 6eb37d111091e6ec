/**
 * Checks that imports run one way: core ← tools ← registry ← (jobs, codemode, agent) ←
 * (builtins, mcp) ← acp, with `testing/` and the top-level `mod.ts` above them all. `acp/` is the
 * composition root (the agent binary): it may import builtins and mcp, and read the root data files
 * in {@linkcode ROOT_DATA_FILES}.
 *
 * Usage: `deno run --allow-read .ci/check_layers.ts [--off=<rules>] [--on=<rules>] [--only=<rules>]
 * [--list]`
 *
 * Every static import, re-export, `import type`, `import("…")` type, literal dynamic `import()`,
 * `import.meta.resolve("…")` and `new URL("…", import.meta.url)` in product code and `examples/`
 * is checked against these named rules (each can be switched off with `--off=`; the rules in
 * {@linkcode OFF_BY_DEFAULT} run only when `--on=` or `--only=` names them):
 *
 * - `layer-order`: a folder imports a folder of a higher layer.
 * - `sibling-import`: a folder imports another folder of the same layer (jobs ↔ agent ↔ codemode,
 *   builtins ↔ mcp).
 * - `no-testing`: product code imports `testing/` (only the top-level `mod.ts` may).
 * - `layer-table`: a product folder has no layer in {@linkcode LAYERS}, or product code imports a
 *   non-product file (`tests/`, `bench/`, `examples/`).
 * - `private-file`: a file imports another folder's private (`_`) file.
 * - `mod-door` (off by default): a file imports another folder's public file other than its
 *   `mod.ts`. The top-level `mod.ts` is exempt: docs/style.md §1 has it take the embedder API straight
 *   from implementation files.
 * - `examples-public`: an example imports a package file that is not a public entry point.
 * - `examples-specifier`: an example reaches a public entry point by a relative path instead of
 *   `@dsh/harness` / `@dsh/harness/<entry>`.
 * - `sdk-private`: a file that imports an npm SDK reads a `._name` property of something other than
 *   `this` (`._process`, `._transport`, …). `_meta` is a public ACP/MCP protocol field and is
 *   exempt. Escape hatch: `// layers: allow-private <reason>` on the same or the previous line.
 * - `import-cycle`: product files that import each other, directly or through others, inside one
 *   folder too (type-only imports count). One violation per cycle, at its first file's import.
 * - `one-door`: a name exported by more than one entry point (deno.json `exports`), reported at
 *   each later door's export; the summary line counts exported symbols, names and multi-door
 *   names (`.ci/_one_door.ts`).
 * - `module-state`: product code keeps mutable state at module level (a top-level `let`, a
 *   `WeakMap` side table, a collection the file mutates, …), so two harnesses in one process would
 *   share it; process-wide state is allowlisted with its reason (`.ci/_module_state.ts`).
 *
 * Prints one `file:line …: <rule>` line per violation and a count by rule; exits 1 on any.
 *
 * @module
 */
import { posix } from "node:path";
import {
  enabledRules,
  lineOf,
  listSourceFiles,
  parseSourceFile,
  ROOT,
  type SourceFile,
  ts,
} from "./_source_files.ts";
import { findImportCycles, type ImportCycle } from "./_import_cycles.ts";
import { doorExports, multiDoorNames } from "./_one_door.ts";
import { MODULE_STATE_ALLOWED, moduleStateViolations } from "./_module_state.ts";

/** Layer of each top-level folder; a folder may import only its own folder or a lower layer. */
export const LAYERS: Readonly<Record<string, number>> = {
  core: 0,
  tools: 1,
  registry: 2,
  jobs: 3,
  codemode: 3,
  agent: 3,
  builtins: 4,
  mcp: 4,
  remote: 5, // executors whose environment is elsewhere (issue 23)
  acp: 6, // the composition root: the agent binary
  testing: 7,
  "": 8, // the top-level mod.ts
};

/** Root data files (not modules) and the folders that may read them. */
export const ROOT_DATA_FILES: Readonly<Record<string, readonly string[]>> = {
  "deno.json": ["acp"],
  "dsh.schema.json": ["acp"],
};

/** Every rule, in report order. */
export const RULES: readonly string[] = [
  "layer-order",
  "sibling-import",
  "no-testing",
  "layer-table",
  "private-file",
  "mod-door",
  "examples-public",
  "examples-specifier",
  "sdk-private",
  "import-cycle",
  "one-door",
  "module-state",
];

/** Rules that run only when `--on=` or `--only=` names them. */
export const OFF_BY_DEFAULT: readonly string[] = ["mod-door"];

/** `._name` reads that are public protocol fields, not SDK internals. */
const PUBLIC_UNDERSCORE_FIELDS: ReadonlySet<string> = new Set(["_meta"]);
const PRIVATE_NAME_REGEXP = /^_[a-z]\w*$/;
const ALLOW_PRIVATE_REGEXP = /\/\/\s*layers:\s*allow-private\b(.*)$/;

interface ImportSite {
  readonly specifier: string;
  readonly line: number;
  readonly kind: "static" | "type" | "dynamic" | "url";
}

interface Violation {
  readonly file: string;
  readonly line: number;
  readonly what: string;
  readonly rule: string;
  readonly detail: string;
}

interface PackageInfo {
  readonly name: string;
  /** Export target path (`registry/mod.ts`) → its specifier (`@dsh/harness/registry`). */
  readonly entries: ReadonlyMap<string, string>;
  /** Specifier (`@dsh/harness/registry`) → export target path. */
  readonly specifiers: ReadonlyMap<string, string>;
}

async function readPackage(root: string): Promise<PackageInfo> {
  const config = JSON.parse(await Deno.readTextFile(`${root}/deno.json`)) as {
    name: string;
    exports: Record<string, string>;
  };
  const entries = new Map<string, string>();
  const specifiers = new Map<string, string>();
  for (const [key, target] of Object.entries(config.exports)) {
    const path = posix.normalize(target);
    const specifier = key === "." ? config.name : `${config.name}/${key.slice(2)}`;
    entries.set(path, specifier);
    specifiers.set(specifier, path);
  }
  return { name: config.name, entries, specifiers };
}

function stringArgument(node: ts.Node | undefined): string | undefined {
  if (node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))) {
    return node.text;
  }
  return undefined;
}

function isImportMetaUrl(node: ts.Node | undefined): boolean {
  return !!node && ts.isPropertyAccessExpression(node) && node.name.text === "url" &&
    ts.isMetaProperty(node.expression) &&
    node.expression.keywordToken === ts.SyntaxKind.ImportKeyword;
}

/** Collects every module reference in a file, plus non-literal dynamic imports as notes. */
function collectImports(source: ts.SourceFile): { sites: ImportSite[]; notes: number[] } {
  const sites: ImportSite[] = [];
  const notes: number[] = [];
  const add = (specifier: string, node: ts.Node, kind: ImportSite["kind"]) =>
    sites.push({ specifier, line: lineOf(source, node.getStart(source)), kind });
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      const specifier = node.moduleSpecifier && stringArgument(node.moduleSpecifier);
      const typeOnly = ts.isImportDeclaration(node)
        ? node.importClause?.isTypeOnly === true
        : node.isTypeOnly;
      if (specifier !== undefined) add(specifier, node, typeOnly ? "type" : "static");
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg)) {
        const specifier = stringArgument(arg.literal);
        if (specifier !== undefined) add(specifier, node, "type");
      }
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword) {
        const specifier = stringArgument(node.arguments[0]);
        if (specifier !== undefined) add(specifier, node, "dynamic");
        else notes.push(lineOf(source, node.getStart(source)));
      } else if (
        ts.isPropertyAccessExpression(callee) && callee.name.text === "resolve" &&
        ts.isMetaProperty(callee.expression)
      ) {
        const specifier = stringArgument(node.arguments[0]);
        if (specifier !== undefined) add(specifier, node, "url");
      }
    } else if (
      ts.isNewExpression(node) && ts.isIdentifier(node.expression) &&
      node.expression.text === "URL" && isImportMetaUrl(node.arguments?.[1])
    ) {
      const specifier = stringArgument(node.arguments?.[0]);
      if (specifier !== undefined && /^\.\.?\//.test(specifier)) add(specifier, node, "url");
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { sites, notes };
}

/** Resolves a specifier to a repository path, or `undefined` for an external module. */
function resolveLocal(from: string, specifier: string, pkg: PackageInfo): string | undefined {
  if (specifier.startsWith("./") || specifier.startsWith("../")) {
    return posix.normalize(posix.join(posix.dirname(from), specifier));
  }
  return pkg.specifiers.get(specifier);
}

/** True for specifiers that name an npm package: `npm:x` or a bare import-map name. */
function isSdkSpecifier(specifier: string): boolean {
  if (specifier.startsWith("npm:")) return true;
  if (specifier.startsWith(".") || specifier.startsWith("/")) return false;
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier)) return false; // node:, jsr:, data:, https:, file:
  return true;
}

/** `npm:@scope/name@1.2.3/sub` or `@scope/name/sub` → `@scope/name`. */
function packageName(specifier: string): string {
  const bare = specifier.replace(/^npm:\/?/, "");
  const parts = bare.split("/");
  const name = bare.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
  return name.replace(/(.)@.*$/, "$1");
}

function topFolder(path: string): string {
  return path.includes("/") ? path.slice(0, path.indexOf("/")) : "";
}

function folderLabel(folder: string): string {
  return folder === "" ? "the top-level mod.ts" : `${folder}/`;
}

function checkProductImport(
  file: SourceFile,
  target: string,
): Omit<Violation, "file" | "line" | "what">[] {
  const out: Omit<Violation, "file" | "line" | "what">[] = [];
  const from = file.folder;
  const to = topFolder(target);
  if (from === to) return out;
  if (to === "tests" || to === "bench" || to === "examples" || target.startsWith("..")) {
    out.push({ rule: "layer-table", detail: `product code may not import ${target}` });
    return out;
  }
  if (to === "" && ROOT_DATA_FILES[target]?.includes(from)) return out;
  const base = posix.basename(target);
  const isRootDoor = from === "" && base === "mod.ts";
  if (to === "testing") {
    if (from !== "testing" && !isRootDoor) {
      out.push({
        rule: "no-testing",
        detail: `${folderLabel(from)} is product code and may not import testing/`,
      });
    }
  } else if (!(from in LAYERS) || !(to in LAYERS)) {
    const missing = !(from in LAYERS) ? from : to;
    out.push({ rule: "layer-table", detail: `folder ${missing}/ has no layer in LAYERS` });
  } else if (LAYERS[to]! > LAYERS[from]!) {
    out.push({
      rule: "layer-order",
      detail: `${folderLabel(from)} (layer ${LAYERS[from]}) may not import ${to}/ (layer ${
        LAYERS[to]
      })`,
    });
  } else if (LAYERS[to] === LAYERS[from]) {
    out.push({
      rule: "sibling-import",
      detail: `${from}/ and ${to}/ share layer ${LAYERS[from]} and may not import each other`,
    });
  }
  if (base.startsWith("_")) {
    out.push({ rule: "private-file", detail: `${target} is private to ${to}/` });
  } else if (base !== "mod.ts" && from !== "") {
    out.push({
      rule: "mod-door",
      detail: `import ${to}/mod.ts (the folder's only door), not ${target}`,
    });
  }
  return out;
}

function checkExampleImport(
  site: ImportSite,
  target: string,
  pkg: PackageInfo,
): Omit<Violation, "file" | "line" | "what">[] {
  if (topFolder(target) === "examples") return [];
  const entry = pkg.entries.get(target);
  if (entry === undefined) {
    return [{
      rule: "examples-public",
      detail: `${target} is not a public entry point; use ${pkg.name} or ${pkg.name}/<entry>`,
    }];
  }
  if (site.specifier !== entry) {
    return [{ rule: "examples-specifier", detail: `write ${JSON.stringify(entry)}` }];
  }
  return [];
}

/** Finds `._name` reads in a file that imports an npm SDK. */
function checkSdkPrivate(
  file: SourceFile,
  source: ts.SourceFile,
  text: string,
  sdks: readonly string[],
): Violation[] {
  if (sdks.length === 0) return [];
  const lines = text.split("\n");
  const out: Violation[] = [];
  const report = (node: ts.Node, name: string, receiver: ts.Expression) => {
    if (!PRIVATE_NAME_REGEXP.test(name) || PUBLIC_UNDERSCORE_FIELDS.has(name)) return;
    if (receiver.kind === ts.SyntaxKind.ThisKeyword) return;
    const line = lineOf(source, node.getStart(source));
    const marker = ALLOW_PRIVATE_REGEXP.exec(lines[line - 1] ?? "") ??
      ALLOW_PRIVATE_REGEXP.exec(
        (lines[line - 2] ?? "").trim().startsWith("//") ? lines[line - 2]! : "",
      );
    if (marker && marker[1]!.trim() !== "") return;
    out.push({
      file: file.path,
      line,
      what: `reads .${name}`,
      rule: "sdk-private",
      detail: marker
        ? "the allow-private comment needs a reason"
        : `private field read in a file importing ${sdks.join(", ")}; add ` +
          "`// layers: allow-private <reason>` only if unavoidable",
    });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node)) {
      report(node.name, node.name.text, node.expression);
    } else if (ts.isElementAccessExpression(node)) {
      const name = stringArgument(node.argumentExpression);
      if (name !== undefined) report(node.argumentExpression, name, node.expression);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Adds a `one-door` violation per later door of each multi-door name; returns the summary note. */
function checkOneDoor(
  entries: readonly string[],
  sources: ReadonlyMap<string, ts.SourceFile>,
  violations: Violation[],
): string {
  const doors = doorExports(entries, (path) => sources.get(path));
  const multi = multiDoorNames(doors);
  for (const [name, [first, ...others]] of multi) {
    for (const door of others) {
      const line = doors.get(door)!.find((e) => e.name === name)!.line;
      violations.push({
        file: door,
        line,
        what: `exports ${name}`,
        rule: "one-door",
        detail: `${first} exports it too: each name comes out of one door`,
      });
    }
  }
  const symbols = [...doors.values()].reduce((sum, names) => sum + names.length, 0);
  const names = new Set([...doors.values()].flatMap((list) => list.map((e) => e.name))).size;
  return `note: ${doors.size} entry points export ${symbols} symbols for ${names} names; ` +
    `${multi.size} name(s) from several doors`;
}

/** What {@linkcode checkLayers} found: the report's lines and the exit code (0 clean, 1 violations). */
export interface LayerReport {
  readonly lines: readonly string[];
  readonly code: number;
  /** The import cycles found (whether or not the rule is enabled). */
  readonly cycles: readonly ImportCycle[];
}

/**
 * Checks every import of the repository at `root` against the enabled rules.
 *
 * @param args The command-line flags (`--off=`, `--on=`, `--only=`, `--list`).
 * @param root The repository root (holding `deno.json`).
 * @returns The report.
 * @throws {TypeError} On an unknown flag or rule name.
 */
export async function checkLayers(
  args: readonly string[] = [],
  root: string = ROOT,
): Promise<LayerReport> {
  if (args.includes("--list")) return { lines: [...RULES], code: 0, cycles: [] };
  const enabled = enabledRules(args, RULES, OFF_BY_DEFAULT);
  const pkg = await readPackage(root);
  const files = await listSourceFiles(root);
  const product = new Set(files.filter((f) => f.area === "product").map((f) => f.path));
  const graph = new Map<string, string[]>();
  const firstSite = new Map<string, ImportSite>();
  const violations: Violation[] = [];
  const notes: string[] = [];
  let importCount = 0;
  const sources = new Map<string, ts.SourceFile>();
  const allowed = new Set(Object.keys(MODULE_STATE_ALLOWED));
  for (const file of files) {
    const { source, text } = await parseSourceFile(file, root);
    sources.set(file.path, source);
    const { sites, notes: dynamicLines } = collectImports(source);
    for (const line of dynamicLines) {
      notes.push(`${file.path}:${line} note: non-literal dynamic import() is not checked`);
    }
    importCount += sites.length;
    const sdks = [
      ...new Set(
        sites.filter((s) => isSdkSpecifier(s.specifier)).map((s) => packageName(s.specifier)),
      ),
    ];
    violations.push(...checkSdkPrivate(file, source, text, sdks));
    if (file.area === "product") {
      violations.push(...moduleStateViolations(file.path, source, allowed));
    }
    const edges: string[] = [];
    if (file.area === "product") graph.set(file.path, edges);
    for (const site of sites) {
      const target = resolveLocal(file.path, site.specifier, pkg);
      if (target === undefined) continue;
      if (file.area === "product" && product.has(target) && !edges.includes(target)) {
        edges.push(target);
        firstSite.set(`${file.path} ${target}`, site);
      }
      const found = file.area === "examples"
        ? checkExampleImport(site, target, pkg)
        : checkProductImport(file, target);
      const kind = site.kind === "static" ? "" : ` (${site.kind})`;
      for (const v of found) {
        violations.push({
          file: file.path,
          line: site.line,
          what: `imports ${site.specifier}${kind}`,
          ...v,
        });
      }
    }
  }
  notes.push(checkOneDoor([...pkg.entries.keys()], sources, violations));
  for (const key of allowed) {
    notes.push(`note: module-state allows ${JSON.stringify(key)}, which is gone: remove it`);
  }
  const cycles = findImportCycles(graph);
  for (const { path, files: members } of cycles) {
    const site = firstSite.get(`${path[0]} ${path[1]}`)!;
    const kind = site.kind === "static" ? "" : ` (${site.kind})`;
    const others = members.length > path.length - 1
      ? ` (its component: ${members.join(", ")})`
      : "";
    violations.push({
      file: path[0]!,
      line: site.line,
      what: `imports ${site.specifier}${kind}`,
      rule: "import-cycle",
      detail: `cycle ${path.join(" → ")}${others}`,
    });
  }
  const shown = violations.filter((v) => enabled.has(v.rule)).sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line
  );
  const lines = shown.map((v) => `${v.file}:${v.line} ${v.what}: ${v.rule} — ${v.detail}`);
  lines.push(...notes);
  const counts = RULES.map((rule) => {
    const hits = violations.filter((v) => v.rule === rule);
    const typeOnly = hits.filter((v) => v.what.endsWith("(type)")).length;
    const note = typeOnly > 0 ? `  (${typeOnly} type-only)` : "";
    return `  ${rule.padEnd(20)} ${String(hits.length).padStart(4)}${note}${
      enabled.has(rule) ? "" : "  (off)"
    }`;
  });
  lines.push(
    `\ncheck_layers: ${files.length} files, ${importCount} module references, ` +
      `${shown.length} violation(s)\n${counts.join("\n")}`,
  );
  return { lines, code: shown.length === 0 ? 0 : 1, cycles };
}

if (import.meta.main) {
  try {
    const report = await checkLayers(Deno.args);
    for (const line of report.lines) console.log(line);
    Deno.exit(report.code);
  } catch (error) {
    if (!(error instanceof TypeError || error instanceof RangeError)) throw error;
    console.error(`error: ${error.message}`);
    Deno.exit(2);
  }
}
