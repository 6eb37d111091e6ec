import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import { HarnessError } from "../../core/errors.ts";
import {
  markedSleep,
  processesWithArg,
  tempDir,
  TERM_GRACE_MS,
  uniqueToken,
  waitGone,
  waitMarked,
} from "../_helpers.ts";
import { probeContainment } from "../../jobs/process_containment.ts";

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
  const result = await new LocalExecutor({ pidNamespace: false }).run("pwd; ps -o pgid= -p $$", {
    cwd: dir.path,
    onOutput: (chunk) => void (out += decoder.decode(chunk)),
  });
  const [pwd, pgid] = out.trim().split("\n");
  equal(pwd, await Deno.realPath(dir.path));
  equal(Number(pgid), result.pid);
});

Deno.test("LocalExecutor.run() runs the shell as pid 2 of its own PID namespace when the host allows it", async () => {
  const containment = await probeContainment();
  let out = "";
  await new LocalExecutor().run("echo $$; ps -e -o pid= | wc -l", {
    onOutput: (chunk) => void (out += decoder.decode(chunk)),
  });
  const [pid, count] = out.trim().split("\n").map((line) => Number(line.trim()));
  if (containment.kind === "none") {
    ok(pid !== 2, containment.reason);
    return;
  }
  // pid 1 is the init; the namespace holds only the init, the shell, ps and wc.
  deepEqual([pid, count! <= 4], [2, true]);
});

for (const pidNamespace of [true, false]) {
  const how = pidNamespace ? "in a PID namespace" : "tracked by group and marker";
  Deno.test(`LocalExecutor.run() ${how} kills a process tree (child, grandchild, setsid daemon) on abort`, async () => {
    const token = uniqueToken();
    const controller = new AbortController();
    const run = new LocalExecutor({ pidNamespace }).run(
      `${markedSleep(token)} &
       bash -c '${markedSleep(token).replaceAll("'", "'\\''")} & wait' &
       (setsid ${markedSleep(token)} &)
       wait`,
      { signal: controller.signal, killGraceMs: 50 },
    );
    await waitMarked(token, 3);
    controller.abort();
    const result = await run;
    equal(result.aborted, true);
    deepEqual(await waitGone(token), []);
  });
}

Deno.test("LocalExecutor.run() in a PID namespace kills a double-forked daemon with a cleared environment", async () => {
  // Without a namespace here the tracked fallback cannot see such a daemon: nothing to prove.
  if ((await probeContainment()).kind === "none") return;
  const token = uniqueToken();
  const controller = new AbortController();
  const run = new LocalExecutor().run(
    `env -i setsid -f ${markedSleep(token)} >/dev/null 2>&1; (env -i setsid -f ${
      markedSleep(token)
    } &) ; sleep 300`,
    { signal: controller.signal, killGraceMs: 50 },
  );
  await waitMarked(token, 2);
  controller.abort();
  equal((await run).aborted, true);
  deepEqual(await waitGone(token), []);
});

Deno.test("LocalExecutor.run() kills the tree on timeout", async () => {
  const token = uniqueToken();
  const result = await new LocalExecutor().run(`${markedSleep(token)} & wait`, {
    timeoutMs: 200,
    // SIGTERM ends the tree; a long grace keeps a CPU-starved one from reading SIGKILL first.
    killGraceMs: TERM_GRACE_MS,
  });
  equal(result.timedOut, true);
  equal(result.signal, "SIGTERM");
  equal(result.exitCode, null);
  deepEqual(await waitGone(token), []);
});

Deno.test("LocalExecutor.run() terminates background stragglers when the shell exits", async () => {
  const token = uniqueToken();
  const result = await new LocalExecutor().run(`${markedSleep(token)} >/dev/null &`, {
    killGraceMs: 50,
  });
  equal(result.exitCode, 0);
  deepEqual(await waitGone(token), []);
});

Deno.test("LocalExecutor.run() returns by its timeout when an escaped descendant holds the output pipe", async () => {
  // Without a namespace a cleared-environment daemon escapes the tree and keeps stdout open.
  const token = uniqueToken();
  let out = "";
  const result = await new LocalExecutor({ pidNamespace: false }).run(
    `echo captured; env -i setsid -f ${markedSleep(token, 30)}; sleep 300`,
    {
      timeoutMs: 300,
      killGraceMs: 50,
      onOutput: (chunk) => void (out += decoder.decode(chunk)),
    },
  );
  try {
    equal(out, "captured\n");
    deepEqual([result.timedOut, result.pipeHeldOpen], [true, true]);
  } finally {
    for (const pid of processesWithArg(token)) Deno.kill(pid, "SIGKILL");
  }
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
