/**
 * The `one-door` rule of `.ci/check_layers.ts`: every name the package exports comes out of ONE
 * entry point (deno.json `exports`). A name two doors export means two ways to import the same
 * thing, and a reader cannot tell which is the real one.
 *
 * The export lists are read syntactically (no type checker): local `export` declarations,
 * `export { a as b }` (with or without `from`), `export * as ns from` and `export * from`
 * (followed, without `default`). Type and value exports count alike.
 *
 * @module
 */
import { dirname, join, normalize } from "node:path";
import { lineOf, ts } from "./_source_files.ts";

/** One exported name of an entry point and where the door file exports it. */
export interface DoorExport {
  /** The exported name. */
  readonly name: string;
  /** The 1-based line of the door file's statement that exports it. */
  readonly line: number;
}

/** Reads a parsed module by its repository-relative path (`undefined` when it is not there). */
export type ModuleReader = (path: string) => ts.SourceFile | undefined;

/**
 * The names each entry point exports, in source order.
 *
 * @param entries The entry point files (`core/mod.ts`), as deno.json's `exports` lists them.
 * @param read Reads a parsed module.
 * @returns Entry file → its exports (a name once, at its first line).
 */
export function doorExports(
  entries: readonly string[],
  read: ModuleReader,
): Map<string, DoorExport[]> {
  const out = new Map<string, DoorExport[]>();
  for (const entry of entries) {
    const source = read(entry);
    if (source === undefined) continue;
    const seen = new Map<string, DoorExport>();
    for (const { name, line } of moduleExports(source, read, new Set([entry]))) {
      if (!seen.has(name)) seen.set(name, { name, line });
    }
    out.set(entry, [...seen.values()]);
  }
  return out;
}

/**
 * The names exported by more than one entry point.
 *
 * @param doors What {@linkcode doorExports} returned.
 * @returns Name → the entry files exporting it (in `doors` order), only for names with several.
 */
export function multiDoorNames(doors: ReadonlyMap<string, readonly DoorExport[]>): Map<
  string,
  string[]
> {
  const byName = new Map<string, string[]>();
  for (const [entry, names] of doors) {
    for (const { name } of names) byName.set(name, [...byName.get(name) ?? [], entry]);
  }
  return new Map([...byName].filter(([, entries]) => entries.length > 1));
}

function moduleExports(
  source: ts.SourceFile,
  read: ModuleReader,
  visiting: Set<string>,
): DoorExport[] {
  const out: DoorExport[] = [];
  for (const statement of source.statements) {
    const line = lineOf(source, statement.getStart(source));
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause !== undefined && ts.isNamedExports(clause)) {
        for (const element of clause.elements) out.push({ name: element.name.text, line });
      } else if (clause !== undefined) {
        out.push({ name: clause.name.text, line });
      } else if (
        statement.moduleSpecifier !== undefined && ts.isStringLiteral(statement.moduleSpecifier)
      ) {
        const target = relativeTarget(source.fileName, statement.moduleSpecifier.text);
        const module = target === undefined || visiting.has(target) ? undefined : read(target);
        if (module === undefined || target === undefined) continue;
        const inner = moduleExports(module, read, new Set([...visiting, target]));
        for (const { name } of inner) if (name !== "default") out.push({ name, line });
      }
    } else if (ts.isExportAssignment(statement)) {
      out.push({ name: "default", line });
    } else {
      for (const name of declaredExports(statement)) out.push({ name, line });
    }
  }
  return out;
}

function declaredExports(statement: ts.Statement): string[] {
  const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) ?? [] : [];
  if (!modifiers.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return [];
  const isDefault = modifiers.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
  if (isDefault) return ["default"];
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.flatMap((d) =>
      ts.isIdentifier(d.name) ? [d.name.text] : []
    );
  }
  const named = statement as ts.Statement & { name?: ts.Node };
  return named.name !== undefined && ts.isIdentifier(named.name) ? [named.name.text] : [];
}

function relativeTarget(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return undefined;
  return normalize(join(dirname(from), specifier));
}
