/**
 * Any tool in the background: `withBackground(definition, jobs)` adds a `run_in_background`
 * parameter; when the model sets it, the body runs as a job and the call returns the job id at once.
 *
 * @module
 */
import type { ContentBlock } from "../tools/content.ts";
import { contentText } from "../tools/content.ts";
import { isJsonSnapshot, type JsonObject, snapshotJson } from "../core/json.ts";
import type { ToolCallView } from "../tools/views.ts";
import type {
  BackgroundJob,
  ExecuteReturn,
  ToolDefinition,
  ToolExecution,
} from "../tools/definition.ts";
import type { JobStartOptions } from "./types.ts";

/** What {@linkcode withBackground} needs from the jobs service. */
export interface JobStarter {
  /** Starts a job and returns its id. */
  start(options: JobStartOptions): string;
}

/** Options for {@linkcode withBackground}. */
export interface WithBackgroundOptions<Args> {
  /** The job label shown by `job_list` and notices. @default {the `command`, `description`, `path`, `url` or `query` argument, else the JSON arguments; one line, 200 characters} */
  readonly label?: (args: Args) => string;
}

/** The parameter name the wrapper adds. */
export const RUN_IN_BACKGROUND = "run_in_background";

const WRAPPED: unique symbol = Symbol("dsh.jobs.withBackground");
const PARAMETER = {
  type: "boolean",
  description:
    "Run in the background: the call returns a job id at once and the work keeps going. Poll with job_output, stop with job_kill; a notice arrives when it finishes.",
} as const;

/**
 * The job a body is running as (`exec.job`), or `undefined` in the foreground. A
 * process-spawning body registers its child with it so a kill takes the whole tree down:
 * `exec.job?.trackProcess(child.pid, { group: true })`.
 *
 * @param exec The execution the body received.
 * @returns The job control, in background mode.
 *
 * @example Usage
 * ```ts
 * import { jobOf } from "./with_background.ts";
 * import { equal } from "node:assert/strict";
 * equal(jobOf({} as never), undefined);
 * ```
 */
export function jobOf(exec: ToolExecution): BackgroundJob | undefined {
  return exec.job;
}

function defaultLabel(args: unknown): string {
  let label: string;
  if (typeof args === "object" && args !== null) {
    const record = args as Record<string, unknown>;
    const key = ["command", "description", "path", "url", "query"].find((k) =>
      typeof record[k] === "string" && record[k] !== ""
    );
    label = key !== undefined ? String(record[key]) : JSON.stringify(args);
  } else {
    label = JSON.stringify(args) ?? String(args);
  }
  label = label.replace(/\s+/g, " ").trim();
  return label.length > 200 ? `${label.slice(0, 199)}…` : label;
}

interface Split<A> {
  readonly background: boolean;
  readonly rest: A;
}

/** The flag and the arguments without it (a frozen snapshot's rest is snapshotted too). */
function split<A>(args: A): Split<A> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { background: false, rest: args };
  }
  if (!(RUN_IN_BACKGROUND in args)) return { background: false, rest: args };
  const { [RUN_IN_BACKGROUND]: flag, ...rest } = args as Record<string, unknown>;
  // The one cast: the tool's own arguments are the wrapped ones without the flag.
  const own = (isJsonSnapshot(args) ? snapshotJson(rest) : rest) as A;
  return { background: flag === true, rest: own };
}

function backgroundCard(view: ToolCallView | undefined): ToolCallView | undefined {
  if (view === undefined || view.card === "generic") return view;
  if (view.card === "terminal") {
    return {
      card: "generic",
      title: view.title,
      kind: "execute",
      rawInput: view.title,
      ...(view.description !== undefined
        ? { content: [{ type: "text", text: view.description }] }
        : {}),
    };
  }
  return { card: "generic", title: view.title, kind: "edit" };
}

/**
 * Wraps a definition so it can run in the background. The wrapped schema gains a boolean
 * `run_in_background`; the body receives the arguments without it. In the background the body
 * runs as a job of kind `<tool name>` owned by `exec.agent`, with a job-owned signal (an outer
 * cancel does not kill it) and `exec.output` writing into the job's output; its returned text is
 * appended to that output when it settles (so a body that streamed everything should return only
 * what is new, for example exit markers; `exec.job` tells it which mode it is in). Deferred
 * contexts are injected into the owner when the job settles. Wrapping twice returns the same
 * definition.
 *
 * @typeParam Args The tool's argument type.
 * @param definition The tool.
 * @param jobs The jobs service (`ctx.jobs`).
 * @param options The label function.
 * @returns The wrapped definition (frozen).
 * @throws {TypeError} When the schema already declares `run_in_background` or is not an object schema.
 *
 * @example Usage
 * ```ts
 * import { withBackground } from "./with_background.ts";
 * import { JobService } from "./job_service.ts";
 * import { equal } from "node:assert/strict";
 * await using jobs = new JobService();
 * const tool = withBackground({
 *   name: "slow",
 *   description: "Counts.",
 *   parameters: { type: "object", properties: {} },
 *   execute: (_args: unknown, exec) => {
 *     exec.output.write("1 2 3");
 *     return [];
 *   },
 * }, jobs);
 * const started = await tool.execute({ run_in_background: true }, {
 *   callId: "c1", name: "slow", arguments: {}, token: Symbol(), signal: new AbortController().signal,
 *   output: { write() {} }, deferContext() {},
 * });
 * equal("meta" in started && (started.meta as { jobId: string }).jobId, "slow-1");
 * equal((await jobs.wait("slow-1")).status, "completed");
 * ```
 */
export function withBackground<Args>(
  definition: ToolDefinition<Args>,
  jobs: JobStarter,
  options: WithBackgroundOptions<Args> = {},
): ToolDefinition<Args> {
  if ((definition as { [WRAPPED]?: true })[WRAPPED]) return definition;
  const parameters = definition.parameters;
  const properties = parameters.properties;
  if (
    parameters.type !== "object" || (properties !== undefined && typeof properties !== "object")
  ) {
    throw new TypeError(
      `Cannot add ${RUN_IN_BACKGROUND} to tool "${definition.name}": parameters must be an object schema: current type is ${
        JSON.stringify(parameters.type)
      }`,
    );
  }
  if (properties !== undefined && RUN_IN_BACKGROUND in (properties as JsonObject)) {
    throw new TypeError(
      `Cannot add ${RUN_IN_BACKGROUND} to tool "${definition.name}": the schema already declares it`,
    );
  }
  const label = options.label ?? defaultLabel;
  const { presentCall, presentResult, isConcurrencySafe } = definition;

  const backgroundExecute = (args: Args, exec: ToolExecution): Promise<ExecuteReturn> =>
    runMaybeInBackground(definition, jobs, label, args, exec);

  const wrapped: { -readonly [K in keyof ToolDefinition<Args>]: ToolDefinition<Args>[K] } & {
    spec?: unknown;
    [WRAPPED]: true;
  } = {
    ...definition,
    parameters: {
      ...parameters,
      properties: { ...(properties as JsonObject | undefined), [RUN_IN_BACKGROUND]: PARAMETER },
    },
    execute: backgroundExecute,
    [WRAPPED]: true,
  };
  const spec = (definition as { spec?: unknown }).spec;
  if (typeof spec === "object" && spec !== null) {
    wrapped.spec = Object.freeze({ ...spec, [RUN_IN_BACKGROUND]: PARAMETER });
  }
  if (presentCall !== undefined) {
    wrapped.presentCall = (args: Args) => {
      const { background, rest } = split(args);
      const view = presentCall(rest);
      return background ? backgroundCard(view) : view;
    };
  }
  if (presentResult !== undefined) {
    wrapped.presentResult = (args: Args, result: Parameters<typeof presentResult>[1]) => {
      const { background, rest } = split(args);
      return background ? undefined : presentResult(rest, result);
    };
  }
  const validate = definition.validate;
  if (validate !== undefined) wrapped.validate = (args: unknown) => validate(split(args).rest);
  if (isConcurrencySafe !== undefined) {
    wrapped.isConcurrencySafe = (args: Args) => isConcurrencySafe(split(args).rest);
  }
  return Object.freeze(wrapped);
}

/** The wrapped body: the foreground call as is, or a job started with the body as its producer. */
async function runMaybeInBackground<Args>(
  definition: ToolDefinition<Args>,
  jobs: JobStarter,
  label: (args: Args) => string,
  args: Args,
  exec: ToolExecution,
): Promise<ExecuteReturn> {
  const execute = definition.execute;
  const { background, rest } = split(args);
  if (!background) return await execute(rest, exec);
  exec.signal.throwIfAborted();
  const jobLabel = label(rest);
  const jobId = jobs.start({
    kind: definition.name,
    label: jobLabel,
    ...(exec.agent !== undefined ? { owner: exec.agent } : {}),
    run: async (job) => {
      const deferred: (readonly ContentBlock[])[] = [];
      let endsWithNewline = true;
      const output = {
        write(chunk: string | Uint8Array): void {
          if (chunk.length === 0) return;
          endsWithNewline = typeof chunk === "string" ? chunk.endsWith("\n") : chunk.at(-1) === 10;
          job.output.write(chunk);
        },
      };
      // The body learns its job from `exec.job` (no side channel); the signal is the job's own.
      const jobExec: ToolExecution = {
        callId: exec.callId,
        name: exec.name,
        arguments: exec.arguments,
        ...(exec.agent !== undefined ? { agent: exec.agent } : {}),
        token: exec.token,
        ...(exec.parent !== undefined ? { parent: exec.parent } : {}),
        signal: job.signal,
        output,
        deferContext: (content) => void deferred.push(content),
        job,
      };
      try {
        const returned = await execute(rest, jobExec);
        const text = contentText("content" in returned ? returned.content : returned);
        if (text !== "") output.write(endsWithNewline ? text : `\n${text}`);
      } finally {
        for (const content of deferred) {
          try {
            exec.agent?.inject(content, { source: { kind: "plugin", plugin: "jobs" } });
          } catch { /* the owner is gone */ }
        }
      }
    },
  });
  return {
    content: [{
      type: "text",
      text:
        `started background job ${jobId} (${definition.name}: ${jobLabel}). It keeps running after this call; read its output with job_output (job_id "${jobId}") and stop it with job_kill. A notice arrives when it finishes.`,
    }],
    meta: { kind: "background", jobId },
  };
}
