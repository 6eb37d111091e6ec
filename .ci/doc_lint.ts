/**
 * Runs `deno doc --lint` on every entry point of deno.json's `exports`, each on its own: a JSR
 * consumer imports one entry point, so each must document every type its signatures use
 * (checking them together would hide a type that only another entry point exports).
 *
 *     deno run --allow-read=deno.json --allow-run=deno .ci/doc_lint.ts
 *
 * @module
 */
const config = JSON.parse(await Deno.readTextFile("deno.json")) as {
  exports: Record<string, string>;
};
const failed: string[] = [];
for (const [name, path] of Object.entries(config.exports)) {
  const { code, stderr } = await new Deno.Command("deno", {
    args: ["doc", "--lint", path],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code === 0) continue;
  failed.push(name);
  await Deno.stderr.write(new TextEncoder().encode(`--- ${name} (${path})\n`));
  await Deno.stderr.write(stderr);
}
if (failed.length > 0) {
  await Deno.stderr.write(
    new TextEncoder().encode(
      `deno doc --lint failed for ${failed.length} entry point(s): ${failed.join(", ")}\n`,
    ),
  );
  Deno.exit(1);
}
