/**
 * Private: `session/load` adopts the session's durable background jobs (a remote sandbox's
 * detached runs, recorded as `job/detached` in the log): `job_output`, `job_kill` and `job_list`
 * work on them again, and one that ended while no agent ran is a notice on the next turn.
 * The session's executor must be reattached first (its `open(resume)`).
 *
 * @module
 */
import type { Agent } from "../agent/mod.ts";
import { errorMessage } from "../core/error_message.ts";
import type { JobService } from "../jobs/mod.ts";
import type { ToolsContext } from "../registry/mod.ts";

/** Adopts the loaded session's durable jobs; returns what the user should be told. */
export async function adoptSessionJobs(ctx: ToolsContext, agent: Agent): Promise<string[]> {
  const jobs = ctx.get<JobService>("jobs");
  if (jobs === undefined) return [];
  try {
    const { adopted, invalid } = await jobs.adoptFromLog(agent.events, agent);
    const notices = invalid.map((problem) => `Cannot reconnect a background job: ${problem}.`);
    if (adopted.length > 0) {
      const ids = adopted.map(({ id, jobId }) => id === jobId ? id : `${jobId} (now ${id})`);
      notices.unshift(`Reconnected to background job(s) started before: ${ids.join(", ")}.`);
    }
    return notices;
  } catch (error) {
    return [`Cannot reconnect this session's background jobs: ${errorMessage(error)}.`];
  }
}
