import { match } from "node:assert/strict";
import { tempDir } from "../_helpers.ts";

const TESTING = new URL("../../testing/mod.ts", import.meta.url).href;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

Deno.test("assertAcpSnapshot() names the failed setup request and the agent's reason", async () => {
  await using dir = await tempDir("dsh_snapshot_errors_");
  const file = `${dir.path}/setup_test.ts`;
  await Deno.writeTextFile(
    file,
    `import { assertAcpSnapshot, textResponse } from ${JSON.stringify(TESTING)};
Deno.test("no read permission", async () => {
  await assertAcpSnapshot(${
      JSON.stringify(`${dir.path}/x.jsonl`)
    }, { script: [textResponse("hi")] }, { update: true });
});
`,
  );
  // Without --allow-read the agent cannot read the session's workspace: session/new fails.
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--no-lock", "--config", CONFIG, "--allow-write", "--allow-env", file],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  match(
    text,
    /Cannot run the ACP snapshot scenario: session\/new failed: Cannot create a session: the agent may not read "[^"]+\/ws"/,
  );
});
