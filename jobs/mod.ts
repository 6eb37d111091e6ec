/**
 * Long-running work for any tool: `ctx.jobs` (ids, honest statuses, cursor reads, process-tree
 * kill, completion notices, owner fence, bounded memory with full output on disk), the
 * `job_output`/`job_list`/`job_kill` tools, `withBackground` (the `run_in_background` parameter)
 * and one spill policy for every tool result. Contracts: docs/contracts.md §7.
 *
 * @example Usage
 * ```ts
 * import { JobService } from "./mod.ts";
 * import { equal } from "node:assert/strict";
 * await using jobs = new JobService();
 * const id = jobs.start({ kind: "demo", label: "hello", run: (job) => job.output.write("hi") });
 * equal((await jobs.wait(id)).status, "completed");
 * equal((await jobs.poll(id)).text, "hi");
 * ```
 *
 * @module
 */
export { JobService } from "./job_service.ts";
export {
  JOB_DETACHED_EVENT,
  JOB_ENDED_EVENT,
  pendingDetachedJobs,
  runDetachedJob,
} from "./detached_jobs.ts";
export type { PendingDetachedJobs, RunDetachedOptions } from "./detached_jobs.ts";
export type {
  AdoptReport,
  DetachedJobRecord,
  JobControl,
  JobDetail,
  JobKiller,
  JobKillResult,
  JobOutcome,
  JobRead,
  JobReadOptions,
  JobServiceOptions,
  JobSnapshot,
  JobStartOptions,
  JobStatus,
} from "./types.ts";
export { formatJobNotice, formatJobStatus } from "./job_status.ts";
export { OutputBuffer } from "./output_buffer.ts";
export type { OutputBufferOptions, OutputSlice } from "./output_buffer.ts";
export { killProcessTree, processStartTime, processTree } from "./process_tree.ts";
export type {
  KillProcessTreeOptions,
  KillProcessTreeResult,
  ProcessMarker,
} from "./process_tree.ts";
export { jobOf, RUN_IN_BACKGROUND, withBackground } from "./with_background.ts";
export { useBackground } from "./background_mode.ts";
export type { BackgroundJobs } from "./background_mode.ts";
export type { JobStarter, WithBackgroundOptions } from "./with_background.ts";
export { jobTools } from "./tools.ts";
export type { JobToolsOptions } from "./tools.ts";
export { cleanupSpillFiles, cutMiddle, spillPolicy } from "./spill_policy.ts";
export type { SpillCut, SpillPolicyOptions } from "./spill_policy.ts";
export { jobsPlugin } from "./jobs_plugin.ts";
export type { JobsPluginConfig } from "./jobs_plugin.ts";
export {
  initStatusSignal,
  isolationPrefix,
  LAUNCHER_NAME,
  LiveTrees,
  ownsPidNamespace,
  probeContainment,
  probeIsolation,
} from "./process_containment.ts";
export type { Containment, ContainmentKind, LiveTree } from "./process_containment.ts";
