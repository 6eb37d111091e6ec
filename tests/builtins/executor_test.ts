import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { LocalExecutor } from "../../builtins/executor.ts";
import { HarnessError } from "../../core/errors.ts";
import { isAlive, tempDir } from "../_helpers.ts";
import { waitForLines } from "./_fixtures.ts";

const decoder = new TextDecoder();

Deno.test("LocalExecutor.run() merges stderr into stdout in order and reports the exit code", async () => {
  let out = "";
  const result = await new LocalExecutor().run("echo one; echo two >&2; echo three; exit 3", {
    onOutput: (chunk) => void (out += decoder.decode(chunk)),
  });
  equal(out, "one\ntwo\nthree\n");
  deepEqual([result.exitCode, result.signal, result.timedOut, result.aborted], [
    3,
    null,
    false,
    false,
  ]);
});

Deno.test("LocalExecutor.run() runs in the given cwd in its own process group", async () => {
  await using dir = await tempDir();
  let out = "";
  const result = await new LocalExecutor().run("pwd; ps -o pgid= -p $$", {
    cwd: dir.path,
    onOutput: (chunk) => void (out += decoder.decode(chunk)),
  });
  const [pwd, pgid] = out.trim().split("\n");
  equal(pwd, await Deno.realPath(dir.path));
  equal(Number(pgid), result.pid);
});

Deno.test("LocalExecutor.run() kills a process tree (child, grandchild, escaped daemon) on abort", async () => {
  await using dir = await tempDir();
  const pids = `${dir.path}/pids`;
  const controller = new AbortController();
  const run = new LocalExecutor().run(
    `sleep 300 & echo $! >> ${pids}
     bash -c 'sleep 300 & echo $! >> ${pids}; wait' &
     (setsid sleep 300 & echo $! >> ${pids})
     echo $$ >> ${pids}
     wait`,
    { signal: controller.signal, killGraceMs: 50 },
  );
  const seen = (await waitForLines(pids, 4)).map(Number);
  ok(seen.every(isAlive));
  controller.abort();
  const result = await run;
  equal(result.aborted, true);
  deepEqual(seen.filter(isAlive), []);
});

Deno.test("LocalExecutor.run() kills the tree on timeout", async () => {
  await using dir = await tempDir();
  const pids = `${dir.path}/pids`;
  const result = await new LocalExecutor().run(`sleep 300 & echo $! > ${pids}; wait`, {
    timeoutMs: 200,
    killGraceMs: 50,
  });
  equal(result.timedOut, true);
  equal(result.signal, "SIGTERM");
  equal(result.exitCode, null);
  equal(isAlive(Number(await Deno.readTextFile(pids))), false);
});

Deno.test("LocalExecutor.run() terminates background stragglers when the shell exits", async () => {
  await using dir = await tempDir();
  const pids = `${dir.path}/pids`;
  const result = await new LocalExecutor().run(`sleep 300 & echo $! > ${pids}`, {
    killGraceMs: 50,
  });
  equal(result.exitCode, 0);
  equal(isAlive(Number(await Deno.readTextFile(pids))), false);
});

Deno.test("LocalExecutor.run() rejects with the abort reason before spawning", async () => {
  const reason = new Error("stop");
  await rejects(
    new LocalExecutor().run("true", { signal: AbortSignal.abort(reason) }),
    (error) => error === reason,
  );
});

Deno.test("LocalExecutor.run() refuses a missing working directory", async () => {
  await rejects(new LocalExecutor().run("true", { cwd: "/nonexistent/dir" }), {
    name: "HarnessError",
    message:
      'Cannot run the command: working directory "/nonexistent/dir" is not an existing directory',
  });
});

Deno.test("LocalExecutor file ops round-trip and create parent directories", async () => {
  await using dir = await tempDir();
  const executor = new LocalExecutor();
  const path = `${dir.path}/a/b/c.txt`;
  equal(await executor.stat(path), undefined);
  await executor.writeFile(path, "hello");
  equal(decoder.decode(await executor.readFile(path)), "hello");
  const info = await executor.stat(path);
  deepEqual([info?.isFile, info?.isDirectory, info?.size], [true, false, 5]);
  await rejects(executor.readFile(`${dir.path}/missing`), {
    name: "HarnessError",
    message: `Cannot read "${dir.path}/missing": file not found`,
  });
});

Deno.test({
  name: "LocalExecutor turns missing Deno permissions into errors naming the permission",
  permissions: { read: true, write: false, run: false },
  async fn() {
    const executor = new LocalExecutor();
    const error = await executor.writeFile("/tmp/dsh_denied.txt", "x").catch((e) => e);
    ok(error instanceof HarnessError);
    equal(error.code, "PERMISSION_DENIED");
    equal(
      error.message,
      'Cannot write "/tmp/dsh_denied.txt": Deno denied it: add --allow-write=/tmp/dsh_denied.txt to the deno command',
    );
    await rejects(executor.run("true"), {
      name: "HarnessError",
      message:
        'Cannot run "bash" through "setsid": Deno denied it: add --allow-run=setsid to the deno command',
    });
  },
});
