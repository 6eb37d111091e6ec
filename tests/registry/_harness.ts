/** Shared doubles for the registry tests (hand-written, no mocking library). */
import type { LogRecord } from "../../core/logger.ts";
import { createHarness, type CreateHarnessOptions, type ToolsContext } from "../../mod.ts";
import type {
  AgentHandle,
  AnyToolDefinition,
  ExecuteReturn,
  ToolExecution,
} from "../../tools/definition.ts";
import type { ContentBlock } from "../../tools/content.ts";

/** A harness whose logs are captured instead of written to stderr. */
export interface TestHarness extends AsyncDisposable {
  readonly ctx: ToolsContext;
  readonly logs: LogRecord[];
}

/** `await using h = await harness();` */
export async function harness(options: CreateHarnessOptions = {}): Promise<TestHarness> {
  const logs: LogRecord[] = [];
  const ctx = await createHarness({ logSink: (record) => logs.push(record), ...options });
  return {
    ctx,
    logs,
    async [Symbol.asyncDispose]() {
      await ctx.fiber.dispose();
    },
  };
}

/** A raw definition (no validation) with an optional body. */
export function rawTool(
  name: string,
  execute: (args: unknown, exec: ToolExecution) => ExecuteReturn | Promise<ExecuteReturn> = () => [
    { type: "text", text: `${name} ok` },
  ],
  extra: Partial<AnyToolDefinition> = {},
): AnyToolDefinition {
  return {
    name,
    description: `The ${name} tool`,
    parameters: { type: "object" },
    execute,
    ...extra,
  };
}

/** A {@linkcode rawTool} that returns `content` and counts its runs in `counter.runs`. */
export function countingTool(
  name: string,
  counter: { runs: number },
  content: readonly ContentBlock[] = [],
): AnyToolDefinition {
  return rawTool(name, () => {
    counter.runs++;
    return content;
  });
}

/** The single text of an outcome's content. */
export function text(
  outcome: { readonly content: readonly { type: string; text?: string }[] },
): string {
  return outcome.content.map((block) => block.text ?? `[${block.type}]`).join("\n");
}

/** A minimal agent double (approval needs an agent to route an `ask` through). */
export function fakeAgent(sessionId = "s1"): AgentHandle {
  return {
    id: `agent-${sessionId}`,
    sessionId,
    cwd: "/",
    disposed: false,
    inject() {},
    appendEvent() {},
  };
}

/** A body that never settles on its own: it rejects with the signal's reason once it aborts. */
export function untilAborted(exec: ToolExecution): Promise<never> {
  return new Promise((_resolve, reject) => {
    exec.signal.addEventListener("abort", () => reject(exec.signal.reason), { once: true });
  });
}
