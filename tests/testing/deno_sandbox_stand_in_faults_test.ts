/**
 * The stand-in's lifetime and faults, through the real `@deno/sandbox` SDK: reattach finds the
 * files and the still-running processes (a detached job too), `session` and timed sandboxes
 * end when they should, PATCH extends, DELETE kills everything, and the fault switches (drop a
 * connection, drop mid-call, forget, expire) fail the way the SDK reports real failures.
 */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { Sandbox } from "@deno/sandbox";
import { startSandboxStandIn } from "../../testing/mod.ts";
import { exists, run, sdkOptions } from "./_stand_in_helpers.ts";
import { isAlive } from "../_helpers.ts";

const notFound = (error: Error & { status?: number; code?: string }) =>
  error.name === "ConnectionEstablishmentError" && error.status === 404 &&
  error.code === "SANDBOX_NOT_FOUND";

const closedByDrop = (error: Error & { code?: number }) =>
  error.name === "ConnectionClosedError" && error.code === 1006;

/** Starts a detached job that waits for /tmp/go, then writes /tmp/done; returns its pid. */
async function startDetachedJob(sandbox: Sandbox): Promise<number> {
  const script = "setsid nohup bash -c 'until [ -f /tmp/go ]; do sleep 0.02; done; " +
    "echo finished > /tmp/done.tmp && mv /tmp/done.tmp /tmp/done; sleep 600' " +
    "> /tmp/job.log 2>&1 < /dev/null & echo $!";
  return Number((await run(sandbox, script)).stdoutText.trim());
}

Deno.test("reattach: a new connection finds the files, a still-running spawn and a detached job that keeps working", async () => {
  await using standIn = await startSandboxStandIn();
  const first = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  await first.fs.writeTextFile("/home/app/kept.txt", "kept");
  const sleeper = await first.spawn("sleep", { args: ["600"], stdout: "piped", stderr: "piped" });
  const job = await startDetachedJob(first);
  await first.close();
  await using second = await Sandbox.connect(first.id, sdkOptions(standIn));
  equal(second.id, first.id);
  equal(await second.fs.readTextFile("/home/app/kept.txt"), "kept");
  ok(isAlive(sleeper.pid));
  ok(isAlive(job));
  // The job still works after the first connection is gone: release it and wait for its output.
  await second.fs.writeTextFile("/tmp/go", "");
  const waited = await run(second, "until [ -f /tmp/done ]; do sleep 0.02; done; cat /tmp/done");
  equal(waited.stdoutText, "finished\n");
  // It is signalable by process group from a later spawn.
  equal((await run(second, `kill -TERM -- -${job} && echo sent`)).stdoutText, "sent\n");
  const gone = `while ps -o stat= -p ${job} | grep -qv Z; do sleep 0.02; done; echo gone`;
  equal((await run(second, gone)).stdoutText, "gone\n");
  equal(standIn.sandboxes()[0]?.connections, 1);
  await second.kill();
  equal(isAlive(sleeper.pid), false);
});

Deno.test("a `session` sandbox ends with its last connection; reattach then gets a 404", async () => {
  await using standIn = await startSandboxStandIn();
  const sandbox = await Sandbox.create({ ...sdkOptions(standIn) });
  equal(standIn.sandboxes()[0]?.stopAtMs, null);
  const job = await startDetachedJob(sandbox);
  const root = standIn.path(sandbox.id, "/");
  await sandbox.close();
  equal(await standIn.ended(sandbox.id), "session");
  equal(isAlive(job), false);
  equal(await exists(root), false);
  await rejects(Sandbox.connect(sandbox.id, sdkOptions(standIn)), notFound);
});

Deno.test("a timed sandbox ends at stop_at_ms, closing its connection; PATCH (extendTimeout) moves the stop", async () => {
  await using standIn = await startSandboxStandIn();
  const extended = await Sandbox.create({ ...sdkOptions(standIn), timeout: "1s" });
  const until = await extended.extendTimeout("10m");
  ok(until.getTime() > Date.now() + 9 * 60_000);
  equal(standIn.sandboxes()[0]?.stopAtMs, until.getTime());
  // A sandbox created later with the same timeout: when it ends, the first one's original stop
  // has passed too, so the first one being alive shows the extension took.
  const timed = await Sandbox.create({ ...sdkOptions(standIn), timeout: "1s" });
  const child = await timed.spawn("sleep", { args: ["600"], stdout: "piped", stderr: "piped" });
  const pending = rejects(
    child.status,
    (e: Error & { code?: number }) => e.name === "ConnectionClosedError" && e.code === 1001,
  );
  equal(await standIn.ended(timed.id), "timeout");
  await timed.closed;
  await pending;
  equal(isAlive(child.pid), false);
  await rejects(Sandbox.connect(timed.id, sdkOptions(standIn)), notFound);
  equal((await run(extended, "echo alive")).stdoutText, "alive\n");
  await extended.kill();
});

Deno.test("DELETE (sandbox.kill) ends every process, detached ones too, and removes the folder", async () => {
  await using standIn = await startSandboxStandIn();
  const sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  const job = await startDetachedJob(sandbox);
  const sleeper = await sandbox.spawn("sleep", { args: ["600"], stdout: "piped", stderr: "piped" });
  const root = standIn.path(sandbox.id, "/");
  await sandbox.kill();
  equal(standIn.sandboxes()[0]?.ended, "killed");
  equal(isAlive(job), false);
  equal(isAlive(sleeper.pid), false);
  equal(await exists(root), false);
  await rejects(Sandbox.connect(sandbox.id, sdkOptions(standIn)), notFound);
});

Deno.test("dropConnections: pending calls fail with ConnectionClosedError (1006), the sandbox and its processes live on", async () => {
  await using standIn = await startSandboxStandIn();
  const sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  const child = await sandbox.spawn("sleep", { args: ["600"], stdout: "piped", stderr: "piped" });
  standIn.dropConnections(sandbox.id);
  await rejects(child.status, closedByDrop);
  await sandbox.closed;
  await rejects(
    sandbox.fs.readTextFile("/etc/hostname"),
    (e: Error) => e.name === "ConnectionClosedError",
  );
  await using again = await Sandbox.connect(sandbox.id, sdkOptions(standIn));
  ok(isAlive(child.pid));
  // processKill and processWait work on the pid from a new connection.
  equal((await run(again, `kill -0 ${child.pid} && echo running`)).stdoutText, "running\n");
  await again.kill();
});

Deno.test("dropOnNextCall: before running (the call has no effect) and after running (the effect stays, the answer is lost)", async () => {
  await using standIn = await startSandboxStandIn();
  const sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  standIn.dropOnNextCall("writeFile", { sandboxId: sandbox.id });
  await rejects(sandbox.fs.writeFile("/tmp/never", new Uint8Array([1])), closedByDrop);
  equal(await exists(standIn.path(sandbox.id, "/tmp/never")), false);
  const second = await Sandbox.connect(sandbox.id, sdkOptions(standIn));
  standIn.dropOnNextCall("spawn", { afterRunning: true });
  await rejects(
    second.spawn("bash", {
      args: ["-c", "echo ran > /tmp/ran.tmp && mv /tmp/ran.tmp /tmp/ran"],
      stdout: "piped",
      stderr: "piped",
    }),
    closedByDrop,
  );
  await using third = await Sandbox.connect(sandbox.id, sdkOptions(standIn));
  equal(
    (await run(third, "until [ -f /tmp/ran ]; do sleep 0.02; done; cat /tmp/ran")).stdoutText,
    "ran\n",
  );
  const calls = standIn.sandboxes()[0]?.calls ?? [];
  deepEqual(calls.filter((call) => call === "writeFile" || call === "spawn").slice(0, 2), [
    "writeFile",
    "spawn",
  ]);
  await third.kill();
});

Deno.test("dropOnNextCall during processWait: the process survives and a reattached client waits for it", async () => {
  await using standIn = await startSandboxStandIn();
  const sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  standIn.dropOnNextCall("processWait");
  const child = await sandbox.spawn("bash", {
    args: ["-c", "until [ -f /tmp/go ]; do sleep 0.02; done; exit 7"],
    stdout: "piped",
    stderr: "piped",
  });
  await rejects(child.status, closedByDrop);
  await using again = await Sandbox.connect(sandbox.id, sdkOptions(standIn));
  await again.fs.writeTextFile("/tmp/go", "");
  const finished = await run(
    again,
    `while kill -0 ${child.pid} 2>/dev/null; do sleep 0.02; done; echo done`,
  );
  equal(finished.stdoutText, "done\n");
  await again.kill();
});

Deno.test("forget and expire: the open connection closes, reattach is a 404, files and processes are gone", async () => {
  await using standIn = await startSandboxStandIn();
  for (const fault of ["forget", "expire"] as const) {
    const sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
    const job = await startDetachedJob(sandbox);
    const root = standIn.path(sandbox.id, "/");
    await standIn[fault](sandbox.id);
    await sandbox.closed;
    equal(await standIn.ended(sandbox.id), fault === "forget" ? "forgotten" : "timeout");
    equal(isAlive(job), false);
    equal(await exists(root), false);
    await rejects(Sandbox.connect(sandbox.id, sdkOptions(standIn)), notFound);
  }
});

Deno.test("close() ends every live sandbox and its processes", async () => {
  const standIn = await startSandboxStandIn();
  const sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  const job = await startDetachedJob(sandbox);
  await standIn.close();
  await sandbox.closed;
  equal(isAlive(job), false);
  equal(await exists(standIn.rootDir), false);
});
