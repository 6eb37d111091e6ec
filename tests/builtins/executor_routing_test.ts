/**
 * Every tool body picks its session's executor (`executorFor(executor, sessionId)`): bash, read,
 * write, edit, the read-before-edit checks and Code Mode all run in the calling session's
 * environment, never in the base executor's.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { FilesOnlyExecutor } from "../_executor_matrix.ts";
import { executorHarness, outcomeText } from "../_executor_harness.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import type {
  ExecChild,
  Executor,
  FileStat,
  RunOptions,
  RunResult,
  SpawnOptions,
} from "../../tools/executor.ts";

/** A session's environment: forwards to the local executor and logs `session:operation`. */
class SessionEnvironment extends FilesOnlyExecutor {
  readonly #log: string[];
  readonly #name: string;

  constructor(name: string, log: string[]) {
    super(new LocalExecutor());
    this.#name = name;
    this.#log = log;
  }

  #note(operation: string): void {
    this.#log.push(`${this.#name}:${operation}`);
  }

  override run(command: string, options?: RunOptions): Promise<RunResult> {
    this.#note("run");
    return super.run(command, options);
  }
  override spawn(program: string, options?: SpawnOptions): Promise<ExecChild> {
    this.#note("spawn");
    return super.spawn(program, options);
  }
  override readFile(path: string): Promise<Uint8Array> {
    this.#note("readFile");
    return super.readFile(path);
  }
  override writeFile(path: string, data: string | Uint8Array): Promise<void> {
    this.#note("writeFile");
    return super.writeFile(path, data);
  }
  override stat(path: string): Promise<FileStat | undefined> {
    this.#note("stat");
    return super.stat(path);
  }
}

/** A provider with one environment per session (like a remote one); the base is never used. */
class PerSession extends SessionEnvironment {
  readonly sessions = new Map<string, Executor>();
  readonly log: string[];

  constructor(log: string[]) {
    super("base", log);
    this.log = log;
  }

  override forSession(sessionId: string): Executor {
    let executor = this.sessions.get(sessionId);
    if (executor === undefined) {
      this.sessions.set(sessionId, executor = new SessionEnvironment(sessionId, this.log));
    }
    return executor;
  }
}

Deno.test("bash, the fs tools, read-before-edit and Code Mode use the session's executor", async () => {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "dsh_routing_" }));
  try {
    const executor = new PerSession([]);
    await using a = await executorHarness(executor, workspace, { codeMode: true, sessionId: "sA" });
    await using b = await executorHarness(executor, workspace, { sessionId: "sB" });
    equal(outcomeText(await a.call("bash", { command: "echo a" })), "a");
    await a.call("write", { file_path: "f.txt", content: "x\n" });
    await a.call("read", { file_path: "f.txt" });
    const edit = await a.call("edit", { file_path: "f.txt", old_string: "x", new_string: "y" });
    equal(edit.isError, false, outcomeText(edit));
    const run = await a.call("run_code", {
      code: "return await tools.read({ file_path: 'f.txt' });",
    });
    ok(outcomeText(run).includes("1: y"), outcomeText(run));
    equal(outcomeText(await b.call("bash", { command: "echo b" })), "b");
    deepEqual([...executor.sessions.keys()].sort(), ["sA", "sB"]);
    deepEqual(executor.log.filter((entry) => entry.startsWith("base:")), []);
    const ops = new Set(executor.log.filter((e) => e.startsWith("sA:")));
    for (const op of ["run", "spawn", "readFile", "writeFile", "stat"]) ok(ops.has(`sA:${op}`), op);
    deepEqual(executor.log.filter((e) => e.startsWith("sB:")), ["sB:run"]);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});
