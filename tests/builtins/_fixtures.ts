/** Shared doubles for the builtins tests (hand-written, no mocking library). */
import type { AgentHandle } from "../../tools/definition.ts";
import type { JsonObject } from "../../core/json.ts";
import type { ToolOutcome } from "../../tools/outcome.ts";

/** A recording agent double. */
export interface FakeAgent extends AgentHandle {
  readonly events: { type: string; data: JsonObject }[];
  readonly injected: string[];
}

/** An agent double with a session id and cwd that records appended events. */
export function fakeAgent(cwd: string, sessionId = "s1"): FakeAgent {
  const events: { type: string; data: JsonObject }[] = [];
  const injected: string[] = [];
  return {
    id: `agent-${sessionId}`,
    sessionId,
    cwd,
    disposed: false,
    events,
    injected,
    inject(content) {
      injected.push(typeof content === "string" ? content : JSON.stringify(content));
    },
    appendEvent(type, data) {
      events.push({ type, data });
    },
  };
}

/** The joined text of an outcome. */
export function text(outcome: ToolOutcome): string {
  return outcome.content.map((block) => block.type === "text" ? block.text : "").join("");
}

/** Resolves once `path` has at least `lines` lines (polls the file; no timing assert). */
export async function waitForLines(path: string, lines: number): Promise<string[]> {
  for (;;) {
    const content = await Deno.readTextFile(path).catch(() => "");
    const rows = content.split("\n").filter((row) => row !== "");
    if (rows.length >= lines) return rows;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

import { createHarness, type ToolsContext } from "../../mod.ts";
import { fsPlugin } from "../../builtins/fs_plugin.ts";
import type { FsObservation } from "../../builtins/fs_read.ts";

/** A harness with the fs tools, disposed with `await using`. */
export async function fsHarness(): Promise<
  ToolsContext & AsyncDisposable & {
    observed: FsObservation[];
    call(name: string, args: unknown, agent?: AgentHandle): Promise<ToolOutcome>;
  }
> {
  const ctx = await createHarness();
  await ctx.plugin(fsPlugin).ready;
  const observed: FsObservation[] = [];
  ctx.on("fs/observed", (o: FsObservation) => observed.push(o));
  let n = 0;
  return Object.assign(ctx, {
    observed,
    call: (name: string, args: unknown, agent?: AgentHandle) =>
      ctx.tools.execute({ callId: `c${++n}`, name, arguments: args, ...(agent ? { agent } : {}) }),
    [Symbol.asyncDispose]: () => ctx.fiber.dispose(),
  });
}
