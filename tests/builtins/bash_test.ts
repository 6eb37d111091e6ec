import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { bashOutputOf, bashPlugin, type BashPluginConfig } from "../../builtins/bash.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import { createHarness, type ToolsContext } from "../../mod.ts";
import { jobsPlugin } from "../../jobs/jobs_plugin.ts";
import type { JobService } from "../../jobs/job_service.ts";
import type { ToolOutcome } from "../../tools/outcome.ts";
import {
  markedSleep,
  tempDir,
  TERM_GRACE_MS,
  uniqueToken,
  waitGone,
  waitMarked,
} from "../_helpers.ts";
import { fakeAgent, text } from "./_fixtures.ts";

async function harness(config: BashPluginConfig = {}): Promise<ToolsContext & AsyncDisposable> {
  const ctx = await createHarness();
  await ctx.plugin(bashPlugin, { executor: new LocalExecutor(), killGraceMs: 50, ...config }).ready;
  return Object.assign(ctx, { [Symbol.asyncDispose]: () => ctx.fiber.dispose() });
}

let calls = 0;
function bash(
  ctx: ToolsContext,
  args: unknown,
  extra: { cwd?: string; signal?: AbortSignal; onOutput?: (c: string) => void } = {},
): Promise<ToolOutcome> {
  return ctx.tools.execute({
    callId: `c${++calls}`,
    name: "bash",
    arguments: args,
    agent: fakeAgent(extra.cwd ?? Deno.cwd()),
    ...(extra.signal ? { signal: extra.signal } : {}),
    ...(extra.onOutput ? { onOutput: extra.onOutput } : {}),
  });
}

Deno.test("bash rejects invalid arguments with model-readable errors", async (t) => {
  await using ctx = await harness();
  const cases: [unknown, string][] = [
    [
      {},
      'Error: invalid arguments: "command": expected string (required), received nothing (the key is missing); fix: send a string such as "text"',
    ],
    [
      { command: 5 },
      'Error: invalid arguments: "command": expected string, received number 5; fix: send "5"',
    ],
    [
      { command: "  " },
      `Error: Cannot run bash: 'command' must be a non-empty string: current value is "  "`,
    ],
    [
      { command: "ls", timeout_ms: 0 },
      'Error: invalid arguments: "timeout_ms": expected integer from 1 to 600000, received number 0; fix: send 1',
    ],
    [
      { command: "ls", timeout_ms: 1.5 },
      'Error: invalid arguments: "timeout_ms": expected integer, received number 1.5; fix: send 2',
    ],
  ];
  for (const [args, expected] of cases) {
    await t.step(JSON.stringify(args), async () => {
      const outcome = await bash(ctx, args);
      equal(outcome.isError, true);
      equal(text(outcome), expected);
    });
  }
});

Deno.test("bash returns output and meta on success", async () => {
  await using ctx = await harness();
  await using dir = await tempDir();
  const outcome = await bash(ctx, { command: "echo hi; echo err >&2; pwd" }, { cwd: dir.path });
  equal(outcome.isError, false);
  const real = await Deno.realPath(dir.path);
  equal(text(outcome), `hi\nerr\n${real}`);
  deepEqual(outcome.meta, {
    outputChars: `hi\nerr\n${real}`.length,
    outputNewline: true,
    exitCode: 0,
  });
});

Deno.test("bash reports a non-zero exit as a domain result, not an error", async () => {
  await using ctx = await harness();
  const outcome = await bash(ctx, { command: "echo boom; exit 9" });
  equal(outcome.isError, false);
  equal(text(outcome), "boom\n[exit code: 9]");
  deepEqual(outcome.meta, { outputChars: 4, outputNewline: true, exitCode: 9 });
});

Deno.test("bash says (no output) for a silent success", async () => {
  await using ctx = await harness();
  const outcome = await bash(ctx, { command: "true" });
  equal(text(outcome), "(no output)");
});

Deno.test("bash marks a timeout and the signal that ended the shell", async () => {
  // SIGTERM ends the shell; a long grace keeps a CPU-starved one from reading SIGKILL first.
  await using ctx = await harness({ killGraceMs: TERM_GRACE_MS });
  const outcome = await bash(ctx, { command: "echo start; sleep 30", timeout_ms: 300 });
  equal(outcome.isError, false);
  equal(text(outcome), "start\n[timed out after 300 ms]\n[killed by signal: SIGTERM]");
  deepEqual(outcome.meta, {
    outputChars: 5,
    outputNewline: true,
    exitCode: null,
    signal: "SIGTERM",
    timedOut: true,
  });
});

Deno.test("bash reports a shell killed by a signal", async () => {
  await using ctx = await harness();
  const outcome = await bash(ctx, { command: "kill -KILL $$" });
  equal(text(outcome), "[killed by signal: SIGKILL]");
  deepEqual(outcome.meta, { outputChars: 0, exitCode: null, signal: "SIGKILL" });
});

Deno.test("bash streams output chunks as produced", async () => {
  await using ctx = await harness();
  await using dir = await tempDir();
  // The second line waits until the first arrived (an event, not a sleep a loaded machine outruns).
  const seen = `${dir.path}/seen`;
  const chunks: string[] = [];
  await bash(ctx, {
    command: `printf 'a\\n'; while [ ! -e ${seen} ]; do sleep 0.01; done; printf 'b\\n'`,
  }, {
    onOutput: (c) => {
      chunks.push(c);
      Deno.writeTextFileSync(seen, "");
    },
  });
  deepEqual(chunks, ["a\n", "b\n"]);
});

Deno.test("bash kills the process tree on abort and reports ABORTED", async () => {
  await using ctx = await harness();
  const token = uniqueToken();
  const controller = new AbortController();
  const pending = bash(ctx, {
    command: `${markedSleep(token)} & bash -c "${markedSleep(token)} & wait" & wait`,
  }, { signal: controller.signal });
  await waitMarked(token, 2);
  controller.abort();
  const outcome = await pending;
  equal(outcome.isError, true);
  equal(outcome.error?.code, "ABORTED");
  deepEqual(await waitGone(token), []);
});

Deno.test("bash truncates long output to head and tail and spills every byte", async () => {
  await using dir = await tempDir();
  await using ctx = await harness({ outputLimitBytes: 64, spillDir: dir.path });
  const agent = fakeAgent(dir.path);
  const outcome = await ctx.tools.execute({
    callId: "c1",
    name: "bash",
    arguments: { command: "seq 1 100" },
    agent,
  });
  const meta = outcome.meta as { spillPath: string; outputChars: number; outputNewline: true };
  const full = await Deno.readTextFile(meta.spillPath);
  equal(full, Array.from({ length: 100 }, (_, i) => `${i + 1}\n`).join(""));
  const body = text(outcome);
  ok(body.startsWith("1\n2\n3\n"));
  ok(body.endsWith("99\n100"));
  ok(
    body.includes(
      `[output truncated: showing first 32 and last 32 bytes of 292; full output: ${meta.spillPath}]`,
    ),
    body,
  );
  // The output is stored once: the text holds it, meta says how much of the text it is.
  equal(bashOutputOf(body, meta), body + "\n");
  equal("output" in meta, false);
  deepEqual(agent.events, [{
    type: "tool/spill",
    data: { callId: "c1", path: meta.spillPath, totalBytes: 292 },
  }]);
});

Deno.test("bash spills a 200 MB output with every byte on disk", async () => {
  await using dir = await tempDir();
  await using ctx = await harness({ spillDir: dir.path });
  const total = 200_000_000;
  const outcome = await bash(ctx, { command: `head -c ${total} /dev/zero` });
  const meta = outcome.meta as { spillPath: string; exitCode: number };
  equal(meta.exitCode, 0);
  ok(text(outcome).includes(`of ${total}; full output: ${meta.spillPath}]`));
  equal((await Deno.stat(meta.spillPath)).size, total);
  const same = await new Deno.Command("cmp", {
    args: ["-n", String(total), meta.spillPath, "/dev/zero"],
  })
    .output();
  equal(same.code, 0, new TextDecoder().decode(same.stdout));
});

Deno.test("bash presenters are pure views of args and meta", async () => {
  await using ctx = await harness();
  const tool = ctx.tools.get("bash")!;
  deepEqual(tool.presentCall!({ command: "ls -la", description: "List files" }), {
    card: "terminal",
    title: "ls -la",
    description: "List files",
  });
  deepEqual(tool.presentCall!({ command: "ls" }), { card: "terminal", title: "ls" });
  deepEqual(
    tool.presentResult!({ command: "x" }, {
      content: [{ type: "text", text: "out\n[timed out after 5 ms]\n[killed by signal: SIGTERM]" }],
      isError: false,
      meta: {
        outputChars: 3,
        outputNewline: true,
        exitCode: null,
        signal: "SIGTERM",
        timedOut: true,
      },
    }),
    { card: "terminal", output: "out\n", signal: "SIGTERM" },
  );
  // A log written before the output was stored once replays from `meta.output`.
  deepEqual(
    tool.presentResult!({ command: "x" }, {
      content: [{ type: "text", text: "old" }],
      isError: false,
      meta: { output: "old\n", exitCode: 0 },
    }),
    { card: "terminal", output: "old\n", exitCode: 0 },
  );
  equal(tool.presentResult!({ command: "x" }, { content: [], isError: true }), undefined);
  equal(
    tool.presentResult!({ command: "x" }, { content: [], isError: false, meta: [1] }),
    undefined,
  );
  equal(tool.presentCall!({ nope: 1 }), undefined);
  equal(tool.isConcurrencySafe!({ command: "ls" }), false);
});

Deno.test("bashPlugin unregisters bash when its fiber is disposed and registers again on reload", async () => {
  const root = await createHarness();
  try {
    const child = root.plugin(bashPlugin, { executor: new LocalExecutor() });
    await child.ready;
    ok(root.tools.get("bash"));
    await child.dispose();
    equal(root.tools.get("bash"), undefined);
    const again = root.plugin(bashPlugin, { executor: new LocalExecutor() });
    await again.ready;
    ok(root.tools.get("bash"));
  } finally {
    await root.fiber.dispose();
  }
});

Deno.test("bashPlugin refuses to run unconfined when the sandbox is unavailable", async () => {
  const root = await createHarness();
  try {
    const fiber = root.plugin(bashPlugin, { sandbox: "workspace-write", bwrap: "dsh-no-bwrap" });
    await rejects(fiber.ready, {
      name: "HarnessError",
      message: /^Cannot create the workspace-write sandbox: /,
    });
    equal(fiber.state, "failed");
    equal(root.tools.get("bash"), undefined);
  } finally {
    await root.fiber.dispose();
  }
});

Deno.test("bash runs in the background through the jobs layer", async () => {
  const root = await createHarness();
  try {
    await root.plugin(jobsPlugin, { spill: false }).ready;
    await root.plugin(bashPlugin, { executor: new LocalExecutor() }).ready;
    const tool = root.tools.get("bash")!;
    ok("run_in_background" in (tool.parameters.properties as object));
    const agent = fakeAgent(Deno.cwd());
    const started = await root.tools.execute({
      callId: "b1",
      name: "bash",
      arguments: { command: "echo bg; exit 4", run_in_background: true },
      agent,
    });
    equal(started.isError, false);
    const jobId = (started.meta as { jobId: string }).jobId;
    const jobs = root.get<JobService>("jobs")!;
    const done = await jobs.wait(jobId);
    equal(done.status, "completed");
    const read = await jobs.poll(jobId, { caller: agent.sessionId });
    ok(read.text.includes("bg\n"), read.text);
    ok(read.text.includes("[exit code: 4]"), read.text);
  } finally {
    await root.fiber.dispose();
  }
});

Deno.test({
  name: "bashPlugin names the whole --allow-run flag when Deno may not run its programs",
  permissions: { run: ["bash"], read: true, env: true },
  async fn() {
    const root = await createHarness({ logSink: () => {} });
    try {
      const fiber = root.plugin(bashPlugin, { sandbox: "workspace-write" });
      await rejects(fiber.ready, {
        name: "NotCapable",
        message:
          'Cannot load the bash tool: Deno may not run "setsid", "ps", "kill", "bwrap", "sh": Deno denied it: add --allow-run=bash,setsid,ps,kill,bwrap,sh to the deno command',
      });
      const off = root.plugin(bashPlugin, { sandbox: "off" });
      await rejects(off.ready, {
        message:
          'Cannot load the bash tool: Deno may not run "setsid", "ps", "kill": Deno denied it: add --allow-run=bash,setsid,ps,kill to the deno command',
      });
    } finally {
      await root.fiber.dispose();
    }
  },
});
