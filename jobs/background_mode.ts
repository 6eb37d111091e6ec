/**
 * Background mode: the jobs plugin installs it once with {@linkcode useBackground}, as a
 * definition hook (`ctx.tools.define()`) that wraps every `background: true` definition registered
 * from then on with {@linkcode withBackground}, and `body` middleware that kills a background start
 * whose call was aborted before the job id could be returned (docs/contracts.md §7, "no id is left
 * behind"): the aborted call returns once the job is `killed`, with its id in a deferred notice.
 *
 * @module
 */
import { errorMessage } from "../core/error_message.ts";
import type { JsonValue } from "../core/json.ts";
import type { Logger } from "../core/logger.ts";
import type { ToolMiddleware, ToolRegistry } from "../registry/types.ts";
import { type JobStarter, withBackground } from "./with_background.ts";

/** What {@linkcode useBackground} needs from the jobs service. */
export interface BackgroundJobs extends JobStarter {
  /** Kills a job; settles once it is terminal (bounded by the service's kill deadline). */
  kill(id: string, options: { readonly reason?: string }): Promise<unknown>;
}

/**
 * Installs background mode on `tools`: `define()` adds `run_in_background` to the
 * `background: true` tools registered from now on, and `use("body", …)` kills a job started by a
 * call aborted before it returned the id. Both are effects of the fiber `tools` is bound to.
 *
 * @param tools The registry (`ctx.tools`).
 * @param jobs The jobs service (`ctx.jobs`).
 * @param logger Where a failed kill is reported.
 * @returns Removes both.
 *
 * @example Usage
 * ```ts
 * import { useBackground } from "./background_mode.ts";
 * import { JobService } from "./job_service.ts";
 * import { createHarness } from "../registry/tools_plugin.ts";
 * import { equal } from "node:assert/strict";
 * const ctx = await createHarness();
 * await using jobs = new JobService();
 * useBackground(ctx.tools, jobs, ctx.logger);
 * ctx.tools.register({
 *   name: "slow",
 *   description: "Slow",
 *   parameters: { type: "object" },
 *   background: true,
 *   execute: () => [],
 * });
 * equal("run_in_background" in (ctx.tools.schemas()[0]!.parameters.properties as object), true);
 * await ctx.fiber.dispose();
 * ```
 */
export function useBackground(
  tools: ToolRegistry,
  jobs: BackgroundJobs,
  logger: Logger,
): () => void {
  const undefine = tools.define((definition) =>
    definition.background === true ? withBackground(definition, jobs) : definition
  );
  const unuse = tools.use("body", killAbortedStart(jobs, logger));
  return () => {
    unuse();
    undefine();
  };
}

/** The `body` middleware: a background start whose call was aborted meanwhile is killed. */
function killAbortedStart(jobs: BackgroundJobs, logger: Logger): ToolMiddleware {
  return async (call, next) => {
    const outcome = await next();
    if (outcome.isError || !call.signal.aborted) return outcome;
    const jobId = backgroundJobId(outcome.meta);
    if (jobId === undefined) return outcome;
    const reason = "the call that started it was aborted before it could return the job id";
    call.defer([{
      type: "text",
      text: `background job ${jobId} (${call.name}) was started and then killed: ${reason}`,
    }]);
    // Awaited (the service bounds it by killWaitMs): when the aborted call returns, the job
    // is already `killed` and its processes are gone, never left `stopping`.
    await jobs.kill(jobId, { reason }).catch((error) => {
      logger.warn(`Cannot kill background job ${jobId}: ${errorMessage(error)}`);
    });
    return outcome;
  };
}

/** The job id of a background-start handle (`meta: { kind: "background", jobId }`), if it is one. */
function backgroundJobId(meta: JsonValue | undefined): string | undefined {
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return undefined;
  const { kind, jobId } = meta as { readonly kind?: JsonValue; readonly jobId?: JsonValue };
  return kind === "background" && typeof jobId === "string" ? jobId : undefined;
}
