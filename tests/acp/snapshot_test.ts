/**
 * ACP snapshot scenarios (tests/snapshots/<name>/): normalized stdout frames and session log
 * must match the recorded files. `UPDATE_SNAPSHOTS=1 deno test -A tests/acp/snapshot_test.ts`
 * re-records them.
 */
import { deepEqual } from "node:assert/strict";
import { join } from "node:path";
import { runScenario, type ScenarioInput } from "./_snapshot.ts";

const ROOT = new URL("../snapshots/", import.meta.url).pathname;
const UPDATE = Deno.env.get("UPDATE_SNAPSHOTS") === "1";

async function readLines(path: string): Promise<string[] | undefined> {
  try {
    const text = await Deno.readTextFile(path);
    return text === "" ? [] : text.trimEnd().split("\n");
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

const names: string[] = [];
for (const entry of Deno.readDirSync(ROOT)) {
  if (entry.isDirectory) names.push(entry.name);
}
names.sort();

for (const name of names) {
  Deno.test(`snapshot ${name} matches the recorded ACP transcript and session log`, async () => {
    const dir = join(ROOT, name);
    const input = JSON.parse(await Deno.readTextFile(join(dir, "input.json"))) as ScenarioInput;
    const run = await runScenario(dir, input);
    if (input.steps.some((s) => s.op === "loadSession")) {
      // Replay must rebuild the live cards (user messages are replayed in addition).
      const replay = run.updates.replay.filter((u) => !u.includes('"user_message_chunk"'));
      deepEqual(replay, run.updates.live);
    }
    const stdoutPath = join(dir, "stdout.expected.jsonl");
    const sessionPath = join(dir, "session.jsonl");
    if (UPDATE) {
      await Deno.writeTextFile(stdoutPath, run.stdout.join("\n") + "\n");
      await Deno.writeTextFile(
        sessionPath,
        run.session.length ? run.session.join("\n") + "\n" : "",
      );
      return;
    }
    const expectedStdout = await readLines(stdoutPath);
    const expectedSession = await readLines(sessionPath);
    if (expectedStdout === undefined || expectedSession === undefined) {
      throw new Error(`Snapshot ${name} is not recorded: run with UPDATE_SNAPSHOTS=1`);
    }
    deepEqual(run.stdout, expectedStdout);
    deepEqual(run.session, expectedSession);
  });
}
