/**
 * The ACP snapshot scenarios (tests/snapshots/<name>/) again, with the Deno Sandbox executor over
 * the loopback stand-in: each scenario's config gets `"executor": {"provider": "deno-sandbox",
 * "allowNet": []}`, the agent gets `DENO_SANDBOX_ENDPOINT` in its environment and
 * `DENO_DEPLOY_TOKEN` on its stdin secrets line (as the launcher passes it), and the SAME runner
 * must produce the SAME recorded stdout frames and session log. The one difference allowed is the
 * remote executor's own record: the `executor/opened` events are removed from the log (and the
 * `seq` of the events after them shifted back by as many) before the comparison.
 *
 * Every scenario runs, none is excluded: the ones that never call a tool must create no sandbox
 * (sandboxes are created lazily), and for the others the stand-in must show that each call the
 * scenario lets through ran THERE (its bash command among the sandbox's spawns, its written or
 * edited file in the sandbox's copy of the workspace, Code Mode's Deno spawned there), and that
 * each call the scenario refuses (a rejected prompt, a denied tool, an unknown job) left no trace
 * in it. `waitForFile` (cancel-bash) looks in the sandbox: a running command's files reach the
 * host only when the call ends and the workspace is pulled back.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { join, resolve } from "node:path";
import { runScenario, type ScenarioInput, type ScenarioRun } from "./_snapshot.ts";
import { type SandboxStandIn, startSandboxStandIn } from "../../testing/mod.ts";

const ROOT = new URL("../snapshots/", import.meta.url).pathname;

/** The tools whose bodies go through the session's executor. */
const EXECUTOR_TOOLS = /^(bash|read|write|edit|run_code|job_\w+)$/;

/**
 * Calls a scenario refuses before the tool body runs (by scenario, the call ids), and why. The
 * stand-in must show no trace of them.
 */
const REFUSED: Record<string, Record<string, string>> = {
  "hostile-command": { call_1: "the bash rule asks and the prompt is rejected" },
  "tools-deny": { call_1: "bash is denied by the config: the tool does not exist" },
  "permission-rejected": { call_1: "the write is rejected at the prompt" },
  "permission-cancelled": { call_1: "the prompt is cancelled" },
  "job-output-card": { call_1: "an unknown job id: the jobs layer answers, nothing runs" },
};

/**
 * Calls whose remote trace the scenario leaves open, and why (they are checked against the
 * recording only; the session's sandbox must still exist).
 */
const EITHER: Record<string, Record<string, string>> = {
  "cancel-during-tool": {
    call_1: "cancelled as soon as its card shows: Code Mode's Deno may not have started yet",
  },
};

interface Call {
  readonly id: string;
  readonly name: string;
  readonly args: Record<string, unknown>;
}

function scriptCalls(input: ScenarioInput): Call[] {
  return (input.script as { toolCalls?: Call[] }[]).flatMap((turn) => turn.toolCalls ?? []);
}

async function readLines(path: string): Promise<string[]> {
  const text = await Deno.readTextFile(path);
  return text === "" ? [] : text.trimEnd().split("\n");
}

/** The log without the remote executor's `executor/opened` events, `seq` shifted back. */
function withoutOpened(session: readonly string[]): string[] {
  let removed = 0;
  return session.flatMap((line) => {
    const event = JSON.parse(line) as { type?: string; seq?: number };
    if (event.type === "executor/opened") {
      removed++;
      return [];
    }
    if (removed === 0 || typeof event.seq !== "number") return [line];
    return [JSON.stringify({ ...event, seq: event.seq - removed })];
  });
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** What the sandbox saw of one call (`ran`: the scenario let it through). */
async function checkCall(
  standIn: SandboxStandIn,
  sandboxId: string | undefined,
  call: Call,
  ran: boolean,
  succeeded: boolean,
  cwd: string,
): Promise<void> {
  const sandbox = standIn.sandboxes().find((s) => s.id === sandboxId);
  const spawned = (sandbox?.spawns ?? []).map((s) => [s.command, ...s.args]);
  const file = typeof call.args.file_path === "string"
    ? resolve(cwd, call.args.file_path)
    : undefined;
  const inSandbox = async (path: string) =>
    sandboxId !== undefined && await exists(standIn.path(sandboxId, path));
  const what = `${call.id} (${call.name}) ${ran ? "ran" : "was refused"}`;
  switch (call.name) {
    case "bash": {
      // The executor runs `exec 2>&1\n<command>` (merged output) under its group-kill wrapper.
      const command = String(call.args.command);
      const found = spawned.some((argv) =>
        argv.some((arg) => arg === command || arg.endsWith(`\n${command}`))
      );
      equal(found, ran, `${what}: its command among the sandbox's spawns`);
      break;
    }
    case "write":
    case "edit": {
      if (!ran) {
        equal(await inSandbox(file!), false, `${what}: ${file} exists in the sandbox`);
        break;
      }
      // A failed edit (e.g. one before a read) changes nothing; a successful one changed the
      // sandbox's copy (and the host's, the recording shows).
      if (!succeeded) break;
      ok(sandbox!.calls.includes("writeFile"), `${what}: no writeFile in ${sandbox!.calls}`);
      const text = await Deno.readTextFile(standIn.path(sandboxId!, file!));
      const wrote = String(call.name === "write" ? call.args.content : call.args.new_string);
      ok(text.includes(wrote), `${what}: the sandbox's ${file} lacks ${JSON.stringify(wrote)}`);
      break;
    }
    case "read":
      // A read of a file the sandbox has reads it there; a missing one is missing there too.
      if (file !== undefined && await inSandbox(file)) {
        ok(sandbox!.calls.includes("readFile"), `${what}: no readFile in ${sandbox!.calls}`);
      }
      break;
    case "run_code": {
      const deno = spawned.some((argv) =>
        argv.some((a) => a.endsWith("/deno")) && argv.includes("run")
      );
      ok(deno, `${what}: Code Mode's Deno was not spawned in the sandbox`);
      break;
    }
    default:
      equal(ran, false, `${what}: no check for ${call.name}`);
  }
}

/** Checks that the scenario's tools ran in the stand-in (and its refused calls did not). */
async function checkRemote(
  name: string,
  input: ScenarioInput,
  run: ScenarioRun,
  standIn: SandboxStandIn,
) {
  const calls = scriptCalls(input).filter((c) => EXECUTOR_TOOLS.test(c.name));
  const refused = REFUSED[name] ?? {};
  const sandboxes = standIn.sandboxes();
  if (calls.length === 0) {
    equal(sandboxes.length, 0, `${name} calls no tool but created a sandbox`);
    return;
  }
  ok(sandboxes.length <= 1, `${name}: one sandbox per session, got ${sandboxes.length}`);
  const id = sandboxes[0]?.id;
  // Every `executor/opened` of the log names the session's one sandbox (reattached on a load).
  const opened = run.session.filter((line) => line.includes('"type":"executor/opened"'));
  deepEqual(opened.map((line) => JSON.parse(line).record.id), opened.map(() => id));
  if (calls.some((c) => !(c.id in refused))) ok(id !== undefined, `${name}: no sandbox`);
  // The token went to the sandbox service only, never into a command's environment.
  ok(!JSON.stringify(sandboxes.map((s) => s.spawns)).includes(standIn.token), "token leaked");
  // Each call's `isError`, from the log.
  const results = new Map<string, boolean>();
  for (const line of run.session) {
    const event = JSON.parse(line) as { type?: string; callId?: string; isError?: boolean };
    if (event.type === "tool/result") results.set(event.callId!, event.isError === true);
  }
  for (const call of calls) {
    if (call.id in (EITHER[name] ?? {})) continue;
    const succeeded = results.get(call.id) === false;
    await checkCall(standIn, id, call, !(call.id in refused), succeeded, run.cwd);
  }
}

const names: string[] = [];
for (const entry of Deno.readDirSync(ROOT)) {
  if (entry.isDirectory) names.push(entry.name);
}
names.sort();

for (const name of names) {
  Deno.test(`snapshot ${name} with the deno-sandbox executor matches the same recording`, async () => {
    await using standIn = await startSandboxStandIn();
    const dir = join(ROOT, name);
    const input = JSON.parse(await Deno.readTextFile(join(dir, "input.json"))) as ScenarioInput;
    const remote: ScenarioInput = {
      ...input,
      config: { ...input.config, executor: { provider: "deno-sandbox", allowNet: [] } },
    };
    const run = await runScenario(dir, remote, {
      env: { DENO_SANDBOX_ENDPOINT: standIn.endpoint },
      secrets: { DENO_DEPLOY_TOKEN: standIn.token },
      sandboxEndpoint: standIn.endpoint,
      // A running command's files are in the sandbox (the host gets them when the call ends).
      fileExists: async (path) => {
        for (const sandbox of standIn.sandboxes()) {
          if (await exists(standIn.path(sandbox.id, path))) return true;
        }
        return false;
      },
    });
    if (input.steps.some((s) => s.op === "loadSession")) {
      const replay = run.updates.replay.filter((u) => !u.includes('"user_message_chunk"'));
      deepEqual(replay, run.updates.live);
    }
    deepEqual(run.stdout, await readLines(join(dir, "stdout.expected.jsonl")));
    deepEqual(withoutOpened(run.session), await readLines(join(dir, "session.jsonl")));
    await checkRemote(name, input, run, standIn);
  });
}
