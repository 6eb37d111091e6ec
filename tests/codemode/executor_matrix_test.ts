/**
 * Code Mode over every executor of the matrix (tests/_executor_matrix.ts): the program's sandbox
 * process starts through the executor's `spawn`, its tool calls reach bash and the fs tools on the
 * same executor, and the sandbox still has no permission.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { EXECUTOR_CASES, FilesOnlyExecutor } from "../_executor_matrix.ts";
import { executorHarness, outcomeText } from "../_executor_harness.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import type { ExecChild, RunOptions, RunResult, SpawnOptions } from "../../tools/executor.ts";
import { subprocessRuntime } from "../../codemode/subprocess_runtime.ts";
import { tempDir } from "../_helpers.ts";

for (const matrixCase of EXECUTOR_CASES) {
  Deno.test(`executor matrix (${matrixCase.name}): Code Mode`, async (t) => {
    const env = await matrixCase.setup();
    try {
      await using h = await executorHarness(env.executor, env.workspace, { codeMode: true });
      await t.step("a program drives write, read and bash on the executor", async () => {
        const code = `await tools.write({ file_path: "cm.txt", content: "alpha\\n" });
const read = await tools.read({ file_path: "cm.txt" });
const out = await tools.bash({ command: "cat cm.txt; echo done" });
return { read: read.includes("1: alpha"), out };`;
        const outcome = await h.call("run_code", { code });
        equal(outcome.isError, false, outcomeText(outcome));
        deepEqual(JSON.parse(outcomeText(outcome)), { read: true, out: "alpha\ndone" });
        const session = env.executor.forSession(h.agent.sessionId);
        const bytes = await session.readFile(`${env.workspace}/cm.txt`);
        equal(new TextDecoder().decode(bytes), "alpha\n");
      });
      await t.step("the sandbox itself has no permission", async () => {
        const code = `try { Deno.readTextFileSync("/etc/passwd"); return "read"; }
catch (error) { return error.name; }`;
        equal(outcomeText(await h.call("run_code", { code })), "NotCapable");
      });
      await t.step("a failing program is a run failure, not a crash", async () => {
        const outcome = await h.call("run_code", { code: "throw new Error('boom')" });
        equal(outcome.isError, true);
        match(outcomeText(outcome), /boom/);
      });
    } finally {
      await env.close();
    }
  });
}

/**
 * Forwards to the local executor and records every spawn and every file call; its commands see
 * `bin` first on their PATH (its own `deno`, as a remote environment has one).
 */
class RecordingExecutor extends FilesOnlyExecutor {
  readonly spawns: { program: string; args: readonly string[] }[] = [];
  readonly runs: string[] = [];
  readonly #bin: string;

  constructor(bin: string) {
    super(new LocalExecutor());
    this.#bin = bin;
  }

  override run(command: string, options: RunOptions = {}): Promise<RunResult> {
    this.runs.push(command);
    const path = `${this.#bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`;
    return super.run(command, { ...options, env: { ...options.env, PATH: path } });
  }

  override spawn(program: string, options: SpawnOptions = {}): Promise<ExecChild> {
    this.spawns.push({ program, args: options.args ?? [] });
    return super.spawn(program, options);
  }
}

Deno.test("Code Mode on a remote-style executor runs its deno and makes DENO_DIR there", async () => {
  await using bin = await tempDir();
  await Deno.symlink(Deno.execPath(), `${bin.path}/deno`);
  const executor = new RecordingExecutor(bin.path);
  const runtime = subprocessRuntime({ executor });
  const result = await runtime.run({
    program: "return Deno.env.toObject !== undefined ? 1 : 0;",
    callTool: () => Promise.resolve(""),
  });
  equal(result.error, undefined, JSON.stringify(result.error));
  equal(result.value, 1);
  equal(executor.spawns.length, 1);
  const { program, args } = executor.spawns[0]!;
  equal(program, "sh");
  // The limit script's arguments: memory, the Deno binary, the private directory.
  const deno = args[4]!;
  const dir = args[5]!;
  equal(deno, `${bin.path}/deno`, "the executor's own `deno` (from its PATH), not Deno.execPath()");
  match(dir, /^\/tmp\/dsh-code-/);
  // Looked up, made and removed by commands in the executor's environment.
  equal(executor.runs.length, 3);
  match(executor.runs[0]!, /mktemp -d/);
  equal(executor.runs[1], "command -v deno");
  equal(executor.runs[2], `rm -rf -- '${dir}'`);
  equal(await Deno.stat(dir).catch(() => undefined), undefined, "removed after the run");
});

Deno.test("a runtime looks up a remote deno once; another runtime on the same executor looks again", async () => {
  await using bin = await tempDir();
  await Deno.symlink(Deno.execPath(), `${bin.path}/deno`);
  const executor = new RecordingExecutor(bin.path);
  const program = { program: "return 1;", callTool: () => Promise.resolve("") };
  const lookups = () => executor.runs.filter((command) => command === "command -v deno").length;
  const first = subprocessRuntime({ executor });
  equal((await first.run(program)).value, 1);
  equal((await first.run(program)).value, 1);
  equal(lookups(), 1, "the runtime remembers the deno it found");
  // The memory is the runtime's own, not the module's: a second runtime shares none of it.
  const second = subprocessRuntime({ executor });
  equal((await second.run(program)).value, 1);
  equal(lookups(), 2);
  equal(executor.spawns.length, 3);
});

Deno.test("Code Mode on a host executor spawns through it with this process's Deno", async () => {
  await using dir = await tempDir();
  const spawns: string[][] = [];
  const executor = new (class extends LocalExecutor {
    override spawn(program: string, options: SpawnOptions = {}): Promise<ExecChild> {
      spawns.push([program, ...options.args ?? []]);
      return super.spawn(program, options);
    }
  })();
  const runtime = subprocessRuntime({ executor, cwd: dir.path });
  const result = await runtime.run({ program: "return 2;", callTool: () => Promise.resolve("") });
  equal(result.value, 2);
  equal(spawns.length, 1);
  equal(spawns[0]![5], Deno.execPath());
  ok(spawns[0]!.includes("--no-prompt"));
});

Deno.test("Code Mode on an executor without deno on its PATH says so", async () => {
  // This PATH without the folders that hold a `deno`.
  const entries = (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":");
  const kept: string[] = [];
  for (const entry of entries) {
    if (await Deno.stat(`${entry}/deno`).catch(() => undefined) === undefined) kept.push(entry);
  }
  const executor = new (class extends FilesOnlyExecutor {
    override run(command: string, options: RunOptions = {}): Promise<RunResult> {
      return super.run(command, { ...options, env: { ...options.env, PATH: kept.join(":") } });
    }
  })(new LocalExecutor());
  const runtime = subprocessRuntime({ executor });
  const error = await runtime.run({ program: "return 1;", callTool: () => Promise.resolve("") })
    .then(() => undefined, (e: unknown) => e as Error & { code?: string });
  equal(error?.code, "SPAWN_FAILED");
  match(error!.message, /no "deno" on its PATH/);
});
