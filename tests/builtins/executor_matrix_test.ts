/**
 * The bash and fs (read, write, edit) behaviour suites over every executor of the matrix
 * (tests/_executor_matrix.ts). The workspace is read and written through the executor only.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { EXECUTOR_CASES } from "../_executor_matrix.ts";
import { executorHarness, outcomeText } from "../_executor_harness.ts";
import type { Executor } from "../../tools/executor.ts";

const decoder = new TextDecoder();

async function readText(executor: Executor, path: string): Promise<string> {
  return decoder.decode(await executor.readFile(path));
}

for (const matrixCase of EXECUTOR_CASES) {
  Deno.test(`executor matrix (${matrixCase.name}): bash`, async (t) => {
    const env = await matrixCase.setup();
    const spill = await Deno.makeTempDir({ prefix: "dsh_matrix_spill_" });
    try {
      await using h = await executorHarness(env.executor, env.workspace, { spillDir: spill });
      // The calls' own environment (a remote provider has one per session).
      const ex = env.executor.forSession(h.agent.sessionId);
      await t.step("merged output and the exit code marker", async () => {
        const outcome = await h.call("bash", { command: "echo out; echo err >&2; exit 3" });
        equal(outcome.isError, false);
        equal(outcomeText(outcome), "out\nerr\n[exit code: 3]");
      });
      await t.step("runs in the session's cwd", async () => {
        equal(outcomeText(await h.call("bash", { command: "pwd" })), env.workspace);
      });
      await t.step("a file a command writes is the executor's file", async () => {
        await h.call("bash", { command: "mkdir -p sub && printf 'from bash' > sub/made.txt" });
        equal(await readText(ex, `${env.workspace}/sub/made.txt`), "from bash");
        const info = await ex.stat(`${env.workspace}/sub`);
        equal(info?.isDirectory, true);
      });
      await t.step("a timeout kills the tree and says so", async () => {
        const outcome = await h.call("bash", { command: "sleep 60 & sleep 60", timeout_ms: 300 });
        match(outcomeText(outcome), /\[timed out after 300 ms\]/);
      });
      await t.step("long output keeps head and tail; the full output spills locally", async () => {
        const outcome = await h.call("bash", {
          command: "head -c 100000 /dev/zero | tr '\\0' a; echo; echo END",
        });
        const text = outcomeText(outcome);
        const spilled = /full output: (\S+)\]/.exec(text)?.[1];
        ok(spilled !== undefined, text.slice(0, 300));
        ok(text.endsWith("END"));
        // The spill file is the agent's own state: on this machine, whatever the executor.
        equal((await Deno.stat(spilled)).size, 100000 + "\nEND\n".length);
      });
    } finally {
      await Deno.remove(spill, { recursive: true }).catch(() => {});
      await env.close();
    }
  });

  Deno.test(`executor matrix (${matrixCase.name}): read, write and edit`, async (t) => {
    const env = await matrixCase.setup();
    const ws = env.workspace;
    try {
      await using h = await executorHarness(env.executor, ws);
      // The calls' own environment (a remote provider has one per session).
      const ex = env.executor.forSession(h.agent.sessionId);
      await t.step("write creates a file and its folders", async () => {
        const outcome = await h.call("write", { file_path: "a/b/new.txt", content: "one\ntwo\n" });
        equal(outcomeText(outcome), `Created file ${ws}/a/b/new.txt (2 lines)`);
        equal(await readText(ex, `${ws}/a/b/new.txt`), "one\ntwo\n");
      });
      await t.step("read numbers the lines", async () => {
        const text = outcomeText(await h.call("read", { file_path: "a/b/new.txt" }));
        ok(text.includes("<content>\n1: one\n2: two\n(End of file - total 2 lines)"), text);
      });
      await t.step("edit replaces through the executor, with the hunks in meta", async () => {
        const outcome = await h.call("edit", {
          file_path: `${ws}/a/b/new.txt`,
          old_string: "two",
          new_string: "three",
        });
        equal(outcome.isError, false, outcomeText(outcome));
        equal(await readText(ex, `${ws}/a/b/new.txt`), "one\nthree\n");
        const diffs = (outcome.meta as { diffs: unknown[] }).diffs;
        equal(diffs.length, 1);
      });
      await t.step("write over a file it saw shows the update diff", async () => {
        const outcome = await h.call("write", { file_path: "a/b/new.txt", content: "four\n" });
        equal(outcomeText(outcome), `Updated file ${ws}/a/b/new.txt (1 line)`);
        equal((outcome.meta as { operation: string }).operation, "update");
        equal(await readText(ex, `${ws}/a/b/new.txt`), "four\n");
      });
      await t.step("edit of an unread file is denied", async () => {
        await ex.writeFile(`${ws}/unread.txt`, "x\n");
        const outcome = await h.call("edit", {
          file_path: "unread.txt",
          old_string: "x",
          new_string: "y",
        });
        equal(outcome.isError, true);
        ok(outcomeText(outcome).includes(`edit requires reading "${ws}/unread.txt" first`));
        equal(await readText(ex, `${ws}/unread.txt`), "x\n");
      });
      await t.step("a change by a command since the read makes the edit stale", async () => {
        await ex.writeFile(`${ws}/stale.txt`, "before\n");
        await h.call("read", { file_path: "stale.txt" });
        await h.call("bash", { command: "echo changed > stale.txt" });
        const outcome = await h.call("edit", {
          file_path: "stale.txt",
          old_string: "changed",
          new_string: "mine",
        });
        equal(outcome.isError, true);
        match(outcomeText(outcome), /changed on disk since it was last read/);
        equal(await readText(ex, `${ws}/stale.txt`), "changed\n");
      });
      await t.step("refusals: folder, missing, binary, no match", async () => {
        const folder = await h.call("read", { file_path: "a" });
        equal(folder.error?.code, "IS_DIRECTORY");
        const missing = await h.call("read", { file_path: "nope.txt" });
        equal(missing.error?.code, "NOT_FOUND");
        match(outcomeText(missing), /file not found/);
        await ex.writeFile(`${ws}/bin.dat`, new Uint8Array([1, 0, 2]));
        equal((await h.call("read", { file_path: "bin.dat" })).error?.code, "BINARY_FILE");
        await ex.writeFile(`${ws}/m.txt`, "abc\n");
        await h.call("read", { file_path: "m.txt" });
        const none = await h.call("edit", {
          file_path: "m.txt",
          old_string: "zzz",
          new_string: "y",
        });
        equal(none.error?.code, "EDIT_MATCH");
        // The tool's own refusal (read-before-edit would deny first).
        await using bare = await executorHarness(env.executor, ws, { readBeforeEdit: false });
        const folderWrite = await bare.call("write", { file_path: "a", content: "x" });
        equal(folderWrite.error?.code, "IS_DIRECTORY");
      });
      await t.step("a FIFO is refused, never opened", async () => {
        await h.call("bash", { command: "mkfifo pipe" });
        const read = await h.call("read", { file_path: "pipe" });
        equal(read.error?.code, "NOT_A_FILE", outcomeText(read));
        await using bare = await executorHarness(env.executor, ws, { readBeforeEdit: false });
        const write = await bare.call("write", { file_path: "pipe", content: "x" });
        equal(write.error?.code, "NOT_A_FILE", outcomeText(write));
        const edit = await bare.call("edit", {
          file_path: "pipe",
          old_string: "a",
          new_string: "b",
        });
        equal(edit.error?.code, "IS_DIRECTORY", outcomeText(edit)); // "not a regular file"
        match(outcomeText(edit), /not a regular file/);
      });
      await t.step("edit refuses a file over its size cap", async () => {
        await h.call("bash", { command: "head -c 17000000 /dev/zero | tr '\\0' a > big.txt" });
        await h.call("read", { file_path: "big.txt", limit: 1 });
        const outcome = await h.call("edit", {
          file_path: "big.txt",
          old_string: "aaaa",
          new_string: "b",
        });
        equal(outcome.error?.code, "FILE_TOO_LARGE", outcomeText(outcome));
      });
    } finally {
      await env.close();
    }
  });
}

for (const matrixCase of EXECUTOR_CASES) {
  Deno.test(`executor matrix (${matrixCase.name}): background jobs`, async (t) => {
    const env = await matrixCase.setup();
    try {
      await using h = await executorHarness(env.executor, env.workspace, { jobs: true });
      const start = async (command: string) => {
        const started = await h.call("bash", { command, run_in_background: true });
        equal(started.isError, false, outcomeText(started));
        return (started.meta as { jobId: string }).jobId;
      };
      await t.step("a job's output and exit code reach job_output", async () => {
        const id = await start("echo bg; exit 4");
        let text = "";
        while (!text.includes("[exit code: 4]")) {
          text += outcomeText(await h.call("job_output", { job_id: id, wait_ms: 1000 }));
        }
        ok(text.includes("bg\n"), text);
      });
      await t.step("job_kill stops a running job", async () => {
        const id = await start("echo started; sleep 60");
        let text = "";
        while (!text.includes("started")) {
          text += outcomeText(await h.call("job_output", { job_id: id, wait_ms: 1000 }));
        }
        const killed = await h.call("job_kill", { job_id: id });
        equal(killed.isError, false, outcomeText(killed));
        deepEqual(
          [
            (killed.meta as { status: string }).status,
            (killed.meta as { outcome: string }).outcome,
          ],
          ["killed", "killed"],
        );
      });
    } finally {
      await env.close();
    }
  });
}
