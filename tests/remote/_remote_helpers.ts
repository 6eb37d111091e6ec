/**
 * Shared setup of the remote executor tests: a loopback stand-in of the Deno Sandbox service,
 * driven by the unmodified pinned SDK, and an executor pointed at it.
 *
 * @module
 */
import { type SandboxStandIn, startSandboxStandIn } from "../../testing/deno_sandbox_stand_in.ts";
import {
  type DenoSandboxExecutor,
  denoSandboxExecutor,
  type DenoSandboxExecutorOptions,
} from "../../remote/mod.ts";
import type { ExecutorRecord, RunOptions, RunResult } from "../../tools/executor.ts";
import { HarnessError } from "../../core/errors.ts";
import { equal, ok } from "node:assert/strict";

/** A stand-in, a host workspace path and an executor on them. */
export interface RemoteFixture extends AsyncDisposable {
  readonly standIn: SandboxStandIn;
  readonly workspace: string;
  readonly executor: DenoSandboxExecutor;
  /** Every `onRecord` call, in order. */
  readonly records: { sessionId: string; record: ExecutorRecord }[];
  /** Another executor object on the same stand-in (a fresh agent process). */
  another(extra?: Partial<DenoSandboxExecutorOptions>): DenoSandboxExecutor;
}

/** Starts a stand-in and an executor (`extra` overrides options). */
export async function remoteFixture(
  extra: Partial<DenoSandboxExecutorOptions> = {},
): Promise<RemoteFixture> {
  const standIn = await startSandboxStandIn();
  const workspace = await Deno.makeTempDir({ prefix: "dsh-remote-ws-" });
  const records: { sessionId: string; record: ExecutorRecord }[] = [];
  const make = (more: Partial<DenoSandboxExecutorOptions> = {}) =>
    denoSandboxExecutor({
      workspace,
      allowNet: [],
      endpoint: standIn.endpoint,
      token: standIn.token,
      timeout: "10m",
      onRecord: (sessionId, record) => void records.push({ sessionId, record }),
      ...extra,
      ...more,
    });
  const executor = make();
  const made: DenoSandboxExecutor[] = [executor];
  return {
    standIn,
    workspace,
    executor,
    records,
    another(more) {
      const next = make(more);
      made.push(next);
      return next;
    },
    async [Symbol.asyncDispose]() {
      for (const one of made) await one.detach().catch(() => {});
      await standIn.close();
      await Deno.remove(workspace, { recursive: true }).catch(() => {});
    },
  };
}

/** Runs `command` and collects its output as text. */
export async function runText(
  executor: { run(command: string, options?: RunOptions): Promise<RunResult> },
  command: string,
  options: RunOptions = {},
): Promise<{ result: RunResult; text: string }> {
  const decoder = new TextDecoder();
  let text = "";
  const result = await executor.run(command, {
    ...options,
    onOutput: (chunk) => {
      text += decoder.decode(chunk, { stream: true });
      return options.onOutput?.(chunk);
    },
  });
  return { result, text: text + decoder.decode() };
}

/** A `rejects`/`throws` check: a HarnessError with code `expected`. */
export function code(expected: string): (error: unknown) => boolean {
  return (error) => {
    ok(error instanceof HarnessError, String(error));
    equal(error.code, expected, error.message);
    return true;
  };
}
