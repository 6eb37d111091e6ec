/**
 * The fs tools' race attacks and the pinned walk (`_fs_race_scenario.ts`) run in a `deno test`
 * process of their own: the walk uses the process's working directory, which the other test
 * modules of this `--parallel` run (Workers of one process) share.
 */
import { equal } from "node:assert/strict";

Deno.test("fs race attacks hold, in a test process of their own", async () => {
  const scenario = new URL("./_fs_race_scenario.ts", import.meta.url).pathname;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    // Type-checked with the rest of the repository (`deno check .`).
    args: ["test", "-A", "--no-check", scenario],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  equal(code, 0, output);
  equal(/\| 2 passed \| 0 failed/.test(output), true, output);
});
