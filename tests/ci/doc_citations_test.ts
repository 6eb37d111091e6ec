/**
 * Every `docs/<file>.md §N` (and `§N step M`) cited in the repository's code and READMEs exists:
 * `docs/<file>.md` has a heading `## N.`, and a cited step is an item `M.` of that section's
 * numbered list. Documents outside the repository (`design/…`, a bare `contracts.md`) are not
 * cited at all.
 *
 * @module
 */
import { deepEqual, ok } from "node:assert/strict";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SKIP = new Set(["node_modules", "test_deps", ".git", "docs"]);
const CITATION_REGEXP = /docs\/([\w-]+\.md)([^\n]*)/g;
const SECTION_REGEXP = /§(\d+)(?:\s+steps?\s+(\d+(?:\s*(?:,|and)\s*\d+)*))?/g;

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (/\.(ts|md)$/.test(entry.name)) yield path;
  }
}

/** The sections of a document: heading number → the numbers of its top-level list items. */
function sections(text: string): Map<number, Set<number>> {
  const found = new Map<number, Set<number>>();
  let current: Set<number> | undefined;
  for (const line of text.split("\n")) {
    const heading = /^## (\d+)\. /.exec(line);
    if (heading) found.set(Number(heading[1]), current = new Set());
    const item = /^(\d+)\. /.exec(line);
    if (item && current) current.add(Number(item[1]));
  }
  return found;
}

/** `file:line: docs/x.md §N[ step M]` for each citation that does not resolve. */
function unresolved(
  where: string,
  line: string,
  docs: ReadonlyMap<string, Map<number, Set<number>> | undefined>,
): string[] {
  const problems: string[] = [];
  for (const [, file, rest] of line.matchAll(CITATION_REGEXP)) {
    const doc = docs.get(file!);
    const cited = rest!.split("docs/")[0]!;
    if (doc === undefined) {
      problems.push(`${where}: docs/${file} does not exist`);
      continue;
    }
    for (const [, section, steps] of cited.matchAll(SECTION_REGEXP)) {
      const items = doc.get(Number(section));
      if (items === undefined) {
        problems.push(`${where}: docs/${file} has no section §${section}`);
        continue;
      }
      for (const step of steps?.split(/\s*(?:,|and)\s*/) ?? []) {
        if (!items.has(Number(step))) {
          problems.push(`${where}: docs/${file} §${section} has no step ${step}`);
        }
      }
    }
  }
  return problems;
}

Deno.test("every docs/<file> §N cited in a comment or README exists as a heading (and step)", async () => {
  const docs = new Map<string, Map<number, Set<number>> | undefined>();
  for await (const entry of Deno.readDir(join(ROOT, "docs"))) {
    docs.set(entry.name, sections(await Deno.readTextFile(join(ROOT, "docs", entry.name))));
  }
  const problems: string[] = [];
  const outside: string[] = [];
  let citations = 0;
  for await (const path of sourceFiles(ROOT)) {
    if (path === fileURLToPath(import.meta.url)) continue; // its own examples of bad citations
    const lines = (await Deno.readTextFile(path)).split("\n");
    lines.forEach((line, index) => {
      const where = `${relative(ROOT, path)}:${index + 1}`;
      if (line.includes("docs/") && /docs\/[\w-]+\.md/.test(line)) citations++;
      problems.push(...unresolved(where, line, docs));
      // A design document outside the repository, or a contract cited without its folder.
      if (/(?<![\w/])(?:design\/[\w-]+\.md|(?:contracts|style|facts)\.md)/.test(line)) {
        outside.push(where);
      }
    });
  }
  ok(citations > 20, `the scan found the citations (${citations})`);
  deepEqual(problems, []);
  deepEqual(
    outside,
    [],
    `these lines cite documents the repository does not have: ${outside.join(", ")}`,
  );
});

Deno.test("the citation check finds a missing section and a missing step", () => {
  const docs = new Map([["contracts.md", sections("## 1. A\n\n1. one\n2. two\n\n## 2. B\n")]]);
  deepEqual(unresolved("x.ts:1", " * see docs/contracts.md §1 step 2 and §2", docs), []);
  deepEqual(unresolved("x.ts:1", " * see docs/contracts.md §1 steps 2, 3 and §4", docs), [
    "x.ts:1: docs/contracts.md §1 has no step 3",
    "x.ts:1: docs/contracts.md has no section §4",
  ]);
  deepEqual(unresolved("x.ts:1", " * docs/missing.md §1", docs), [
    "x.ts:1: docs/missing.md does not exist",
  ]);
});
