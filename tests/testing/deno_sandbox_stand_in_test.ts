/**
 * The loopback Deno Sandbox stand-in, driven only through the real, unmodified
 * `@deno/sandbox@0.13.2` SDK: create, spawn with streamed output, exit status, kill, files.
 */
import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { Sandbox } from "@deno/sandbox";
import { type SandboxStandIn, startSandboxStandIn } from "../../testing/mod.ts";

function sdkOptions(standIn: SandboxStandIn) {
  return { sandboxEndpoint: standIn.endpoint, token: standIn.token };
}

async function run(sandbox: Sandbox, script: string) {
  const child = await sandbox.spawn("bash", {
    args: ["-c", script],
    stdout: "piped",
    stderr: "piped",
  });
  const output = await child.output();
  return {
    pid: child.pid,
    ...output,
    stdoutText: output.stdoutText ?? "",
    stderrText: output.stderrText ?? "",
  };
}

Deno.test("create answers an SDK-valid id, records the config, and spawn streams stdout, stderr and the exit code", async () => {
  await using standIn = await startSandboxStandIn();
  await using sandbox = await Sandbox.create({
    ...sdkOptions(standIn),
    allowNet: [],
    timeout: "10m",
    env: { GREETING: "hi" },
  });
  match(sandbox.id, /^sbx_ord_[0-9a-hjkmnp-z]{20}$/);
  const result = await run(sandbox, "echo out $GREETING; echo err >&2; pwd; exit 3");
  deepEqual(result.status, { success: false, code: 3, signal: null, oom: false });
  equal(result.stdoutText, "out hi\n/home/app\n");
  equal(result.stderrText, "err\n");
  const [info] = standIn.sandboxes();
  deepEqual(info?.config.allow_net, []);
  equal(typeof info?.config.stop_at_ms, "number");
  deepEqual(info?.env, { GREETING: "hi" });
  equal(info?.spawns[0]?.pid, result.pid);
});

Deno.test("kill delivers the signal to the command and the status names it", async () => {
  await using standIn = await startSandboxStandIn();
  await using sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  const child = await sandbox.spawn("sleep", { args: ["600"], stdout: "piped", stderr: "piped" });
  await child.kill("SIGKILL");
  deepEqual(await child.status, { success: false, code: 137, signal: "SIGKILL", oom: false });
  const term = await sandbox.spawn("sleep", { args: ["600"], stdout: "piped", stderr: "piped" });
  await term.kill();
  deepEqual(await term.status, { success: false, code: 143, signal: "SIGTERM", oom: false });
});

Deno.test("files: write, read and stat go to the sandbox's own folder; errors keep their class", async () => {
  await using standIn = await startSandboxStandIn();
  await using sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  await sandbox.fs.writeFile("/tmp/data.bin", new Uint8Array([0, 1, 2, 255]));
  deepEqual(await sandbox.fs.readFile("/tmp/data.bin"), new Uint8Array([0, 1, 2, 255]));
  await sandbox.fs.writeTextFile("notes.txt", "relative to home");
  equal(
    await Deno.readTextFile(standIn.path(sandbox.id, "/home/app/notes.txt")),
    "relative to home",
  );
  const stat = await sandbox.fs.stat("/tmp/data.bin");
  equal(stat.size, 4);
  ok(stat.isFile && !stat.isDirectory);
  ok(stat.mtime instanceof Date);
  // A command sees the same files.
  equal((await run(sandbox, "cat /home/app/notes.txt")).stdoutText, "relative to home");
  await rejects(sandbox.fs.readFile("/missing"), (error: Error & { code?: string }) => {
    equal(error.constructor.name, "NotFound");
    equal(error.code, "ENOENT");
    ok(!error.message.includes(standIn.rootDir), error.message);
    return true;
  });
});
