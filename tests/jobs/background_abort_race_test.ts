/**
 * Issue 20: a background start aborted in the same tick as its dispatch. Repeated many times
 * (a bounded count), alone and in batches: every aborted call returns its job id in a notice,
 * the job is already `killed` when the call returns, and no job is left `stopping` or running.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { bashPlugin } from "../../builtins/bash.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import { jobsPlugin } from "../../jobs/jobs_plugin.ts";
import type { JobService } from "../../jobs/job_service.ts";
import type { ToolOutcome } from "../../tools/outcome.ts";
import { fakeAgent, harness, text } from "../registry/_harness.ts";

const ROUNDS = 12;
const BATCH = 4;

/** The job id an aborted start reports in its deferred notice. */
function reportedId(outcome: ToolOutcome): string {
  const notice = outcome.additionalContexts?.flat().map((block) => text({ content: [block] }))
    .join("\n") ?? "";
  match(notice, /background job bash-\d+ \(bash\) was started and then killed/);
  return /background job (bash-\d+)/.exec(notice)![1]!;
}

Deno.test("background starts aborted in the same tick all end killed with their ids, none left stopping", async () => {
  await using h = await harness();
  await h.ctx.plugin(jobsPlugin, { spill: false }).ready;
  await h.ctx.plugin(bashPlugin, { executor: new LocalExecutor(), killGraceMs: 50 }).ready;
  const jobs = h.ctx.get<JobService>("jobs")!;
  const marker = `dsh-race-${crypto.randomUUID()}`;
  const ids = new Set<string>();
  for (let round = 0; round < ROUNDS; round++) {
    const controller = new AbortController();
    const pending = Array.from(
      { length: round % 2 === 0 ? 1 : BATCH },
      (_, i) =>
        h.ctx.tools.execute({
          callId: `c${round}-${i}`,
          name: "bash",
          arguments: { command: `sleep 30; : ${marker}`, run_in_background: true },
          agent: fakeAgent("s1"),
          signal: controller.signal,
        }),
    );
    // The same tick as the dispatch, or one microtask later.
    if (round % 3 === 2) await Promise.resolve();
    controller.abort(new DOMException("user cancelled", "AbortError"));
    for (const outcome of await Promise.all(pending)) {
      equal(outcome.error?.code, "ABORTED");
      const id = reportedId(outcome);
      ids.add(id);
      // Settled before the call returned: never observed `stopping`.
      equal(jobs.get(id).status, "killed", `job ${id} right after its aborted start`);
    }
  }
  equal(ids.size, ROUNDS / 2 + (ROUNDS / 2) * BATCH);
  deepEqual(jobs.list().filter((job) => job.status !== "killed").map((job) => job.id), []);
  const left = await new Deno.Command("pgrep", { args: ["-f", marker], stdout: "piped" }).output();
  equal(new TextDecoder().decode(left.stdout).trim(), "", "no process of any job survives");
});
