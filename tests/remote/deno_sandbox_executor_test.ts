/**
 * The Deno Sandbox executor through the unmodified pinned SDK against the loopback stand-in:
 * every RunResult outcome, group kill, streaming, spawn, files and their errors.
 */
import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { code, remoteFixture, runText } from "./_remote_helpers.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import { HarnessError } from "../../core/errors.ts";
import { markedSleep, processesWithArg, uniqueToken, waitGone, waitMarked } from "../_helpers.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test(
  "remote run: exit codes, merged output in order, onSpawn and the exact RunResult",
  opts,
  async () => {
    await using fx = await remoteFixture();
    const session = fx.executor.forSession("s1");
    let spawned: number | undefined;
    const { result, text } = await runText(session, "echo out; echo err >&2; echo again; exit 3", {
      onSpawn: (pid) => spawned = pid,
    });
    equal(text, "out\nerr\nagain\n");
    deepEqual(result, { pid: spawned, exitCode: 3, signal: null, timedOut: false, aborted: false });
    const zero = await runText(session, "pwd");
    equal(zero.result.exitCode, 0);
    equal(zero.text, `${fx.workspace}\n`, "the workspace is at the host's absolute path");
    equal(fx.standIn.sandboxes().length, 1, "one sandbox, reused across calls");
  },
);

Deno.test(
  "remote run: a signal, a timeout and an abort kill the tree and say so",
  opts,
  async () => {
    await using fx = await remoteFixture();
    const session = fx.executor.forSession("s1");
    const killed = await session.run("kill -TERM $$");
    deepEqual([killed.exitCode, killed.signal, killed.timedOut], [null, "SIGTERM", false]);

    const token = uniqueToken("dsh-remote-timeout");
    const timed = await session.run(`${markedSleep(token)} & wait`, { timeoutMs: 300 });
    deepEqual([timed.timedOut, timed.aborted, timed.exitCode, timed.signal], [
      true,
      false,
      null,
      "SIGTERM",
    ]);
    deepEqual(await waitGone(token), [], "the background sleep went with the group");

    const controller = new AbortController();
    const abortToken = uniqueToken("dsh-remote-abort");
    const aborted = await session.run(`echo started; ${markedSleep(abortToken)}`, {
      signal: controller.signal,
      onOutput: () => controller.abort(),
    });
    equal(aborted.aborted, true);
    equal(aborted.timedOut, false);
    deepEqual(await waitGone(abortToken), []);
  },
);

Deno.test(
  "remote run: a grandchild that called setsid dies with the call (the run's marker)",
  opts,
  async () => {
    await using fx = await remoteFixture();
    const session = fx.executor.forSession("s1");
    const escaped = uniqueToken("dsh-remote-setsid");
    const background = uniqueToken("dsh-remote-bg");
    const { result } = await runText(
      session,
      `setsid ${markedSleep(escaped)} > /dev/null 2>&1 & ${
        markedSleep(background)
      } > /dev/null 2>&1 & echo ok`,
    );
    equal(result.exitCode, 0);
    deepEqual(await waitGone(escaped), [], "the setsid'd grandchild is gone");
    deepEqual(await waitGone(background), [], "the background child is gone");

    const controller = new AbortController();
    const held = uniqueToken("dsh-remote-held");
    const run = session.run(`setsid ${markedSleep(held)} & wait`, {
      signal: controller.signal,
      killGraceMs: 200,
    });
    await waitMarked(held, 1);
    controller.abort();
    equal((await run).aborted, true);
    deepEqual(await waitGone(held), []);
  },
);

Deno.test(
  "remote run: a descendant that escaped with a cleared env and held the pipe is reported",
  opts,
  async () => {
    await using fx = await remoteFixture();
    const session = fx.executor.forSession("s1");
    const token = uniqueToken("dsh-remote-escape");
    try {
      // The command returns once the escapee runs in its own session (out of the group's reach).
      const { result, text } = await runText(
        session,
        `env -i setsid bash -c 'exec -a ${token} sleep 300' &\n` +
          `until pgrep -f '^${token}' > /dev/null; do sleep 0.01; done; echo left`,
      );
      equal(text, "left\n");
      equal(result.exitCode, 0);
      equal(result.pipeHeldOpen, true, "the call returned although the escapee holds stdout");
    } finally {
      for (const pid of processesWithArg(token)) Deno.kill(pid, "SIGKILL");
    }
  },
);

Deno.test(
  "remote run: large output arrives whole, paced by onOutput's backpressure",
  opts,
  async () => {
    await using fx = await remoteFixture();
    const session = fx.executor.forSession("s1");
    let total = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    let last = 0;
    const result = await session.run("head -c 4000000 /dev/zero | tr '\\0' 'x'; printf END", {
      onOutput: async (chunk) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        total += chunk.length;
        last = chunk[chunk.length - 1]!;
        await new Promise((resolve) => setTimeout(resolve, 0));
        inFlight--;
      },
    });
    equal(result.exitCode, 0);
    equal(total, 4_000_003);
    equal(String.fromCharCode(last), "D");
    equal(maxInFlight, 1, "the next chunk waits for the previous delivery");
  },
);

Deno.test(
  "remote run: a missing cwd is NOT_FOUND with the local text; outside the roots is refused",
  opts,
  async () => {
    await using fx = await remoteFixture();
    const session = fx.executor.forSession("s1");
    const missing = `${fx.workspace}/no/such/dir`;
    const local = await new LocalExecutor().run("true", { cwd: missing }).catch((e) => e);
    const remote = await session.run("true", { cwd: missing }).catch((e) => e);
    ok(remote instanceof HarnessError);
    equal(remote.code, "NOT_FOUND");
    equal(remote.message, local.message);
    await rejects(session.run("true", { cwd: "/etc" }), (error: unknown) => {
      code("PERMISSION_DENIED")(error);
      match(
        (error as Error).message,
        /outside the workspace and writable roots of the Deno Sandbox sbx_/,
      );
      return true;
    });
  },
);

Deno.test("remote spawn: piped stdin, separate stdout and stderr, group kill", opts, async () => {
  await using fx = await remoteFixture();
  const session = fx.executor.forSession("s1");
  const cat = await session.spawn("bash", {
    args: ["-c", "cat; echo done >&2"],
    stdin: "piped",
  });
  const writer = cat.stdin!.getWriter();
  await writer.write(new TextEncoder().encode("hello sandbox\n"));
  await writer.close();
  const [out, err, status] = await Promise.all([
    new Response(cat.stdout).text(),
    new Response(cat.stderr).text(),
    cat.status,
  ]);
  equal(out, "hello sandbox\n");
  equal(err, "done\n");
  deepEqual(status, { success: true, code: 0, signal: null });

  const token = uniqueToken("dsh-remote-spawn");
  const tree = await session.spawn("bash", { args: ["-c", `${markedSleep(token)} & wait`] });
  await waitMarked(token, 1);
  await tree.kill("SIGKILL");
  const ended = await tree.status;
  equal(ended.success, false);
  await Promise.all([tree.stdout.cancel(), tree.stderr.cancel()]);
  deepEqual(await waitGone(token), [], "the child's whole group was killed");
  deepEqual(processesWithArg(token), []);
});

Deno.test("remote files: write (parents), read, stat, readDir, remove", opts, async () => {
  await using fx = await remoteFixture();
  const session = fx.executor.forSession("s1");
  const ws = fx.workspace;
  await session.writeFile(`${ws}/a/b/c.txt`, "deep");
  await session.writeFile(`${ws}/a/bin.dat`, new Uint8Array([0, 1, 2, 255]));
  equal(new TextDecoder().decode(await session.readFile(`${ws}/a/b/c.txt`)), "deep");
  deepEqual([...await session.readFile(`${ws}/a/bin.dat`)], [0, 1, 2, 255]);
  const id = fx.executor.forSession("s1").sandboxId!;
  equal(await Deno.readTextFile(fx.standIn.path(id, `${ws}/a/b/c.txt`)), "deep");
  const file = await session.stat(`${ws}/a/b/c.txt`);
  deepEqual([file?.isFile, file?.isDirectory, file?.size], [true, false, 4]);
  ok(typeof file?.mtimeMs === "number");
  equal((await session.stat(`${ws}/a`))?.isDirectory, true);
  equal(await session.stat(`${ws}/missing`), undefined);
  await session.run("ln -s bin.dat a/link");
  deepEqual(
    (await session.readDir(`${ws}/a`)).map((e) => [e.name, e.isFile, e.isDirectory, e.isSymlink]),
    [["b", false, true, false], ["bin.dat", true, false, false], ["link", false, false, true]],
  );
  await session.remove(`${ws}/a/bin.dat`);
  await session.remove(`${ws}/a/none`);
  equal(await session.stat(`${ws}/a/bin.dat`), undefined);
  await session.remove(`${ws}/a`, { recursive: true });
  equal(await session.stat(`${ws}/a`), undefined);
});

Deno.test("remote files: errors carry the local codes and name the sandbox", opts, async () => {
  await using fx = await remoteFixture();
  const session = fx.executor.forSession("s1");
  const ws = fx.workspace;
  await session.writeFile(`${ws}/dir/f.txt`, "x");
  const named = (expected: string, pattern: RegExp) => (error: unknown) => {
    code(expected)(error);
    match((error as Error).message, pattern);
    return true;
  };
  await rejects(
    session.readFile(`${ws}/nope.txt`),
    named("NOT_FOUND", /file not found in the Deno Sandbox sbx_/),
  );
  await rejects(session.readDir(`${ws}/nope`), code("NOT_FOUND"));
  await rejects(session.writeFile(`${ws}/dir`, "x"), named("IS_DIRECTORY", /it is a directory/));
  await rejects(session.remove(`${ws}/dir`), code("FS_ERROR"));
  await rejects(session.readFile("/etc/passwd"), code("PERMISSION_DENIED"));
  await rejects(session.writeFile(`${ws}/../escape.txt`, "x"), code("PERMISSION_DENIED"));
  equal(
    new TextDecoder().decode(await session.readFile("dir/f.txt")),
    "x",
    "relative to the workspace",
  );
});
