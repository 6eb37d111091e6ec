/**
 * The `module-state` rule of `.ci/check_layers.ts`: product code keeps no mutable state at module
 * level, so two harnesses in one process share nothing (issue 24). State lives in the instance
 * that owns it (the harness, its services, a runtime, a slot). What is genuinely process-wide (a
 * probe of this machine, a resource of the process, a process-unique id) is listed in
 * {@linkcode MODULE_STATE_ALLOWED}, each binding with the one-line reason it is process-wide.
 *
 * Read syntactically (no type checker), over each file's top-level statements:
 *
 * - a top-level `let` or `var` binding;
 * - a top-level `const` holding a side table: `new WeakMap`, `new WeakSet`, `new WeakRef` or
 *   `new FinalizationRegistry`;
 * - a top-level `const` holding a collection (`new Map`, `new Set`, `new Array`, a typed array,
 *   an array or object literal) that the file mutates (`.set`, `.add`, `.delete`, `.clear`,
 *   `.push`, …, an assignment to an element or property, `delete`, `++`, `Object.assign`), or
 *   that it exports without a read-only type (`ReadonlySet`, `ReadonlyMap`, `readonly T[]`,
 *   `Readonly<…>`): any importer could mutate it. A lookup table nobody mutates is fine;
 * - a top-level `const` holding an instance of any other class (`new Ajv()`), which may keep
 *   state, except the stateless {@linkcode STATELESS_CLASSES};
 * - a class's `static` field that is not `readonly`.
 *
 * Not seen: state captured in a closure at module level (`const next = (() => { let n = 0; … })()`)
 * and state behind a function call (`const cache = makeCache()`).
 *
 * @module
 */
import { lineOf, ts } from "./_source_files.ts";

/**
 * Module-level state that is process-wide on purpose, by `"<path> <binding>"`, each with the
 * reason. An entry whose binding is gone is reported as a note: remove it.
 */
export const MODULE_STATE_ALLOWED: Readonly<Record<string, string>> = {
  "acp/_plugin_graph.ts lockCopy":
    "process-wide: one private copy of this package's own deno.lock, made once per process",
  "agent/_open_log.ts lastMs": "process-wide: the clock's last formatted millisecond (a memo)",
  "agent/_open_log.ts lastIso": "process-wide: the clock's last formatted millisecond (a memo)",
  "agent/_session_lock.ts ownStart": "process-wide: this process's start time (read once)",
  "agent/agent.ts agentCounter":
    "process-unique ids: an agent's id names it in errors, never twice in one process",
  "builtins/_pinned_open.ts pinnedOpen":
    "process-wide: it guards the process-wide working directory",
  "builtins/_protected_mounts.ts HELD":
    "process-wide resource: placeholder folders on disk, counted over every run of the process",
  "builtins/_protected_mounts.ts turn":
    "process-wide resource: serializes the decisions over HELD's placeholders",
  "builtins/bwrap_args.ts FILTERS":
    "process-wide: memo of constants (the seccomp filter bytes of each socket setting)",
  "core/process_table.ts tableSource":
    "process-wide: machine probe (/proc readable, else ps), made once",
  "core/reload.ts counter":
    "process-unique: the module cache is the process's, so a reload's ?v= never repeats",
  "jobs/process_containment.ts probed":
    "process-wide: machine probe (can this host contain a process tree)",
  "jobs/process_containment.ts probedIsolation":
    "process-wide: machine probe (can this host isolate a PID namespace)",
  "jobs/process_tree.ts signalSource":
    "process-wide: Deno's permission to signal, which does not change within the process",
  "remote/_sync_host.ts local":
    "stateless for its use: only its file calls, which keep nothing between calls",
  "testing/_sandbox_box.ts bwrapChecked": "process-wide: machine probe (bwrap works here)",
  "tools/validate.ts AJV":
    "stateless in effect: a shared compiler, each compile removes its schema again",
  "tools/validate.ts AJV_OWN":
    "stateless in effect: a shared compiler, each compile removes its schema again",
};

/** Classes whose instances keep no state a caller can change. */
export const STATELESS_CLASSES: ReadonlySet<string> = new Set([
  "TextEncoder",
  "TextDecoder", // stateless unless decode() streams; none does at module level
  "URL",
  "RegExp",
  "Intl.Collator",
  "Intl.NumberFormat",
  "Intl.DateTimeFormat",
  "Intl.Segmenter",
]);

const SIDE_TABLES: ReadonlySet<string> = new Set([
  "WeakMap",
  "WeakSet",
  "WeakRef",
  "FinalizationRegistry",
]);

const COLLECTIONS: ReadonlySet<string> = new Set([
  "Map",
  "Set",
  "Array",
  "Uint8Array",
  "Int8Array",
  "Uint16Array",
  "Int16Array",
  "Uint32Array",
  "Int32Array",
  "Float32Array",
  "Float64Array",
  "BigInt64Array",
  "BigUint64Array",
]);

const MUTATORS: ReadonlySet<string> = new Set([
  "set",
  "add",
  "delete",
  "clear",
  "push",
  "pop",
  "shift",
  "unshift",
  "splice",
  "sort",
  "reverse",
  "fill",
  "copyWithin",
]);

const READONLY_TYPE_REGEXP = /^(?:Readonly(?:Set|Map|Array)?\s*<|readonly\s)/;

/** One piece of module-level state found in a file. */
export interface ModuleStateFinding {
  /** The binding (`counter`, or `Class.field` for a static field). */
  readonly name: string;
  /** Its 1-based line. */
  readonly line: number;
  /** What it is: `let counter`, `const RECORDS = new WeakMap`. */
  readonly what: string;
  /** Why it counts as state. */
  readonly why: string;
}

/**
 * The module-level state of one parsed file (allowlisted or not).
 *
 * @param source The parsed file.
 * @returns The findings, in source order.
 */
export function moduleStateFindings(source: ts.SourceFile): ModuleStateFinding[] {
  const mutated = mutatedRoots(source);
  const out: ModuleStateFinding[] = [];
  for (const statement of source.statements) {
    if (ts.isClassDeclaration(statement)) out.push(...staticFields(source, statement));
    if (
      !ts.isVariableStatement(statement) || hasModifier(statement, ts.SyntaxKind.DeclareKeyword)
    ) {
      continue;
    }
    const flags = statement.declarationList.flags;
    const keyword = flags & ts.NodeFlags.Let ? "let" : flags & ts.NodeFlags.Const ? "const" : "var";
    const exported = hasModifier(statement, ts.SyntaxKind.ExportKeyword);
    for (const declaration of statement.declarationList.declarations) {
      const line = lineOf(source, declaration.getStart(source));
      for (const name of boundNames(declaration.name)) {
        if (keyword !== "const") {
          out.push({ name, line, what: `${keyword} ${name}`, why: "a mutable module binding" });
          continue;
        }
        const why = constState(source, declaration, exported, mutated.has(name));
        if (why !== undefined) out.push({ name, line, ...why, what: `const ${name}${why.what}` });
      }
    }
  }
  return out;
}

/**
 * The `module-state` violations of one product file: its findings that are not allowlisted.
 *
 * @param path The file's repository path (`core/reload.ts`).
 * @param source The parsed file.
 * @param allowed Allowlist keys not seen yet: each one this file has is removed (the rest are gone).
 * @returns The violations, in `.ci/check_layers.ts`'s shape.
 */
export function moduleStateViolations(
  path: string,
  source: ts.SourceFile,
  allowed: Set<string>,
): { file: string; line: number; what: string; rule: string; detail: string }[] {
  return moduleStateFindings(source).flatMap(({ name, line, what, why }) => {
    const key = `${path} ${name}`;
    if (key in MODULE_STATE_ALLOWED) {
      allowed.delete(key);
      return [];
    }
    return [{
      file: path,
      line,
      what,
      rule: "module-state",
      detail: `${why}, shared by every harness in the process: move it into the instance that ` +
        "owns it, or allow it in .ci/_module_state.ts with why it is process-wide",
    }];
  });
}

/** Why a top-level `const` holds state, or `undefined`. */
function constState(
  source: ts.SourceFile,
  declaration: ts.VariableDeclaration,
  exported: boolean,
  mutated: boolean,
): { what: string; why: string } | undefined {
  const init = declaration.initializer === undefined
    ? undefined
    : skipWrappers(declaration.initializer);
  if (init === undefined) return undefined;
  const typeText = declaration.type?.getText(source) ?? "";
  const readonlyType = READONLY_TYPE_REGEXP.test(typeText);
  let kind: string;
  if (ts.isNewExpression(init)) {
    kind = init.expression.getText(source);
    if (SIDE_TABLES.has(kind)) return { what: ` = new ${kind}`, why: "a module-level side table" };
    if (STATELESS_CLASSES.has(kind)) return undefined;
    if (!COLLECTIONS.has(kind)) {
      return { what: ` = new ${kind}`, why: "a module-level instance, which may keep state" };
    }
    kind = `new ${kind}`;
  } else if (ts.isArrayLiteralExpression(init)) kind = "[…]";
  else if (ts.isObjectLiteralExpression(init)) kind = "{…}";
  else return undefined;
  const what = ` = ${kind}`;
  if (mutated) return { what, why: "a module-level collection this file mutates" };
  if (exported && !readonlyType && kind.startsWith("new ")) {
    return { what, why: "an exported mutable collection (type it Readonly… if it is a table)" };
  }
  return undefined;
}

/** `static` fields that are not `readonly`. */
function staticFields(source: ts.SourceFile, node: ts.ClassDeclaration): ModuleStateFinding[] {
  const out: ModuleStateFinding[] = [];
  for (const member of node.members) {
    if (!ts.isPropertyDeclaration(member)) continue;
    if (!hasModifier(member, ts.SyntaxKind.StaticKeyword)) continue;
    if (hasModifier(member, ts.SyntaxKind.ReadonlyKeyword)) continue;
    const name = `${node.name?.text ?? "(class)"}.${member.name.getText(source)}`;
    const line = lineOf(source, member.getStart(source));
    out.push({ name, line, what: `static ${name}`, why: "a mutable static field" });
  }
  return out;
}

function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  const modifiers = ts.canHaveModifiers(node) ? ts.getModifiers(node) ?? [] : [];
  return modifiers.some((m) => m.kind === kind);
}

function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) =>
    ts.isOmittedExpression(element) ? [] : boundNames(element.name)
  );
}

/** Strips `as`, `satisfies`, `!` and parentheses. */
function skipWrappers(node: ts.Expression): ts.Expression {
  let current = node;
  while (
    ts.isAsExpression(current) || ts.isSatisfiesExpression(current) ||
    ts.isNonNullExpression(current) || ts.isParenthesizedExpression(current)
  ) current = current.expression;
  return current;
}

/** The identifier a property/element access chain starts from (`A` of `A.b[c].d`). */
function accessRoot(node: ts.Expression): string | undefined {
  let current = skipWrappers(node);
  while (ts.isPropertyAccessExpression(current) || ts.isElementAccessExpression(current)) {
    current = skipWrappers(current.expression);
  }
  return ts.isIdentifier(current) ? current.text : undefined;
}

/** Whether `node` is an access (`A.b`, `A[i]`) rooted at an identifier; returns the root. */
function accessTarget(node: ts.Expression): string | undefined {
  const target = skipWrappers(node);
  if (!ts.isPropertyAccessExpression(target) && !ts.isElementAccessExpression(target)) {
    return undefined;
  }
  return accessRoot(target);
}

function isAssignment(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

function isIncrement(node: ts.PrefixUnaryExpression | ts.PostfixUnaryExpression): boolean {
  return node.operator === ts.SyntaxKind.PlusPlusToken ||
    node.operator === ts.SyntaxKind.MinusMinusToken;
}

/** Names whose value the file changes in place: `X.set(…)`, `X[i] = …`, `delete X.k`, … */
function mutatedRoots(source: ts.SourceFile): Set<string> {
  const out = new Set<string>();
  const mark = (name: string | undefined) => name !== undefined && out.add(name);
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind)) {
      mark(accessTarget(node.left));
    } else if (
      (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && isIncrement(node)
    ) {
      mark(accessTarget(node.operand));
    } else if (ts.isDeleteExpression(node)) {
      mark(accessTarget(node.expression));
    } else if (ts.isCallExpression(node)) {
      const callee = skipWrappers(node.expression);
      if (ts.isPropertyAccessExpression(callee) && MUTATORS.has(callee.name.text)) {
        mark(accessRoot(callee.expression));
      } else if (callee.getText(source) === "Object.assign" && node.arguments[0] !== undefined) {
        mark(accessRoot(node.arguments[0]));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}
