import { deepEqual } from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

Deno.test("`deno task ci` runs the checks of .ci/run, in its order", async () => {
  const script = await Deno.readTextFile(new URL(".ci/run", ROOT));
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as {
    tasks: Record<string, string>;
  };
  // `.ci/run` calls Deno as "${DENO[@]}" and runs the tests through `task test` last.
  const fromRun = [
    ...script.matchAll(/^"\$\{DENO\[@\]\}" (.+)$/gm),
  ].map((m) => m[1]!.trim()).filter((command) => command !== "--version");
  fromRun.push("task test");
  const fromTask = config.tasks.ci!.split("&&").map((c) => c.trim().replace(/^deno /, ""));
  deepEqual(fromTask, fromRun);
});
