import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { bwrapArgs, createExecutor, createSandboxExecutor } from "../../builtins/sandbox.ts";
import { processesWithArg, tempDir, waitMarked } from "../_helpers.ts";
import { waitForLines } from "./_fixtures.ts";

const decoder = new TextDecoder();

async function runIn(workspace: string, command: string) {
  const executor = await createSandboxExecutor({ workspace });
  let out = "";
  const result = await executor.run(command, {
    cwd: workspace,
    onOutput: (chunk) => void (out += decoder.decode(chunk)),
  });
  return { result, out };
}

Deno.test("createSandboxExecutor() lets the workspace be written", async () => {
  await using dir = await tempDir();
  const { result } = await runIn(dir.path, "echo inside > made.txt");
  equal(result.exitCode, 0);
  equal(await Deno.readTextFile(`${dir.path}/made.txt`), "inside\n");
});

Deno.test("createSandboxExecutor() makes a write outside the workspace fail", async () => {
  await using dir = await tempDir();
  await using outside = await tempDir();
  const { result, out } = await runIn(dir.path, `echo x > ${outside.path}/escape.txt`);
  equal(result.exitCode, 1);
  ok(out.includes("No such file or directory") || out.includes("Read-only file system"), out);
  await rejects(Deno.stat(`${outside.path}/escape.txt`), Deno.errors.NotFound);
  const system = await runIn(dir.path, "touch /usr/dsh_escape");
  equal(system.result.exitCode, 1);
  ok(system.out.includes("Read-only file system"), system.out);
});

Deno.test("createSandboxExecutor() blocks network connections", async () => {
  await using dir = await tempDir();
  // A listener on the host loopback: reachable from outside the sandbox, not from inside.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const accepted = (async () => {
    for await (const conn of listener) conn.close();
  })();
  try {
    const { result, out } = await runIn(
      dir.path,
      `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`,
    );
    ok(result.exitCode !== 0, out);
    ok(!out.includes("connected"), out);
    const host = await createExecutor({ sandbox: "off" });
    let hostOut = "";
    await host.run(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`, {
      onOutput: (chunk) => void (hostOut += decoder.decode(chunk)),
    });
    equal(hostOut, "connected\n");
  } finally {
    listener.close();
    await accepted.catch(() => {});
  }
});

Deno.test("createSandboxExecutor() gives a fresh /tmp and its own pid namespace", async () => {
  await using dir = await tempDir();
  const { out } = await runIn(dir.path, "ls -A /tmp | grep -v '^dsh_test_' | wc -l; echo $$");
  const [entries, pid] = out.trim().split("\n");
  equal(entries, "0");
  ok(Number(pid) < 10, `pid inside the namespace: ${pid}`);
});

Deno.test("BwrapExecutor.run() kills the sandboxed tree on abort", async () => {
  await using dir = await tempDir();
  const executor = await createSandboxExecutor({ workspace: dir.path });
  const seconds = 3000 + Math.floor(Math.random() * 1000);
  const controller = new AbortController();
  const run = executor.run(
    `sleep ${seconds} & sleep ${seconds} & echo ok > ${dir.path}/ready; wait`,
    {
      signal: controller.signal,
      killGraceMs: 50,
    },
  );
  await waitForLines(`${dir.path}/ready`, 1);
  // Both sleeps are found by their unique argument once they exec'd (a failure guard).
  equal((await waitMarked(String(seconds), 2)).length, 2);
  controller.abort();
  equal((await run).aborted, true);
  deepEqual(processesWithArg(String(seconds)), []);
});

Deno.test("createSandboxExecutor() fails clearly when bwrap is missing", async () => {
  await rejects(createSandboxExecutor({ workspace: "/tmp", bwrap: "dsh-no-such-bwrap" }), {
    name: "HarnessError",
    message:
      'Cannot create the workspace-write sandbox: Cannot run "dsh-no-such-bwrap": "dsh-no-such-bwrap" was not found on PATH; install bubblewrap (apt-get install bubblewrap) or set "sandbox" to "danger-full-access"',
  });
  await rejects(createExecutor({ workspace: "/tmp", bwrap: "dsh-no-such-bwrap" }), {
    name: "HarnessError",
  });
});

Deno.test("createExecutor() rejects an unknown sandbox mode and a relative workspace", async () => {
  await rejects(createExecutor({ sandbox: "none" as "off" }), {
    name: "TypeError",
    message:
      `Cannot create an executor as 'sandbox' must be one of "read-only", "workspace-write", "danger-full-access", "off": current value is "none"`,
  });
  await rejects(createSandboxExecutor({ workspace: "rel" }), {
    name: "TypeError",
    message:
      `Cannot create the sandbox as 'workspace' must be an absolute path: current value is "rel"`,
  });
});

Deno.test("bwrapArgs() binds the workspace after the /tmp tmpfs", () => {
  const args = bwrapArgs("/tmp/ws", undefined);
  ok(args.indexOf("--bind") > args.indexOf("--tmpfs"));
  for (
    const flag of [
      "--unshare-net",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      "--cap-drop",
      "--die-with-parent",
      "--new-session",
    ]
  ) {
    ok(args.includes(flag), flag);
  }
  deepEqual(args.slice(-3), ["--chdir", "/tmp/ws", "--"]);
});

Deno.test("hiddenPathList() adds entries and removes the ones starting with !", async () => {
  const { hiddenPathList, DEFAULT_HIDDEN_PATHS } = await import("../../builtins/sandbox.ts");
  const list = hiddenPathList(["~/.secrets", "!~/.docker"]);
  ok(list.includes("~/.secrets"));
  ok(!list.includes("~/.docker"));
  equal(list.length, DEFAULT_HIDDEN_PATHS.length);
});

Deno.test("bwrapArgs() binds extra roots writable only at workspace-write", () => {
  const write = bwrapArgs("/w", undefined, { writableRoots: ["/x"] });
  ok(write.join(" ").includes("--bind-try /x /x"));
  const read = bwrapArgs("/w", undefined, { level: "read-only", writableRoots: ["/x"] });
  ok(!read.includes("--bind") && !read.includes("--bind-try"));
  ok(read.join(" ").includes("--ro-bind /w /w"));
});
