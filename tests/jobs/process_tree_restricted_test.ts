import { deepEqual, equal, match } from "node:assert/strict";
import { isAlive, tempDir } from "../_helpers.ts";

const SCRIPT = new URL("./_restricted_kill.ts", import.meta.url).pathname;

/** Runs the fixture with `deno run` and exactly the given permission flags (never --allow-all). */
async function runRestricted(flags: string[], args: string[]): Promise<Record<string, unknown>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", ...flags, SCRIPT, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  equal(output.code, 0, stderr);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

Deno.test("killProcessTree() and JobService.kill() fall back to ps and kill where Deno refuses /proc and Deno.kill", async () => {
  await using dir = await tempDir();
  const report = await runRestricted([
    "--allow-run=bash,setsid,sleep,ps,kill",
    `--allow-read=${dir.path}`,
    `--allow-write=${dir.path}`,
  ], [dir.path, "kill"]);
  deepEqual(report.refused, { proc: "NotCapable", kill: "NotCapable" });
  const executor = report.executor as { aborted: boolean; pids: number[] };
  equal(executor.aborted, true);
  equal(executor.pids.length, 4);
  deepEqual(executor.pids.filter(isAlive), []);
  const jobs = report.jobs as Record<string, unknown>;
  equal(jobs.startTime, true);
  deepEqual(jobs.tree, jobs.expectedTree);
  deepEqual(jobs.reused, { targeted: [], survivors: [] });
  deepEqual([jobs.signal, jobs.survivors, jobs.status], ["SIGTERM", [], "SIGTERM"]);
  deepEqual((jobs.expectedTree as number[]).filter(isAlive), []);
  const service = report.service as Record<string, unknown>;
  deepEqual(
    [service.outcome, service.status, service.survivors, service.killedBy],
    ["killed", "killed", [], "owner"],
  );
  equal(service.signal, "SIGTERM");
  deepEqual((service.pids as number[]).filter(isAlive), []);
  const stubborn = report.stubborn as Record<string, unknown>;
  deepEqual([stubborn.signal, stubborn.survivors, stubborn.status], ["SIGKILL", [], "SIGKILL"]);
  deepEqual((stubborn.pids as number[]).filter(isAlive), []);
});

Deno.test("processTree() says which permission is missing when neither /proc nor ps is allowed", async () => {
  const report = await runRestricted(["--allow-run=sleep"], ["", "no-ps"]);
  match(
    String(report.message),
    /^Cannot read the process table: \/proc is not readable \(Deno requires --allow-all for it\) and "ps" cannot be run \(grant --allow-run=ps\): /,
  );
});
