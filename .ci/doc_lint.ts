/**
 * Runs `deno doc --lint` once over every entry point of deno.json's `exports` together: the
 * package is documented as one graph (as JSR documents it), so a signature in one entry point may
 * name a type that another entry point exports. Each name comes out of ONE door (the `one-door`
 * rule of `.ci/check_layers.ts`), so no entry point re-exports another's types to pass this lint;
 * a type no entry point exports is still reported (`private-type-ref`).
 *
 *     deno run --allow-read=deno.json --allow-run=deno .ci/doc_lint.ts
 *
 * @module
 */
const config = JSON.parse(await Deno.readTextFile("deno.json")) as {
  exports: Record<string, string>;
};
const paths = Object.values(config.exports);
const { code, stderr } = await new Deno.Command("deno", {
  args: ["doc", "--lint", ...paths],
  stdout: "null",
  stderr: "piped",
}).output();
if (code !== 0) {
  await Deno.stderr.write(stderr);
  await Deno.stderr.write(
    new TextEncoder().encode(
      `deno doc --lint failed over the ${paths.length} entry points: ${paths.join(", ")}\n`,
    ),
  );
  Deno.exit(1);
}
