/**
 * Checks the size budgets of product code (see `.ci/_source_files.ts` for what counts as product).
 *
 * Usage: `deno run --allow-read .ci/check_sizes.ts [--off=<rules>] [--only=<rules>] [--top=<n>] [--list]`
 * (`--top=<n>` also lists the n longest functions, whatever their size).
 *
 * Named rules (each can be switched off with `--off=`):
 *
 * - `function-lines`: a function, method, accessor, constructor or arrow function spans more than
 *   {@linkcode MAX_FUNCTION_LINES} lines, from its first token (after its JSDoc) to its closing
 *   brace. A nested function counts inside its parent too, so a long closure is reported together
 *   with any long function inside it.
 * - `file-lines`: a file has more than {@linkcode MAX_FILE_LINES} lines (as `wc -l` counts them).
 * - `folder-lines`: a folder's files together exceed their budget in {@linkcode FOLDER_BUDGETS}.
 *
 * Functions are found with the TypeScript compiler's parser, so braces in strings, template
 * literals, regular expressions and comments cannot confuse the count.
 *
 * @module
 */
import {
  enabledRules,
  lineOf,
  listSourceFiles,
  parseSourceFile,
  type SourceFile,
  ts,
} from "./_source_files.ts";

/** Longest allowed function, in lines. */
export const MAX_FUNCTION_LINES = 80;
/** Longest allowed file, in lines. */
export const MAX_FILE_LINES = 400;
/**
 * Line budgets of whole folders. registry/ holds everything that runs a call (the table, the
 * definition check, the hooks, the chain and the body moved back from tools/, issue 24): 2,200.
 */
export const FOLDER_BUDGETS: Readonly<Record<string, number>> = { registry: 2200 };

/** Every rule, in report order. */
export const RULES: readonly string[] = ["function-lines", "file-lines", "folder-lines"];

interface FunctionSize {
  readonly file: string;
  readonly line: number;
  readonly name: string;
  readonly lines: number;
}

function isFunctionLike(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node);
}

function nameText(name: ts.PropertyName | ts.BindingName | undefined): string | undefined {
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return undefined;
}

/** A readable name: `createAcpServer`, `Class.method`, `(arrow)` for an anonymous callback. */
function functionName(node: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const own = nameText(node.name);
  if (own !== undefined) {
    const owner = node.parent;
    if (ts.isClassLike(owner) && owner.name) return `${owner.name.text}.${own}`;
    return own;
  }
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return nameText(parent.name) ?? "(anonymous)";
  }
  if (ts.isPropertyDeclaration(parent)) return nameText(parent.name) ?? "(anonymous)";
  if (ts.isCallExpression(parent)) {
    const callee = parent.expression.getText().replace(/\s+/g, "");
    return `(callback of ${callee.length > 40 ? callee.slice(0, 40) + "…" : callee})`;
  }
  return ts.isArrowFunction(node) ? "(arrow)" : "(function)";
}

function measureFunctions(file: SourceFile, source: ts.SourceFile): FunctionSize[] {
  const out: FunctionSize[] = [];
  const visit = (node: ts.Node, outer: string): void => {
    let path = outer;
    if (isFunctionLike(node) && node.body) {
      const start = lineOf(source, node.getStart(source));
      const end = lineOf(source, node.getEnd());
      const name = functionName(node);
      path = outer === "" ? name : `${outer} › ${name}`;
      out.push({ file: file.path, line: start, name: path, lines: end - start + 1 });
    }
    ts.forEachChild(node, (child) => visit(child, path));
  };
  visit(source, "");
  return out;
}

/** Counts lines like `wc -l`, plus a last line without a trailing newline. */
function countLines(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}

async function main(args: readonly string[]): Promise<number> {
  if (args.includes("--list")) {
    console.log(RULES.join("\n"));
    return 0;
  }
  const topArg = args.find((arg) => arg.startsWith("--top="));
  const top = topArg === undefined ? 0 : Number(topArg.slice("--top=".length));
  if (!Number.isInteger(top) || top < 0) {
    throw new RangeError(
      `Cannot parse ${JSON.stringify(topArg)}: expected --top=<a non-negative integer>`,
    );
  }
  const enabled = enabledRules(args.filter((arg) => arg !== topArg), RULES);
  const files = (await listSourceFiles()).filter((f) => f.area === "product");
  const functions: FunctionSize[] = [];
  const fileLines = new Map<string, number>();
  const folderLines = new Map<string, number>();
  for (const file of files) {
    const { source, text } = await parseSourceFile(file);
    functions.push(...measureFunctions(file, source));
    const lines = countLines(text);
    fileLines.set(file.path, lines);
    folderLines.set(file.folder, (folderLines.get(file.folder) ?? 0) + lines);
  }
  const found: Record<string, string[]> = {
    "function-lines": [],
    "file-lines": [],
    "folder-lines": [],
  };
  const longFunctions = functions.filter((f) => f.lines > MAX_FUNCTION_LINES).sort((a, b) =>
    b.lines - a.lines
  );
  for (const f of longFunctions) {
    found["function-lines"]!.push(
      `${f.file}:${f.line} function ${f.name} is ${f.lines} lines: function-lines (max ${MAX_FUNCTION_LINES})`,
    );
  }
  const longFiles = [...fileLines].filter(([, n]) => n > MAX_FILE_LINES).sort((a, b) =>
    b[1] - a[1]
  );
  for (const [path, n] of longFiles) {
    found["file-lines"]!.push(`${path}:1 file is ${n} lines: file-lines (max ${MAX_FILE_LINES})`);
  }
  for (const [folder, budget] of Object.entries(FOLDER_BUDGETS)) {
    const n = folderLines.get(folder) ?? 0;
    if (n > budget) {
      found["folder-lines"]!.push(
        `${folder}/ is ${n} lines in total: folder-lines (max ${budget})`,
      );
    }
  }
  let failures = 0;
  for (const rule of RULES) {
    if (!enabled.has(rule)) continue;
    for (const line of found[rule]!) console.log(line);
    failures += found[rule]!.length;
  }
  const counts = RULES.map((rule) =>
    `  ${rule.padEnd(16)} ${String(found[rule]!.length).padStart(4)}${
      enabled.has(rule) ? "" : "  (off)"
    }`
  );
  const folders = [...folderLines].sort((a, b) => b[1] - a[1]).map(([folder, n]) =>
    `${folder === "" ? "(root)" : folder + "/"} ${n}`
  );
  if (top > 0) {
    console.log(`\nlongest ${top} functions (any size):`);
    for (const f of [...functions].sort((a, b) => b.lines - a.lines).slice(0, top)) {
      console.log(`  ${String(f.lines).padStart(4)}  ${f.file}:${f.line} ${f.name}`);
    }
  }
  console.log(
    `\ncheck_sizes: ${files.length} files, ${functions.length} functions, ${failures} violation(s)\n` +
      `${counts.join("\n")}\nfolder totals: ${folders.join(", ")}`,
  );
  return failures === 0 ? 0 : 1;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    if (!(error instanceof TypeError || error instanceof RangeError)) throw error;
    console.error(`error: ${error.message}`);
    Deno.exit(2);
  }
}
