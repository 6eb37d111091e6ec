/**
 * The model-facing job tools: `job_output`, `job_list`, `job_kill`.
 *
 * @module
 */
import { defineTool } from "../tools/define_tool.ts";
import type { AnyToolDefinition } from "../tools/definition.ts";
import { formatJobStatus } from "./job_status.ts";
import type { JobService } from "./job_service.ts";
import type { JobRead } from "./types.ts";

/** Options for {@linkcode jobTools}. */
export interface JobToolsOptions {
  /** Default and upper bound of `job_output`'s `max_bytes`. @default {30000} */
  readonly maxOutputBytes?: number;
  /** Upper bound of `job_output`'s `wait_ms`. @default {600000} */
  readonly maxWaitMs?: number;
}

function checkInteger(tool: string, name: string, value: number, min: number, max: number): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(
      `${tool}: ${name} must be an integer from ${min} to ${max}: current value is ${value}`,
    );
  }
}

/**
 * Builds the three job tools over a service. Each call is fenced by `exec.agent.sessionId`
 * (a call without an agent acts as the embedder). `job_output` keeps one cursor per session, so
 * each call returns only what is new, and always ends with `[status: …]`.
 *
 * @param jobs The jobs service.
 * @param options Output and wait bounds.
 * @returns `[job_output, job_list, job_kill]`.
 * @throws {RangeError} When an option is not a positive integer.
 *
 * @example Usage
 * ```ts
 * import { jobTools } from "./tools.ts";
 * import { JobService } from "./job_service.ts";
 * import { deepEqual } from "node:assert/strict";
 * await using jobs = new JobService();
 * deepEqual(jobTools(jobs).map((tool) => tool.name), ["job_output", "job_list", "job_kill"]);
 * ```
 */
export function jobTools(jobs: JobService, options: JobToolsOptions = {}): AnyToolDefinition[] {
  const { maxOutputBytes = 30_000, maxWaitMs = 600_000 } = options;
  checkInteger("jobTools", "maxOutputBytes", maxOutputBytes, 1, Number.MAX_SAFE_INTEGER);
  checkInteger("jobTools", "maxWaitMs", maxWaitMs, 0, Number.MAX_SAFE_INTEGER);

  return [
    jobOutputTool(jobs, maxOutputBytes, maxWaitMs),
    jobListTool(jobs),
    jobKillTool(jobs),
  ];
}

/** `job_output`: new output of one job, waiting up to `wait_ms`, then its status. */
function jobOutputTool(
  jobs: JobService,
  maxOutputBytes: number,
  maxWaitMs: number,
): AnyToolDefinition {
  return defineTool({
    name: "job_output",
    description:
      `Read new output from a background job (only what arrived since your last read), followed by its status. Returns at once unless wait_ms is given; then it waits up to wait_ms for new output or for the job to finish (the job keeps running either way).`,
    parameters: {
      job_id: { type: "string", required: true, description: "The job id, for example bash-3" },
      wait_ms: {
        type: "integer",
        description: `Wait up to this many milliseconds for new output (0 to ${maxWaitMs})`,
        default: 0,
      },
      max_bytes: {
        type: "integer",
        description:
          `Most bytes to return (1 to ${maxOutputBytes}); the rest stays for the next read`,
        default: maxOutputBytes,
      },
    },
    presentCall: (args) => ({
      card: "generic",
      title: `Read output from background job ${args.job_id}`,
      kind: "read",
    }),
    async execute(args, exec) {
      const { job_id: id, wait_ms: waitMs = 0, max_bytes: maxBytes = maxOutputBytes } = args;
      checkInteger("job_output", "wait_ms", waitMs, 0, maxWaitMs);
      checkInteger("job_output", "max_bytes", maxBytes, 1, maxOutputBytes);
      const read = await jobs.poll(id, {
        waitMs,
        maxBytes,
        signal: exec.signal,
        ...(exec.agent !== undefined ? { caller: exec.agent.sessionId } : {}),
      });
      return {
        content: [{ type: "text", text: formatRead(read) }],
        meta: { jobId: id, status: read.job.status, next: read.next, total: read.total },
      };
    },
  });
}

/** The text of one `job_output` read: a gap notice, the new output, what is left, the status. */
function formatRead(read: JobRead): string {
  const parts: string[] = [];
  if (read.dropped > 0) {
    parts.push(
      `[${read.dropped} bytes before this point are unavailable: the job's output file could not be written]`,
    );
  }
  parts.push(read.text === "" ? "(no new output)" : read.text.replace(/\n$/, ""));
  if (read.next < read.total) {
    const where = read.job.outputPath !== undefined ? `, or read ${read.job.outputPath}` : "";
    parts.push(
      `[showing bytes ${read.start}–${read.next} of ${read.total}; ${
        read.total - read.next
      } more bytes not shown yet: call job_output again${where}]`,
    );
  }
  parts.push(`[status: ${formatJobStatus(read.job)}]`);
  return parts.join("\n");
}

/** `job_list`: the caller's jobs with their status. */
function jobListTool(jobs: JobService): AnyToolDefinition {
  return defineTool({
    name: "job_list",
    description: "List your background jobs with their status.",
    parameters: {},
    presentCall: () => ({ card: "generic", title: "List background jobs", kind: "read" }),
    execute(_args, exec) {
      const list = jobs.list(exec.agent?.sessionId);
      const text = list.length === 0
        ? "(no background jobs)"
        : list.map((job) => `${job.id} [${job.kind}] ${formatJobStatus(job)} — ${job.label}`)
          .join("\n");
      return [{ type: "text", text }];
    },
  });
}

/** `job_kill`: stops a job's whole process tree and reports its final status. */
function jobKillTool(jobs: JobService): AnyToolDefinition {
  return defineTool({
    name: "job_kill",
    description:
      "Stop a background job and everything it started (its whole process tree), then report its final status. Killing a job that already finished only reports its status.",
    parameters: {
      job_id: { type: "string", required: true, description: "The job id, for example bash-3" },
      reason: { type: "string", description: "Why, recorded in the job's status" },
    },
    presentCall: (args) => ({
      card: "generic",
      title: `Kill background job ${args.job_id}`,
      kind: "other",
    }),
    async execute(args, exec) {
      const result = await jobs.kill(args.job_id, {
        ...(args.reason !== undefined ? { reason: args.reason } : {}),
        ...(exec.agent !== undefined ? { caller: exec.agent.sessionId } : {}),
      });
      const status = `[status: ${formatJobStatus(result.job)}]`;
      const text = result.outcome === "already-finished"
        ? `job ${args.job_id} had already finished ${status}`
        : result.outcome === "killed"
        ? `requested cancellation of job ${args.job_id}; it stopped ${status}`
        : `requested cancellation of job ${args.job_id}; it has not stopped yet ${status}`;
      return {
        content: [{ type: "text", text }],
        meta: { jobId: args.job_id, outcome: result.outcome, status: result.job.status },
      };
    },
  });
}
