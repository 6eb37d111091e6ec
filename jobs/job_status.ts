/**
 * The one-line, honest status text of a job, shared by `job_output`, `job_list` and notices, and
 * the completion notice itself.
 *
 * @module
 */
import type { JobKiller, JobSnapshot } from "./types.ts";

function killerText(killer: JobKiller | undefined): string {
  switch (killer) {
    case undefined:
      return "an unknown caller";
    case "owner":
      return "the owner session";
    case "embedder":
      return "the host application";
    case "owner-disposed":
      return "disposal of the owner session";
    case "service-disposed":
      return "harness shutdown";
    default:
      return `session ${killer.slice("session:".length)}`;
  }
}

/**
 * Formats a job's status: `running`, `stopping (kill requested by …)`, `completed, exit code: 0`,
 * `failed: <error>`, `killed by the owner session: <reason> (signal SIGTERM)`.
 *
 * @param job The snapshot.
 * @returns The status text (no brackets).
 *
 * @example Usage
 * ```ts
 * import { formatJobStatus } from "./job_status.ts";
 * import { equal } from "node:assert/strict";
 * const base = { id: "bash-1", kind: "bash", label: "ls", startedAt: "", outputBytes: 0, reported: false };
 * equal(formatJobStatus({ ...base, status: "completed", detail: { exitCode: 2 } }), "completed, exit code: 2");
 * equal(
 *   formatJobStatus({ ...base, status: "killed", detail: { killedBy: "owner", reason: "done", signal: "SIGTERM" } }),
 *   "killed by the owner session: done (signal SIGTERM)",
 * );
 * ```
 */
export function formatJobStatus(job: JobSnapshot): string {
  const { detail } = job;
  const exit = [
    detail.exitCode !== undefined ? `exit code: ${detail.exitCode}` : undefined,
    detail.signal !== undefined ? `signal ${detail.signal}` : undefined,
  ].filter((part) => part !== undefined).join(", ");
  const reason = detail.reason !== undefined && detail.reason !== "" ? `: ${detail.reason}` : "";
  const survivors =
    (detail.survivors !== undefined && detail.survivors.length > 0
      ? `; ${detail.survivors.length} process(es) survived the kill: ${detail.survivors.join(", ")}`
      : "") + (detail.abandoned !== undefined ? `; ${detail.abandoned}` : "");
  switch (job.status) {
    case "running":
      return "running";
    case "stopping":
      return `stopping (kill requested by ${killerText(detail.killedBy)}${reason})`;
    case "completed":
      return exit === "" ? "completed" : `completed, ${exit}`;
    case "failed":
      return `failed${exit === "" ? "" : `, ${exit}`}${
        detail.error !== undefined ? `: ${detail.error}` : ""
      }`;
    case "killed":
      return `killed by ${killerText(detail.killedBy)}${reason}${
        exit === "" ? "" : ` (${exit})`
      }${survivors}`;
  }
}

/**
 * The completion notice injected into the owner's session:
 * `background job <id> (<kind>: <label>) finished [status: <status>]. Read its output with job_output.`
 *
 * @param job The settled job.
 * @returns The notice text.
 *
 * @example Usage
 * ```ts
 * import { formatJobNotice } from "./job_status.ts";
 * import { equal } from "node:assert/strict";
 * const job = { id: "bash-3", kind: "bash", label: "npm test", startedAt: "", outputBytes: 0, reported: false };
 * equal(
 *   formatJobNotice({ ...job, status: "completed", detail: { exitCode: 0 } }),
 *   "background job bash-3 (bash: npm test) finished [status: completed, exit code: 0]. Read its output with job_output.",
 * );
 * ```
 */
export function formatJobNotice(job: JobSnapshot): string {
  return `background job ${job.id} (${job.kind}: ${job.label}) finished [status: ${
    formatJobStatus(job)
  }]. Read its output with job_output.`;
}
