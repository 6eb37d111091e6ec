import { match } from "node:assert/strict";
import { tempDir } from "../_helpers.ts";

const TESTING = new URL("../../testing/mod.ts", import.meta.url).href;
const AGENT = new URL("../../agent/mod.ts", import.meta.url).href;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** Runs one `assertAcpSnapshot` call in a `deno test` subprocess with `flags`; its output. */
async function runSnapshot(flags: readonly string[], options: string): Promise<string> {
  await using dir = await tempDir("dsh_snapshot_errors_");
  const file = `${dir.path}/setup_test.ts`;
  const transcript = JSON.stringify(`${dir.path}/x.jsonl`);
  await Deno.writeTextFile(
    file,
    `import { assertAcpSnapshot } from ${JSON.stringify(TESTING)};
import { textResponse } from ${JSON.stringify(AGENT)};
Deno.test("snapshot", async () => {
  await assertAcpSnapshot(${transcript}, { script: [textResponse("hi")] }, ${options});
});
`,
  );
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--no-lock", "--config", CONFIG, ...flags, file],
    env: { NO_COLOR: "1", DSH_UPDATE_SNAPSHOTS: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return decoder.decode(output.stdout) + decoder.decode(output.stderr);
}

Deno.test("assertAcpSnapshot() names the failed setup request and the agent's reason", async () => {
  // Without --allow-read the agent cannot read the session's workspace: session/new fails.
  const text = await runSnapshot(["--allow-write", "--allow-env"], "{ update: true }");
  match(
    text,
    /Cannot run the ACP snapshot scenario: session\/new failed: Cannot create a session: the agent may not read "[^"]+\/ws"/,
  );
});

Deno.test("assertAcpSnapshot() says when DSH_UPDATE_SNAPSHOTS cannot be read, naming the flag", async () => {
  // DSH_UPDATE_SNAPSHOTS=1 is set, but the test may not read it: it compares, and says why.
  const text = await runSnapshot(["--allow-read", "--allow-write"], "{}");
  match(
    text,
    /no transcript at ".*x\.jsonl": run the test once with DSH_UPDATE_SNAPSHOTS=1 \(and --allow-env=DSH_UPDATE_SNAPSHOTS: this test may not read it\) to record it/,
  );
});
