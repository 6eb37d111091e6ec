/**
 * The `jobs` plugin: provides `ctx.jobs`, registers `job_output`/`job_list`/`job_kill` once
 * `ctx.tools` exists, installs the spill policy, and kills a session's jobs when its agent is
 * disposed.
 *
 * @module
 */
import type { Context, Plugin } from "../core/context.ts";
import type { AgentHandle } from "../tools/definition.ts";
import type { ToolRegistry } from "../registry/types.ts";
import { useBackground } from "./background_mode.ts";
import { JobService } from "./job_service.ts";
import type { JobServiceOptions } from "./types.ts";
import { cleanupSpillFiles, spillPolicy, type SpillPolicyOptions } from "./spill_policy.ts";
import { jobTools, type JobToolsOptions } from "./tools.ts";

/** Config of {@linkcode jobsPlugin}. */
export interface JobsPluginConfig extends JobServiceOptions, JobToolsOptions {
  /** The result spill policy, or `false` to leave results uncapped. @default {{}} */
  readonly spill?: SpillPolicyOptions | false;
  /** Spill and job output files older than this are removed from configured directories at start. @default {604800000} */
  readonly maxFileAgeMs?: number;
}

/**
 * Provides `ctx.jobs` (a {@linkcode JobService}). A child plugin that injects `tools` registers
 * the job tools; a `tools/post-execute` listener applies the spill policy; an `agent/disposed`
 * listener calls `jobs.disposeOwner(agent.sessionId)`. Disposing the plugin kills every job.
 *
 * @example Usage
 * ```ts
 * import { createHarness } from "../registry/tools_plugin.ts";
 * import { jobsPlugin } from "./jobs_plugin.ts";
 * import type { JobService } from "./job_service.ts";
 * import { equal } from "node:assert/strict";
 * const ctx = await createHarness();
 * await ctx.plugin(jobsPlugin).ready;
 * equal(ctx.tools.list().map((tool) => tool.name).join(), "job_kill,job_list,job_output");
 * equal(typeof ctx.get<JobService>("jobs")?.start, "function");
 * await ctx.fiber.dispose();
 * ```
 */
export const jobsPlugin: Plugin<JobsPluginConfig | undefined> = {
  name: "jobs",
  async apply(ctx: Context, config: JobsPluginConfig | undefined): Promise<void> {
    const options = config ?? {};
    const jobs = new JobService(options);
    ctx.provide("jobs", jobs);
    ctx.effect(() => () => jobs.dispose());
    ctx.on("agent/disposed", (agent: AgentHandle) => jobs.disposeOwner(agent.sessionId));
    // The spill policy and background mode, once, on the registry; now if there is one, before
    // anything awaits: a plugin applied right after this one (bash) registers its
    // `background: true` tool with `run_in_background` already on offer.
    let installed = false;
    const install = (tools: ToolRegistry): void => {
      if (installed) return;
      installed = true;
      if (options.spill !== false) {
        tools.use("tools/post-execute", spillPolicy(options.spill ?? {}));
      }
      useBackground(tools, jobs, ctx.logger);
    };
    const tools = ctx.get<ToolRegistry>("tools");
    if (tools !== undefined) install(tools);
    const maxAgeMs = options.maxFileAgeMs ?? 7 * 24 * 3600 * 1000;
    const dirs = [options.spillDir, options.spill ? options.spill.dir : undefined];
    await Promise.all(
      dirs.map((dir) =>
        dir === undefined
          ? undefined
          : cleanupSpillFiles(dir, { maxAgeMs }).catch((error) =>
            ctx.logger.warn("jobs: removing old spill files failed", { dir, error: String(error) })
          )
      ),
    );
    ctx.plugin({
      name: "jobs/tools",
      inject: ["tools"],
      apply(tools: Context): void {
        const registry = tools.get<ToolRegistry>("tools")!;
        install(registry);
        for (const tool of jobTools(jobs, options)) registry.register(tool);
      },
    });
  },
};
