/**
 * The loopback Deno Sandbox stand-in, driven only through the real, unmodified
 * `@deno/sandbox@0.13.2` SDK: create, spawn with streamed output, stdin, exit status, kill,
 * files, the bwrap box (own file system, clean env, deno inside), auth and recorded config.
 * Reconnect, timeouts and faults are in deno_sandbox_stand_in_faults_test.ts.
 */
import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { Sandbox } from "@deno/sandbox";
import { startSandboxStandIn } from "../../testing/mod.ts";
import { run, sdkOptions } from "./_stand_in_helpers.ts";

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
  deepEqual(info?.envSets, [{ key: "GREETING", value: "hi" }]);
  equal(info?.spawns[0]?.pid, result.pid);
  // allowNet: [] gives the box no network but loopback.
  const interfaces = await run(sandbox, "awk 'NR>2{print $1}' /proc/net/dev");
  equal(interfaces.stdoutText, "lo:\n");
  deepEqual(info?.spawns[0]?.args, ["-c", "echo out $GREETING; echo err >&2; pwd; exit 3"]);
});

Deno.test("the SDK reads DENO_SANDBOX_ENDPOINT and DENO_DEPLOY_TOKEN per call, and DENO_DEPLOY_ORG is recorded", async () => {
  await using standIn = await startSandboxStandIn();
  const saved = ["DENO_SANDBOX_ENDPOINT", "DENO_DEPLOY_TOKEN", "DENO_DEPLOY_ORG"].map((
    name,
  ) => [name, Deno.env.get(name)] as const);
  Deno.env.set("DENO_SANDBOX_ENDPOINT", standIn.endpoint);
  Deno.env.set("DENO_DEPLOY_TOKEN", standIn.token);
  Deno.env.set("DENO_DEPLOY_ORG", "acme");
  try {
    await using sandbox = await Sandbox.create({ timeout: "10m" });
    equal((await run(sandbox, "echo ok")).stdoutText, "ok\n");
    equal(standIn.sandboxes()[0]?.org, "acme");
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
});

Deno.test("a wrong token is refused on the upgrade and the SDK names it InvalidTokenError", async () => {
  await using standIn = await startSandboxStandIn();
  await rejects(
    Sandbox.create({ sandboxEndpoint: standIn.endpoint, token: "ddo_wrong", timeout: "10m" }),
    (error: Error) => error.name === "InvalidTokenError",
  );
  equal(standIn.sandboxes().length, 0);
});

Deno.test("kill delivers the signal to the command (per pid) and the status names it", async () => {
  await using standIn = await startSandboxStandIn();
  await using sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  const child = await sandbox.spawn("sleep", { args: ["600"], stdout: "piped", stderr: "piped" });
  await child.kill("SIGKILL");
  deepEqual(await child.status, { success: false, code: 137, signal: "SIGKILL", oom: false });
  const term = await sandbox.spawn("sleep", { args: ["600"], stdout: "piped", stderr: "piped" });
  await term.kill();
  deepEqual(await term.status, { success: false, code: 143, signal: "SIGTERM", oom: false });
  // A shell that signals itself reads the same way.
  equal((await run(sandbox, "kill -TERM $$")).status.signal, "SIGTERM");
  // Killing a process that has ended is not an error for the SDK (ENOENT is swallowed).
  await term.kill();
});

Deno.test("the reported pid is the command's own: setsid makes it the group leader, and a group kill from another spawn ends the tree", async () => {
  await using standIn = await startSandboxStandIn();
  await using sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  const leader = await sandbox.spawn("setsid", {
    args: ["bash", "-c", "sleep 600 & echo $$ $(ps -o pgid= $$); wait"],
    stdout: "piped",
    stderr: "piped",
  });
  const reader = leader.stdout!.pipeThrough(new TextDecoderStream()).getReader();
  const first = (await reader.read()).value ?? "";
  const [shellPid, pgid] = first.trim().split(/\s+/).map(Number);
  equal(shellPid, leader.pid);
  equal(pgid, leader.pid);
  const killer = await run(sandbox, `kill -TERM -- -${leader.pid}; echo sent`);
  equal(killer.stdoutText, "sent\n");
  equal((await leader.status).signal, "SIGTERM");
  // Every member of the group dies (a zombie awaiting the host's init counts as dead).
  const gone = `while ps -o stat= -g ${leader.pid} | grep -qv Z; do sleep 0.01; done; echo gone`;
  equal((await run(sandbox, gone)).stdoutText, "gone\n");
  await reader.cancel();
});

Deno.test("large output streams intact (10 MB of random bytes, same hash on both sides)", async () => {
  await using standIn = await startSandboxStandIn();
  await using sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  const child = await sandbox.spawn("bash", {
    args: ["-c", "head -c 10000000 /dev/urandom | tee /tmp/r.bin"],
    stdout: "piped",
    stderr: "piped",
  });
  const output = await child.output();
  equal(output.stdout?.length, 10_000_000);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", output.stdout!));
  const hex = Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
  equal((await run(sandbox, "sha256sum /tmp/r.bin | cut -d' ' -f1")).stdoutText, `${hex}\n`);
});

Deno.test("stdin piped from the SDK reaches the command and its end closes the pipe", async () => {
  await using standIn = await startSandboxStandIn();
  await using sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  const child = await sandbox.spawn("bash", {
    args: ["-c", "wc -c; tr a-z A-Z < /dev/null"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const writer = child.stdin!.getWriter();
  await writer.write(new TextEncoder().encode("hello "));
  await writer.write(new TextEncoder().encode("world"));
  await writer.close();
  const output = await child.output();
  equal(output.stdoutText?.trim(), "11");
  equal(output.status.success, true);
});

Deno.test("spawn refuses a missing program or cwd with NotFound, like Deno's own spawn", async () => {
  await using standIn = await startSandboxStandIn();
  await using sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  await rejects(
    sandbox.spawn("no-such-program", { stdout: "piped", stderr: "piped" }),
    (error: Error) =>
      error.constructor.name === "NotFound" && /no-such-program/.test(error.message),
  );
  await rejects(
    sandbox.spawn("true", { cwd: "/nowhere", stdout: "piped", stderr: "piped" }),
    (error: Error) => error.constructor.name === "NotFound" && /\/nowhere/.test(error.message),
  );
});

Deno.test("the box: / is the sandbox's own folder, host system dirs are read-only, coreutils, setsid and deno work inside", async () => {
  await using standIn = await startSandboxStandIn();
  await using a = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  await using b = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  await a.fs.writeTextFile("/tmp/only-a.txt", "a");
  equal(
    (await run(b, "test -e /tmp/only-a.txt && echo seen || echo unseen")).stdoutText,
    "unseen\n",
  );
  const host = await Deno.makeTempFile({ dir: "/tmp", prefix: "host-only-" });
  try {
    equal((await run(a, `test -e ${host} && echo seen || echo unseen`)).stdoutText, "unseen\n");
  } finally {
    await Deno.remove(host);
  }
  const ro = await run(a, "touch /usr/standin-probe 2>&1; echo $?");
  match(ro.stdoutText, /Read-only file system\n1\n$/);
  const tools = await run(
    a,
    "cd /tmp && echo x > f && sha256sum f | cut -c1-8 && find /tmp -name f && tail -n1 f && setsid true && echo setsid-ok",
  );
  equal(tools.stdoutText, "73cb3858\n/tmp/f\nx\nsetsid-ok\n");
  const deno = await a.spawn("deno", {
    args: ["eval", "console.log(6 * 7)"],
    stdout: "piped",
    stderr: "piped",
  });
  equal((await deno.output()).stdoutText, "42\n");
});

Deno.test("deno.run runs code in the box with its script args; eval (the REPL) is refused as not emulated", async () => {
  await using standIn = await startSandboxStandIn();
  await using sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  const runtime = await sandbox.deno.run({
    code: "console.log(Deno.args.join('+'), Deno.cwd());",
    scriptArgs: ["a", "b"],
    stdout: "piped",
    stderr: "piped",
  });
  const output = await runtime.output();
  equal(output.stdoutText, "a+b /home/app\n");
  equal(output.status.success, true);
  equal(await runtime.httpReady, false);
  await rejects(sandbox.deno.eval("1 + 1"), (e: Error) => e.name === "RpcError");
});

async function hostInterfaces(): Promise<string> {
  const lines = (await Deno.readTextFile("/proc/net/dev")).split("\n").slice(2);
  return lines.filter((line) => line.trim() !== "").map((line) =>
    `${line.trim().split(/\s+/)[0]}\n`
  )
    .join("");
}

Deno.test("commands get a clean env: PATH and HOME, the sandbox env, never the host's variables or secrets", async () => {
  await using standIn = await startSandboxStandIn();
  const previous = Deno.env.get("DEEPSEEK_API_KEY");
  Deno.env.set("DEEPSEEK_API_KEY", "sk-host-model-key");
  try {
    await using sandbox = await Sandbox.create({
      ...sdkOptions(standIn),
      timeout: "10m",
      allowNet: ["api.example.com"],
      secrets: { API_TOKEN: { hosts: ["api.example.com"], value: "s3cret-value" } },
    });
    const env = (await run(sandbox, "env")).stdoutText;
    ok(!env.includes("sk-host-model-key"), env);
    ok(!env.includes("s3cret-value"), env);
    match(env, /^HOME=\/home\/app$/m);
    match(env, /^PATH=.*\/usr\/bin/m);
    // A non-empty allowNet shares the host's network (no per-host filtering in the stand-in).
    const interfaces = await run(sandbox, "awk 'NR>2{print $1}' /proc/net/dev");
    equal(interfaces.stdoutText, await hostInterfaces());
    const [info] = standIn.sandboxes();
    deepEqual(info?.config.allow_net, ["api.example.com"]);
    deepEqual(info?.config.secrets, {
      API_TOKEN: { hosts: ["api.example.com"], value: "s3cret-value" },
    });
    ok(info?.spawns.every((spawn) => !("DEEPSEEK_API_KEY" in spawn.env)));
    deepEqual(info?.envSets, []);
  } finally {
    if (previous === undefined) Deno.env.delete("DEEPSEEK_API_KEY");
    else Deno.env.set("DEEPSEEK_API_KEY", previous);
  }
});

Deno.test("without bwrap on PATH, or without -A, the stand-in refuses to start with a clear error", async () => {
  const module = JSON.stringify(
    new URL("../../testing/deno_sandbox_stand_in.ts", import.meta.url).href,
  );
  const script = `import { startSandboxStandIn } from ${module};
try { await startSandboxStandIn(); console.log("started"); } catch (e) { console.log(e.message); }`;
  const noBwrap = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", script],
    env: { PATH: "/nonexistent" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  match(new TextDecoder().decode(noBwrap.stdout), /bubblewrap \('bwrap'\) is not on PATH/);
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(file, script);
    const narrow = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--allow-read", "--allow-run", "--allow-net", "--allow-write", file],
      stdout: "piped",
      stderr: "piped",
    }).output();
    match(new TextDecoder().decode(narrow.stdout), /cannot read \/proc .* run with -A/);
  } finally {
    await Deno.remove(file);
  }
});
