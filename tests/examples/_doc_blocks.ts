/**
 * Finds the TypeScript examples of the docs and the commands the text shows next to them.
 *
 * Markdown (README.md, SECURITY.md): every code block fenced as `ts` (or `typescript`) is
 * preceded by a marker comment, `<!-- example: <kind> <file> -->`, where kind is
 *
 * - `plugin`: a plugin module, written as `<file>` and loaded by a host (`ctx.plugin`);
 * - `script`: written as `<file>` and run with the `deno run` command of the next `sh` block
 *   that names `<file>`;
 * - `test`: written as `<file>` and run with each `deno test` command of that `sh` block;
 * - `fragment`: does not stand alone; written as `<file>` (optional) and only type-checked.
 *
 * `examples/*.ts`: the code blocks of their JSDoc run under `deno test --doc` (none is
 * `ignore`); a module that calls `Deno.test` is a test, one that exports `apply` a plugin,
 * any other a script; a test or script names its command in its module doc, on an indented
 * line of its own (`    deno run --allow-read examples/embed.ts`).
 *
 * @module
 */

/** How an example runs. */
export type ExampleKind = "plugin" | "script" | "test" | "fragment";

/** One shell command as the text shows it: env assignments, then the argv. */
export interface ShownCommand {
  /** The line as written (continuations joined). */
  readonly text: string;
  /** `NAME=value` assignments in front of the command. */
  readonly env: Readonly<Record<string, string>>;
  /** The argv, `deno` first. */
  readonly argv: readonly string[];
}

/** An example found in a document. */
export interface DocExample {
  /** Where it is (`README.md:120`). */
  readonly where: string;
  /** Its kind. */
  readonly kind: ExampleKind;
  /** The file it is written to in the consumer project (relative). */
  readonly file: string;
  /** Its code. */
  readonly code: string;
  /** The commands shown next to it (scripts and tests). */
  readonly commands: readonly ShownCommand[];
}

const MARKER_REGEXP = /^<!--\s*example:\s*(plugin|script|test|fragment)(?:\s+(\S+))?\s*-->$/;
const FENCE_REGEXP = /^```(\S*)(.*)$/;

interface Fence {
  readonly lang: string;
  readonly line: number;
  readonly body: string;
  /** The last non-blank line before the fence. */
  readonly before: string;
}

function fences(text: string): Fence[] {
  const lines = text.split("\n");
  const found: Fence[] = [];
  let before = "";
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE_REGEXP.exec(lines[i]!);
    if (open === null) {
      if (lines[i]!.trim() !== "") before = lines[i]!.trim();
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith("```"); i++) body.push(lines[i]!);
    found.push({ lang: open[1]!, line: start + 1, body: body.join("\n") + "\n", before });
    before = "";
  }
  return found;
}

/** Splits shell text into logical command lines (continuations joined, comments dropped). */
export function shellCommands(text: string): ShownCommand[] {
  const joined = text.replace(/\\\n\s*/g, " ");
  const commands: ShownCommand[] = [];
  for (const raw of joined.split("\n")) {
    const line = raw.replace(/\s+#.*$/, "").replace(/^#.*$/, "").trim().replace(/\s+/g, " ");
    if (line === "") continue;
    const words = line.split(/\s+/);
    const env: Record<string, string> = {};
    while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0]!)) {
      const word = words.shift()!;
      env[word.slice(0, word.indexOf("="))] = word.slice(word.indexOf("=") + 1);
    }
    commands.push({ text: line, env, argv: words });
  }
  return commands;
}

const RUNNERS: Readonly<Record<string, string>> = { script: "run", test: "test" };

/** The commands of `sh` blocks after `index` (up to the next TypeScript block) that run `file`. */
function shownCommands(all: readonly Fence[], index: number, kind: string, file: string) {
  const commands: ShownCommand[] = [];
  for (const fence of all.slice(index + 1)) {
    if (fence.lang === "ts" || fence.lang === "typescript") break;
    if (fence.lang !== "sh" && fence.lang !== "bash") continue;
    for (const command of shellCommands(fence.body)) {
      const [deno, sub] = command.argv;
      if (deno === "deno" && sub === RUNNERS[kind] && command.argv.includes(file)) {
        commands.push(command);
      }
    }
    if (commands.length > 0) break;
  }
  return commands;
}

/**
 * The TypeScript examples of a markdown document.
 *
 * @throws {Error} When a block has no marker, a runnable block no file, or a script or test no
 * command next to it.
 */
export function markdownExamples(name: string, text: string): DocExample[] {
  const all = fences(text);
  const examples: DocExample[] = [];
  all.forEach((fence, index) => {
    if (fence.lang !== "ts" && fence.lang !== "typescript") return;
    const where = `${name}:${fence.line}`;
    const marker = MARKER_REGEXP.exec(fence.before);
    if (marker === null) {
      throw new Error(
        `${where}: a TypeScript block needs a marker on the line before it, such as <!-- example: plugin my_tool.ts --> (see the README's "Contributing")`,
      );
    }
    const kind = marker[1] as ExampleKind;
    const file = marker[2] ?? `fragment_${fence.line}.ts`;
    if (kind !== "fragment" && marker[2] === undefined) {
      throw new Error(`${where}: a ${kind} example needs a file name in its marker`);
    }
    const commands = kind === "script" || kind === "test"
      ? shownCommands(all, index, kind, file)
      : [];
    if ((kind === "script" || kind === "test") && commands.length === 0) {
      throw new Error(
        `${where}: no "deno ${RUNNERS[kind]} … ${file}" command in a sh block after this ${kind}`,
      );
    }
    examples.push({ where, kind, file, code: fence.body, commands });
  });
  return examples;
}

/**
 * An `examples/` module as an example: its kind from its code, its commands from the indented
 * `deno …` lines of its module doc.
 *
 * @throws {Error} When a script or test names no command that runs it.
 */
export function moduleExample(file: string, code: string): DocExample {
  const kind: ExampleKind = /\bDeno\.test\(/.test(code)
    ? "test"
    : /^export (async )?function apply\(/m.test(code)
    ? "plugin"
    : "script";
  const ignored = /^\s*\*\s*```(?:ts|typescript)\b.*\bignore\b/m.exec(code);
  if (ignored !== null) {
    throw new Error(
      `${file}: its doc has an "ignore" code block, which nothing runs or checks: make it run under deno test --doc`,
    );
  }
  const header = /^\/\*\*([\s\S]*?)\*\//.exec(code)?.[1] ?? "";
  const shown = header.split("\n")
    .map((line) => /^ \*\s{4,}(.*)$/.exec(line)?.[1]?.trim())
    .filter((line): line is string => line !== undefined && line !== "")
    .join("\n");
  const commands = kind === "plugin"
    ? []
    : shellCommands(shown).filter((c) => c.argv[1] === RUNNERS[kind] && c.argv.includes(file));
  if (kind !== "plugin" && commands.length === 0) {
    throw new Error(
      `${file}: a ${kind} names its command in its module doc, indented: "    deno ${
        RUNNERS[kind]
      } … ${file}"`,
    );
  }
  return { where: file, kind, file, code, commands };
}
