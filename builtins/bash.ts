/**
 * The `bash` tool: runs a command through an {@linkcode Executor}, streams its output, bounds what
 * it keeps in memory (spilling the rest to disk), and reports the outcome with markers. A non-zero
 * exit is a domain result (`[exit code: N]`, not `isError`): the model decides what it means.
 *
 * Output format: stdout and stderr are merged by the shell (`exec 2>&1`), so the text interleaves
 * exactly as produced; then, one per line, `[timed out after N ms]`, `[killed by signal: X]` and
 * `[exit code: N]` (non-zero only). Past `outputLimitBytes` the text keeps the head and the tail
 * around a line `[output truncated: showing first A and last B bytes of T; full output: <path>]`.
 *
 * @module
 */
import type { Context } from "../core/context.ts";
import { assertRunPermissions } from "../core/permission_hint.ts";
import type { ToolExecution } from "../tools/definition.ts";
import type { ToolRegistry } from "../registry/types.ts";
import { type DefinedTool, defineTool } from "../tools/define_tool.ts";
import { checkRange } from "../tools/arg_error.ts";
import { type CaptureSummary, OutputCapture } from "./_output_capture.ts";
import { type Executor, executorFor, type RunResult } from "../tools/executor.ts";
import { LocalExecutor } from "./local_executor.ts";
import { probeContainment } from "../jobs/process_containment.ts";
import { runDetachedJob } from "../jobs/detached_jobs.ts";
import type { JobService } from "../jobs/job_service.ts";
import { createExecutor, type SandboxMode } from "./sandbox.ts";
import type { EnvPolicy } from "../core/env_policy.ts";
import type { ProtectedPaths } from "./protected_paths.ts";
import { type BashArgs, bashMeta, presentBashCall, presentBashResult } from "./_bash_view.ts";

export { bashOutputOf, presentBashCall, presentBashResult } from "./_bash_view.ts";
export type { BashArgs, BashMeta } from "./_bash_view.ts";

/** Options for {@linkcode createBashTool}. */
export interface BashToolOptions {
  /** Where commands run. @default {new LocalExecutor()} */
  readonly executor: Executor;
  /** Working directory when the call has no agent. @default {Deno.cwd()} */
  readonly cwd?: string;
  /** Deadline when `timeout_ms` is absent (foreground only). @default {120000} */
  readonly defaultTimeoutMs?: number;
  /** The largest accepted `timeout_ms`. @default {600000} */
  readonly maxTimeoutMs?: number;
  /** Output kept in memory (head + tail). Below the spill policy's 40,000-byte cap so a bash result is cut once. @default {32768} */
  readonly outputLimitBytes?: number;
  /** Directory of spill files. @default {the system temp dir} */
  readonly spillDir?: string;
  /** Time between SIGTERM and SIGKILL. @default {1000} */
  readonly killGraceMs?: number;
}

const DESCRIPTION = [
  "Run a shell command with `bash -c` in the session's working directory and return its output",
  "(stdout and stderr interleaved). A non-zero exit is reported as `[exit code: N]`. Long output",
  "keeps its beginning and end; the complete output is saved to the file named in the",
  "`[output truncated ...]` line. Each call is a fresh shell: `cd` and variables do not persist.",
].join(" ");

/**
 * The model-facing text: output, then the markers.
 *
 * @param output The kept output text.
 * @param run How the command ended.
 * @param timeoutMs The deadline that applied.
 * @returns The text (`(no output)` when there is nothing to say).
 *
 * @example Usage
 * ```ts
 * import { formatBashText } from "./bash.ts";
 * import { equal } from "node:assert/strict";
 * const run = { pid: 1, exitCode: 9, signal: null, timedOut: false, aborted: false };
 * equal(formatBashText("oops\n", run, 1000), "oops\n[exit code: 9]");
 * ```
 */
export function formatBashText(output: string, run: RunResult, timeoutMs?: number): string {
  const markers: string[] = [];
  if (run.pipeHeldOpen) {
    markers.push(
      "[output incomplete: a background process kept the output open after the command ended; stopped reading]",
    );
  }
  if (run.timedOut) markers.push(`[timed out after ${timeoutMs} ms]`);
  if (run.signal !== null) markers.push(`[killed by signal: ${run.signal}]`);
  if (run.exitCode !== null && run.exitCode !== 0) markers.push(`[exit code: ${run.exitCode}]`);
  const body = output.endsWith("\n") ? output.slice(0, -1) : output;
  const text = [body, ...markers].filter((part) => part !== "").join("\n");
  return text === "" ? "(no output)" : text;
}

function checkArgs(args: BashArgs, maxTimeoutMs: number): void {
  if (args.command.trim() === "") {
    throw new TypeError(
      `Cannot run bash: 'command' must be a non-empty string: current value is ${
        JSON.stringify(args.command)
      }`,
    );
  }
  checkRange(args, "timeout_ms", { min: 1, max: maxTimeoutMs, integer: true });
}

/**
 * Creates the `bash` tool (`background: true`: the jobs layer adds `run_in_background`).
 *
 * @param options The executor and bounds.
 * @returns The tool definition.
 *
 * @example Usage
 * ```ts
 * import { createBashTool } from "./bash.ts";
 * import { LocalExecutor } from "./local_executor.ts";
 * import { equal } from "node:assert/strict";
 * const tool = createBashTool({ executor: new LocalExecutor() });
 * equal(tool.name, "bash");
 * ```
 */
export function createBashTool(options: BashToolOptions): DefinedTool<typeof BASH_PARAMETERS> {
  const {
    executor,
    defaultTimeoutMs = 120_000,
    maxTimeoutMs = 600_000,
    outputLimitBytes = 32768,
    spillDir,
    killGraceMs = 1000,
  } = options;
  return defineTool({
    name: "bash",
    description: DESCRIPTION,
    parameters: BASH_PARAMETERS,
    background: true,
    isConcurrencySafe: () => false,
    presentCall: presentBashCall,
    presentResult: presentBashResult,
    async execute(args, exec) {
      checkArgs(args, maxTimeoutMs);
      exec.signal.throwIfAborted();
      const job = exec.job;
      const timeoutMs = args.timeout_ms ?? (job ? undefined : defaultTimeoutMs);
      const session = executorFor(executor, exec.agent?.sessionId);
      const cwd = exec.agent?.cwd ?? options.cwd ?? Deno.cwd();
      // In the background, a session executor that can run it detached makes the job durable.
      const durable = job && await runDetachedJob(
        exec,
        session,
        args.command,
        { cwd, ...(timeoutMs ? { timeoutMs } : {}) },
      );
      if (durable) return durable;
      const capture = job
        ? undefined
        : new OutputCapture({ limitBytes: outputLimitBytes, ...(spillDir ? { spillDir } : {}) });
      const run = await session.run(args.command, {
        cwd,
        signal: exec.signal,
        killGraceMs,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(job
          ? {
            onSpawn(pid: number) {
              // A remote pid is no process of this machine: its tree dies through the abort
              // signal. (Asked at the spawn: a lazy executor knows what it is by then.)
              if (session.hostFiles) job.trackProcess(pid, { group: true });
            },
          }
          : {}),
        onOutput(chunk) {
          if (job) {
            // The job's buffer may keep the chunk, and the executor reuses it: copy.
            exec.output.write(chunk.slice());
            return;
          }
          // Bytes, not text: the registry's sink decodes (streaming, synchronously) only when
          // someone listens, so the reused buffer is safe to pass on.
          exec.output.write(chunk);
          return capture?.write(chunk);
        },
      });
      if (run.aborted) throw exec.signal.reason;
      if (job) {
        job.setExit({
          ...(run.exitCode === null ? {} : { exitCode: run.exitCode }),
          ...(run.signal === null ? {} : { signal: run.signal }),
        });
        // The output already streamed into the job; only the markers are new.
        const markers = formatBashText("", run, timeoutMs);
        return [{ type: "text", text: markers === "(no output)" ? "" : markers }];
      }
      const summary = await capture!.finish();
      if (summary.spillPath !== undefined) reportSpill(exec, summary);
      return {
        content: [{ type: "text", text: formatBashText(summary.text, run, timeoutMs) }],
        meta: bashMeta(summary, run),
      };
    },
  });
}

function reportSpill(exec: ToolExecution, summary: CaptureSummary): void {
  try {
    exec.agent?.appendEvent("tool/spill", {
      callId: exec.callId,
      path: summary.spillPath ?? "",
      totalBytes: summary.totalBytes,
    });
  } catch { /* the agent is gone; the path is in the result text */ }
}

/** The `bash` parameters map. */
export const BASH_PARAMETERS = {
  command: { type: "string", required: true, description: "The command to run with `bash -c`." },
  description: {
    type: "string",
    description: "A short description of what the command does (5-10 words), shown to the user.",
  },
  timeout_ms: {
    type: "integer",
    description: "Kill the command after this many milliseconds. Default 120000, max 600000.",
  },
} as const;

/** Config of {@linkcode bashPlugin}. */
export interface BashPluginConfig extends Omit<BashToolOptions, "executor"> {
  /** A ready executor; overrides `sandbox`. */
  readonly executor?: Executor;
  /**
   * `"workspace-write"` and `"read-only"` run commands in bubblewrap; `"danger-full-access"`
   * (alias `"off"`) on the host. @default {"workspace-write"}
   */
  readonly sandbox?: SandboxMode;
  /** The sandbox's writable workspace. @default {Deno.cwd()} */
  readonly workspace?: string;
  /** More writable roots for `"workspace-write"`. @default {[]} */
  readonly writableRoots?: readonly string[];
  /** Paths hidden inside the sandbox (`~` is `$HOME`). @default {DEFAULT_HIDDEN_PATHS} */
  readonly hiddenPaths?: readonly string[];
  /** The environment policy of commands. @default {{}} */
  readonly envPolicy?: EnvPolicy;
  /** The bwrap program. @default {"bwrap"} */
  readonly bwrap?: string;
  /** Bound read-only in the sandbox. @default {the defaults of the workspace and roots} */
  readonly protectedPaths?: ProtectedPaths;
  /** Let sandboxed commands create Unix sockets (see `sandbox.ts`). @default {false} */
  readonly allowUnixSockets?: boolean;
  /**
   * Offer `run_in_background` through the jobs layer. Needs `ctx.jobs` when the plugin applies
   * (load the jobs plugin first). @default {true when ctx.jobs is provided}
   */
  readonly background?: boolean;
}

/**
 * The plugin that registers `bash`. With a sandboxed level (`"workspace-write"`, the default, or
 * `"read-only"`) it fails with `SANDBOX_UNAVAILABLE` when bubblewrap cannot run, rather than
 * running unconfined. Without an `executor` it first checks that Deno may run every program it
 * needs (`bash`, `setsid`, `ps`, `kill`, and `bwrap` when sandboxed) and fails with `NotCapable`
 * naming the whole `--allow-run=…` flag. When
 * `ctx.jobs` is provided, the tool is wrapped by the jobs layer (`run_in_background`).
 *
 * @example Usage
 * ```ts ignore
 * import { bashPlugin } from "./bash.ts";
 * ctx.plugin(bashPlugin, { sandbox: "off" });
 * ```
 */
export const bashPlugin: {
  readonly name: string;
  readonly inject: readonly string[];
  apply(ctx: Context, config?: BashPluginConfig): Promise<void>;
} = {
  name: "bash",
  inject: ["tools"],
  async apply(ctx: Context, config: BashPluginConfig = {}): Promise<void> {
    const {
      executor,
      sandbox,
      workspace,
      bwrap,
      background,
      writableRoots,
      hiddenPaths,
      envPolicy,
      protectedPaths,
      allowUnixSockets,
      ...rest
    } = config;
    if (executor === undefined) {
      // Every program the tool runs, checked at once: a script learns the whole flag in one go
      // (ps and kill stop process trees when /proc is unreadable, which is without --allow-all).
      const level = sandbox ?? "workspace-write";
      const sandboxed = level === "workspace-write" || level === "read-only";
      assertRunPermissions("load the bash tool", [
        "bash",
        "setsid",
        "ps",
        "kill",
        // `sh` opens the sandbox's seccomp program for bwrap.
        ...(sandboxed ? [bwrap ?? "bwrap", "sh"] : []),
      ]);
    }
    const chosen = executor ??
      await createExecutor({
        ...(sandbox === undefined ? {} : { sandbox }),
        ...(workspace === undefined ? {} : { workspace }),
        ...(bwrap === undefined ? {} : { bwrap }),
        ...(writableRoots === undefined ? {} : { writableRoots }),
        ...(hiddenPaths === undefined ? {} : { hiddenPaths }),
        ...(envPolicy === undefined ? {} : { envPolicy }),
        ...(protectedPaths === undefined ? {} : { protectedPaths }),
        ...(allowUnixSockets === undefined ? {} : { allowUnixSockets }),
      });
    const tools = ctx.get<ToolRegistry>("tools");
    if (tools === undefined) throw new Error("Cannot register bash: the tools service is missing");
    if (chosen instanceof LocalExecutor && chosen.kind === "local" && chosen.pidNamespace) {
      const containment = await probeContainment();
      if (containment.kind === "none") {
        ctx.logger.warn(
          `bash commands are tracked by process group and marker only, so a double-forked daemon with a cleared environment can outlive its call: ${containment.reason}`,
        );
      }
    }
    const tool = createBashTool({ ...rest, executor: chosen });
    // A session/load adopts durable bash jobs through this executor (jobs.adoptFromLog).
    ctx.get<JobService>("jobs")?.useDetachedExecutor("bash", chosen);
    if (background === true && ctx.get("jobs") === undefined) {
      throw new Error(
        "Cannot offer run_in_background for bash: the jobs service is missing; load the jobs plugin first",
      );
    }
    // The jobs layer adds run_in_background to `background: true` tools, once.
    tools.register(background === false ? { ...tool, background: false } : tool);
  },
};
