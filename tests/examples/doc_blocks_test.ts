import { deepEqual, equal, throws } from "node:assert/strict";
import { markdownExamples, moduleExample, shellCommands } from "./_doc_blocks.ts";

const FENCE = "```";

Deno.test("markdownExamples() classifies blocks by marker and takes the command from the text", () => {
  const text = [
    "<!-- example: script run_me.ts -->",
    "",
    `${FENCE}ts ignore`,
    'console.log("hi");',
    FENCE,
    "",
    `${FENCE}sh`,
    "KEY=v deno run \\",
    "  --allow-read=. run_me.ts   # a comment",
    "deno run other.ts",
    FENCE,
    "<!-- example: fragment -->",
    `${FENCE}ts ignore`,
    "ctx.plugin(x);",
    FENCE,
  ].join("\n");
  const [script, fragment] = markdownExamples("DOC.md", text);
  equal(script!.kind, "script");
  equal(script!.where, "DOC.md:3");
  deepEqual(script!.commands, [{
    text: "KEY=v deno run --allow-read=. run_me.ts",
    env: { KEY: "v" },
    argv: ["deno", "run", "--allow-read=.", "run_me.ts"],
  }]);
  equal(fragment!.kind, "fragment");
  equal(fragment!.file, "fragment_13.ts");
  deepEqual(fragment!.commands, []);
});

Deno.test("markdownExamples() rejects an unmarked block and a script whose command names another file", () => {
  throws(
    () => markdownExamples("DOC.md", `${FENCE}ts\nconst a = 1;\n${FENCE}\n`),
    /DOC\.md:1: a TypeScript block needs a marker/,
  );
  const renamed =
    `<!-- example: script agent.ts -->\n${FENCE}ts ignore\n1;\n${FENCE}\n${FENCE}sh\ndeno run --allow-net agent2.ts\n${FENCE}\n`;
  throws(() => markdownExamples("DOC.md", renamed), /no "deno run … agent\.ts" command/);
  const wrongRunner =
    `<!-- example: test a_test.ts -->\n${FENCE}ts ignore\n1;\n${FENCE}\n${FENCE}sh\ndeno run a_test.ts\n${FENCE}\n`;
  throws(() => markdownExamples("DOC.md", wrongRunner), /no "deno test … a_test\.ts" command/);
});

Deno.test("moduleExample() reads the command from the module doc and needs one for a script", () => {
  const script =
    "/**\n * Demo.\n *\n *     deno run --allow-env examples/x.ts\n *\n * @module\n */\nconsole.log(1);\n";
  deepEqual(moduleExample("examples/x.ts", script).commands.map((c) => c.argv), [
    ["deno", "run", "--allow-env", "examples/x.ts"],
  ]);
  equal(moduleExample("examples/p.ts", "export function apply() {}\n").kind, "plugin");
  throws(
    () => moduleExample("examples/y.ts", "/** Nothing. */\nDeno.test('t', () => {});\n"),
    /a test names its command/,
  );
});

Deno.test("shellCommands() joins continuations and drops comments", () => {
  deepEqual(
    shellCommands("# only a comment\nA=1 B=2 deno test \\\n  -A x_test.ts # run\n").map((c) =>
      c.text
    ),
    [
      "A=1 B=2 deno test -A x_test.ts",
    ],
  );
});

Deno.test("moduleExample() refuses an ignore block in an example's doc (nothing would check it)", () => {
  const code =
    `/**\n * Use it:\n *\n * ${FENCE}ts ignore\n * ctx.plugin(x);\n * ${FENCE}\n */\nexport function apply() {}\n`;
  throws(
    () => moduleExample("examples/z.ts", code),
    /examples\/z\.ts: its doc has an "ignore" code block/,
  );
});
