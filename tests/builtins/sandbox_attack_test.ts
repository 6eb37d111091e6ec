/**
 * Attack tests for the bubblewrap profile (SECURITY.md): each test tries one escape route for
 * real, from inside the sandbox, and checks on the host that it failed. CI runs them as root,
 * where bwrap keeps every capability unless told otherwise; the key ones run again as a normal
 * user (uid 65534 through `setpriv`).
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import {
  bwrapArgs,
  type BwrapExecutor,
  createSandboxExecutor,
  DEFAULT_HIDDEN_PATHS,
} from "../../builtins/sandbox.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import { McpClient } from "../../mcp/client.ts";
import { subprocessRuntime } from "../../codemode/subprocess_runtime.ts";
import { tempDir, waitGone, waitMarked } from "../_helpers.ts";
import { waitForLines } from "./_fixtures.ts";
import { runBwrap } from "./_sandbox_helpers.ts";

const decoder = new TextDecoder();
const isRoot = Deno.uid() === 0;

async function sandbox(
  workspace: string,
  level?: "read-only",
  host: { home?: string; runtimeDir?: string } = {},
): Promise<BwrapExecutor> {
  return await createSandboxExecutor({ workspace, ...(level ? { level } : {}), ...host });
}

async function run(
  executor: LocalExecutor,
  command: string,
  cwd?: string,
): Promise<{ code: number | null; out: string }> {
  let out = "";
  const result = await executor.run(command, {
    ...(cwd === undefined ? {} : { cwd }),
    onOutput: (chunk) => void (out += decoder.decode(chunk)),
  });
  return { code: result.exitCode, out };
}

/** Runs `script` inside the profile as uid/gid 65534 (bwrap unprivileged, through a user namespace). */
async function runAsNobody(
  workspace: string,
  script: string,
  home: string,
): Promise<{ code: number; out: string }> {
  // The profile as the agent would build it for this user: its own home's credentials hidden.
  const { profile } = await sandbox(workspace);
  const hidden = [{ path: `${home}/.ssh`, kind: "dir" as const }];
  return await runBwrap(
    [
      "bwrap",
      ...bwrapArgs(workspace, workspace, { ...profile, hidden }),
      "bash",
      "-c",
      `exec 2>&1\n${script}`,
    ],
    ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"],
  );
}

/** A shell line that connects to a Unix socket (python3, readable by any user). */
function unixProbe(path: string): string {
  return `python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("unix-connected")' ${path}`;
}

function hostNs(kind: string): string {
  return Deno.readLinkSync(`/proc/self/ns/${kind}`);
}

Deno.test("attack: remounting / read-write fails and nothing is written on the host", async () => {
  await using ws = await tempDir();
  const target = `/dsh_escape_${crypto.randomUUID()}`;
  const executor = await sandbox(ws.path);
  const { code, out } = await run(
    executor,
    `mount -o remount,rw / && echo remounted; mount -o remount,rw /usr; touch ${target} && echo wrote`,
    ws.path,
  );
  ok(code !== 0 || !out.includes("wrote"), out);
  ok(!out.includes("remounted"), out);
  ok(!out.includes("wrote"), out);
  equal(await Deno.stat(target).then(() => true, () => false), false);
});

Deno.test("attack: kernel knobs in /proc and /sys stay read-only (core_pattern, sysrq, uevent)", async () => {
  await using ws = await tempDir();
  const before = await Deno.readTextFile("/proc/sys/kernel/core_pattern");
  const executor = await sandbox(ws.path);
  // Each write puts back the value it read: harmless on the host should it ever get through.
  const { out } = await run(
    executor,
    [
      "v=$(cat /proc/sys/kernel/core_pattern); printf '%s\\n' \"$v\" > /proc/sys/kernel/core_pattern && echo core-changed",
      "test -w /proc/sysrq-trigger && test ! -c /proc/sysrq-trigger && echo sysrq-writable",
      "v=$(cat /sys/kernel/uevent_helper); printf '%s\\n' \"$v\" > /sys/kernel/uevent_helper && echo uevent-changed",
      "test -w /sys/fs/cgroup/cgroup.procs && echo cgroup-writable",
      "cat /proc/kcore /proc/keys 2>/dev/null | head -c 1 | wc -c",
    ].join("\n"),
    ws.path,
  );
  ok(!/changed|writable/.test(out), out);
  match(out, /^0$/m);
  equal(await Deno.readTextFile("/proc/sys/kernel/core_pattern"), before);
});

Deno.test("attack: umount /proc + nsenter into the host network namespace fails", async () => {
  await using ws = await tempDir();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  let connections = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      connections++;
      conn.close();
    }
  })();
  try {
    const executor = await sandbox(ws.path);
    const hostPid = Deno.pid;
    const { out } = await run(
      executor,
      [
        "umount -l /proc && echo unmounted",
        `test -e /proc/${hostPid}/ns/net && echo host-pid-visible`,
        "for ns in /proc/1/ns/net /proc/*/ns/net; do " +
        `nsenter --net=$ns bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}' 2>/dev/null && echo escaped-via-$ns; done`,
        `nsenter --target ${hostPid} --net true && echo nsenter-ok`,
        "true",
      ].join("\n"),
      ws.path,
    );
    ok(!out.includes("unmounted"), out);
    ok(!out.includes("host-pid-visible"), out);
    ok(!out.includes("escaped"), out);
    ok(!out.includes("nsenter-ok"), out);
    equal(connections, 0);
  } finally {
    listener.close();
    await accepting.catch(() => {});
  }
});

Deno.test("attack: host Unix sockets in /run, $XDG_RUNTIME_DIR and /tmp are unreachable", async () => {
  await using ws = await tempDir();
  // A runtime dir outside /tmp and /run, the way a desktop session has /run/user/<uid>.
  const xdg = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "dsh_xdg_" });
  const paths = [
    `/run/dsh_attack_${crypto.randomUUID().slice(0, 8)}.sock`,
    join(xdg, "agent.sock"),
    join(await Deno.makeTempDir({ prefix: "dsh_sock_" }), "docker.sock"),
  ];
  const listeners = paths.map((path) => Deno.listen({ transport: "unix", path }));
  let connections = 0;
  const accepting = listeners.map(async (listener) => {
    for await (const conn of listener) {
      connections++;
      conn.close();
    }
  });
  const probe = (path: string) =>
    `DENO_DIR=/tmp/deno ${Deno.execPath()} eval --quiet ` +
    `'await Deno.connect({ transport: "unix", path: "${path}" }); console.log("connected")' 2>&1 | tail -1`;
  try {
    const executor = await sandbox(ws.path, undefined, { runtimeDir: xdg });
    for (const path of paths) {
      const { out } = await run(executor, `ls -la ${path}; ${probe(path)}`, ws.path);
      ok(!out.includes("connected"), `${path}: ${out}`);
    }
    equal(connections, 0);
    // The same probe on the host reaches them: the sockets are real.
    const host = new LocalExecutor();
    const { out } = await run(host, probe(paths[0]!));
    match(out, /connected/);
  } finally {
    for (const listener of listeners) listener.close();
    await Promise.allSettled(accepting);
    for (const path of paths) await Deno.remove(path).catch(() => {});
    await Deno.remove(xdg, { recursive: true }).catch(() => {});
  }
});

Deno.test("attack: SysV shared memory of the host is invisible and untouchable", async () => {
  await using ws = await tempDir();
  const made = await new Deno.Command("ipcmk", { args: ["-M", "4096"] }).output();
  const id = decoder.decode(made.stdout).match(/(\d+)/)?.[1];
  ok(id !== undefined, decoder.decode(made.stdout));
  try {
    const hostList = await new Deno.Command("ipcs", { args: ["-m"] }).output();
    ok(decoder.decode(hostList.stdout).includes(` ${id} `));
    const executor = await sandbox(ws.path);
    const { out } = await run(
      executor,
      `ipcs -m | awk '/^0x/ { print "seg", $2 }'; ipcs -m -i ${id}; ipcrm -m ${id} && echo removed`,
      ws.path,
    );
    ok(!out.includes(`seg ${id}\n`), out);
    ok(!out.includes(`shmid=${id}`), out);
    ok(!out.includes("removed"), out);
    equal((await new Deno.Command("ipcs", { args: ["-m", "-i", id!] }).output()).success, true);
    const { out: ns } = await run(executor, "readlink /proc/self/ns/ipc", ws.path);
    ok(ns.trim() !== hostNs("ipc"), ns);
  } finally {
    await new Deno.Command("ipcrm", { args: ["-m", id!] }).output();
  }
});

Deno.test("attack: the hostname is not shared and cannot be changed", async () => {
  await using ws = await tempDir();
  const before = Deno.hostname();
  const executor = await sandbox(ws.path);
  const { out } = await run(
    executor,
    "hostname dsh-evil && echo changed; readlink /proc/self/ns/uts",
    ws.path,
  );
  ok(!out.includes("changed"), out);
  equal(Deno.hostname(), before);
  ok(!out.includes(hostNs("uts")), out);
});

Deno.test("attack: no capability survives inside (CapEff, CapPrm, CapBnd, CapAmb are 0)", async () => {
  await using ws = await tempDir();
  const executor = await sandbox(ws.path);
  const { out } = await run(executor, "grep ^Cap /proc/self/status", ws.path);
  for (const name of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]) {
    match(out, new RegExp(`${name}:\\s+0000000000000000`), out);
  }
  // A nested user namespace would hand them back: it is refused.
  const nested = await run(executor, "unshare -Ur true && echo nested", ws.path);
  ok(!nested.out.includes("nested"), nested.out);
});

Deno.test("attack: the namespaces differ from the host's (pid, net, ipc, uts, cgroup)", async () => {
  await using ws = await tempDir();
  const executor = await sandbox(ws.path);
  const kinds = ["pid", "net", "ipc", "uts", "cgroup"];
  const { out } = await run(
    executor,
    kinds.map((k) => `readlink /proc/self/ns/${k}`).join("; "),
    ws.path,
  );
  const inside = out.trim().split("\n");
  kinds.forEach((kind, i) => ok(inside[i] !== hostNs(kind), `${kind}: ${inside[i]}`));
});

Deno.test("attack: well-known credential folders and files are hidden", async () => {
  await using ws = await tempDir();
  // Outside /tmp, which the sandbox replaces with its own.
  const homePath = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "dsh_home_" });
  await using home = {
    path: homePath,
    [Symbol.asyncDispose]: () => Deno.remove(homePath, { recursive: true }).catch(() => {}),
  };
  const secrets: Record<string, string> = {
    ".ssh/id_ed25519": "PRIVATE-SSH",
    ".aws/credentials": "PRIVATE-AWS",
    ".config/gh/hosts.yml": "PRIVATE-GH",
    ".docker/config.json": "PRIVATE-DOCKER",
    ".kube/config": "PRIVATE-KUBE",
    ".gnupg/private-keys-v1.d/k.key": "PRIVATE-GPG",
    ".netrc": "PRIVATE-NETRC",
    ".git-credentials": "PRIVATE-GIT",
    ".npmrc": "PRIVATE-NPM",
  };
  for (const [path, content] of Object.entries(secrets)) {
    await Deno.mkdir(join(home.path, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(home.path, path), content);
  }
  await Deno.writeTextFile(join(home.path, "notes.txt"), "visible");
  const executor = await sandbox(ws.path, undefined, { home: home.path });
  const { out } = await run(
    executor,
    `cd ${home.path}; cat notes.txt; echo; grep -r PRIVATE . ; cat .netrc .npmrc; ls -A .ssh .aws; echo done`,
    ws.path,
  );
  ok(out.startsWith("visible"), out);
  ok(!out.includes("PRIVATE"), out);
  match(out, /done/);
  // Writes into a hidden folder fail too (it is an empty read-only tmpfs).
  const write = await run(executor, `echo x > ${home.path}/.ssh/authorized_keys && echo wrote`);
  ok(!write.out.includes("wrote"), write.out);
  ok(DEFAULT_HIDDEN_PATHS.includes("~/.ssh"));
});

Deno.test("attack: root in the box cannot read the host's password hashes or ssh host keys", async () => {
  equal(Deno.uid(), 0, "CI and these machines run as root: this attack needs root");
  await using ws = await tempDir();
  const executor = await sandbox(ws.path);
  const targets = ["/etc/shadow", "/etc/gshadow", "/etc/ssh/ssh_host_ed25519_key"];
  const present = [];
  for (const path of targets) {
    if ((await Deno.stat(path).catch(() => undefined))?.isFile) present.push(path);
  }
  ok(present.includes("/etc/shadow"), "the host has /etc/shadow to steal");
  ok((await Deno.readTextFile("/etc/shadow")).length > 0, "root outside reads it");
  const { out } = await run(
    executor,
    present.map((path) => `printf '%s:' ${path}; wc -c < ${path}`).join("; ") + "; echo done",
    ws.path,
  );
  for (const path of present) match(out, new RegExp(`${path}:0\\n`));
  match(out, /done/);
});

Deno.test("attack: the network is unreachable (host loopback and outside)", async () => {
  await using ws = await tempDir();
  const listener = Deno.listen({ hostname: "0.0.0.0", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  let connections = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      connections++;
      conn.close();
    }
  })();
  try {
    const executor = await sandbox(ws.path);
    const { out } = await run(
      executor,
      [
        `exec 3<>/dev/tcp/127.0.0.1/${port} && echo loopback`,
        "timeout 5 bash -c 'exec 3<>/dev/tcp/1.1.1.1/80' && echo outside",
        "cat /proc/net/dev | tail -n +3 | cut -d: -f1",
      ].join("\n"),
      ws.path,
    );
    ok(!out.includes("loopback\n"), out);
    ok(!out.includes("outside\n"), out);
    equal(connections, 0);
  } finally {
    listener.close();
    await accepting.catch(() => {});
  }
});

Deno.test("attack: the read-only level refuses writes to the workspace", async () => {
  await using ws = await tempDir();
  const executor = await sandbox(ws.path, "read-only");
  const { out } = await run(
    executor,
    "echo x > made.txt && echo wrote; echo t > /tmp/t && cat /tmp/t",
    ws.path,
  );
  ok(!out.includes("wrote"), out);
  match(out, /^t$/m);
  equal(await Deno.stat(join(ws.path, "made.txt")).then(() => true, () => false), false);
});

const SECRET_ENV: Record<string, string> = {
  DEEPSEEK_API_KEY: "sk-dsh-attack",
  DSH_ATTACK_TOKEN: "tok-dsh-attack",
  DSH_ATTACK_SECRET: "sec-dsh-attack",
  dsh_attack_password: "pw-dsh-attack",
  DSH_ATTACK_CREDENTIALS: "cred-dsh-attack",
  DSH_ATTACK_API_KEY: "key-dsh-attack",
};

async function withSecrets<T>(body: () => Promise<T>): Promise<T> {
  for (const [name, value] of Object.entries(SECRET_ENV)) Deno.env.set(name, value);
  Deno.env.set("DSH_ATTACK_PLAIN", "plain-visible");
  try {
    return await body();
  } finally {
    for (const name of [...Object.keys(SECRET_ENV), "DSH_ATTACK_PLAIN"]) Deno.env.delete(name);
  }
}

function assertNoSecret(env: string, where: string): void {
  for (const value of Object.values(SECRET_ENV)) ok(!env.includes(value), `${where}: ${env}`);
}

Deno.test("attack: secrets in the agent's env never reach bash (sandboxed or not)", async () => {
  await using ws = await tempDir();
  await withSecrets(async () => {
    for (const executor of [await sandbox(ws.path), new LocalExecutor()]) {
      const { out } = await run(executor, "env; cat /proc/self/environ | tr '\\0' '\\n'", ws.path);
      assertNoSecret(out, executor.kind);
      match(out, /DSH_ATTACK_PLAIN=plain-visible/);
    }
  });
});

Deno.test("attack: secrets never reach an MCP stdio server (beyond its configured env)", async () => {
  await using dir = await tempDir();
  const dump = join(dir.path, "env.txt");
  await withSecrets(async () => {
    // Not an MCP server: it records its environment and exits, so the handshake fails.
    await McpClient.connect("dump", {
      command: "bash",
      args: ["-c", `env > ${dump}`],
      env: { CONFIGURED_TOKEN: "configured-visible" },
      timeoutMs: 20_000,
    }).then((client) => client.close(), () => {});
  });
  const env = await Deno.readTextFile(dump);
  assertNoSecret(env, "mcp");
  match(env, /CONFIGURED_TOKEN=configured-visible/);
  match(env, /DSH_ATTACK_PLAIN=plain-visible/);
});

Deno.test("attack: secrets never reach the Code Mode subprocess", async () => {
  await using dir = await tempDir();
  const dump = join(dir.path, "env.txt");
  const fakeDeno = join(dir.path, "deno");
  await Deno.writeTextFile(fakeDeno, `#!/bin/sh\nenv > ${dump}\n`);
  await Deno.chmod(fakeDeno, 0o755);
  await withSecrets(async () => {
    const runtime = subprocessRuntime({ execPath: fakeDeno });
    const result = await runtime.run({
      program: "return 1;",
      callTool: () => Promise.resolve("null"),
    });
    ok(result.error !== undefined);
  });
  assertNoSecret(await Deno.readTextFile(dump), "codemode");
});

Deno.test("attack: the sandbox dies with its parent (SIGKILL of the agent)", async () => {
  await using ws = await tempDir();
  const seconds = 4000 + Math.floor(Math.random() * 1000);
  const ready = join(ws.path, "ready");
  const script = join(ws.path, "parent.ts");
  await Deno.writeTextFile(
    script,
    `import { createSandboxExecutor } from ${
      JSON.stringify(new URL("../../builtins/sandbox.ts", import.meta.url).href)
    };
const executor = await createSandboxExecutor({ workspace: ${JSON.stringify(ws.path)} });
await executor.run("sleep ${seconds} & echo up > ${ready}; wait", { cwd: ${
      JSON.stringify(ws.path)
    } });
`,
  );
  const parent = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  await waitForLines(ready, 1);
  // The backgrounded `sleep` may still be a forked bash that has not exec'd yet: wait for it.
  equal((await waitMarked(String(seconds), 1)).length, 1);
  parent.kill("SIGKILL");
  await parent.status;
  // The kernel delivers the parent-death signal asynchronously: poll (a failure guard, not a timing).
  deepEqual(await waitGone(String(seconds)), []);
});

Deno.test({
  name: "attack (uid 65534): no capabilities, remount, namespaces, keys, sockets or network",
  ignore: !isRoot,
  async fn() {
    await using ws = await tempDir();
    await Deno.chmod(ws.path, 0o777);
    const home = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "dsh_nobody_" });
    await Deno.mkdir(`${home}/.ssh`);
    await Deno.writeTextFile(`${home}/.ssh/id_ed25519`, "PRIVATE-NOBODY");
    await Deno.chown(home, 65534, 65534);
    await Deno.chown(`${home}/.ssh`, 65534, 65534);
    await Deno.chown(`${home}/.ssh/id_ed25519`, 65534, 65534);
    // A host socket anyone may connect to, and a host port.
    const socketPath = `/run/dsh_attack_${crypto.randomUUID().slice(0, 8)}.sock`;
    const unix = Deno.listen({ transport: "unix", path: socketPath });
    await Deno.chmod(socketPath, 0o777);
    const tcp = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (tcp.addr as Deno.NetAddr).port;
    let connections = 0;
    const accepting = [unix, tcp].map(async (listener) => {
      for await (const conn of listener) {
        connections++;
        conn.close();
      }
    });
    // The probe works for this user outside the sandbox (the control), then not inside.
    const probe = await new Deno.Command("setpriv", {
      args: [
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "bash",
        "-c",
        unixProbe(socketPath),
      ],
      clearEnv: true,
      env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
    }).output();
    const control = decoder.decode(probe.stdout);
    connections = 0;
    const { out } = await runAsNobody(
      ws.path,
      [
        "id -u",
        "grep ^CapEff /proc/self/status",
        "mount -o remount,rw / && echo remounted",
        "hostname dsh-evil && echo changed",
        "unshare -Ur true && echo nested",
        "test -w /proc/sys/kernel/core_pattern && echo core-writable",
        "readlink /proc/self/ns/net /proc/self/ns/ipc /proc/self/ns/uts",
        "echo ok > made.txt && cat made.txt",
        `cat ${home}/.ssh/id_ed25519`,
        `exec 3<>/dev/tcp/127.0.0.1/${port} && echo tcp-connected`,
        `ls ${socketPath} && echo socket-visible`,
        unixProbe(socketPath),
      ].join("\n"),
      home,
    ).finally(async () => {
      unix.close();
      tcp.close();
      await Promise.allSettled(accepting);
      await Deno.remove(socketPath).catch(() => {});
      await Deno.remove(home, { recursive: true });
    });
    match(out, /^65534$/m);
    match(out, /CapEff:\s+0000000000000000/);
    ok(!/remounted|changed|nested|writable/.test(out), out);
    for (const kind of ["net", "ipc", "uts"]) ok(!out.includes(hostNs(kind)), `${kind}: ${out}`);
    match(out, /^ok$/m);
    ok(!out.includes("PRIVATE"), out);
    ok(!/tcp-connected|socket-visible|unix-connected/.test(out), out);
    equal(connections, 0);
    match(control, /unix-connected/);
  },
});

Deno.test({
  name: "attack (root, no user namespace fallback): capabilities still dropped, / stays read-only",
  ignore: !isRoot,
  async fn() {
    await using ws = await tempDir();
    const { profile } = await sandbox(ws.path);
    const target = `/dsh_escape_${crypto.randomUUID()}`;
    const { out } = await runBwrap([
      "bwrap",
      ...bwrapArgs(ws.path, ws.path, { ...profile, userns: false }),
      "bash",
      "-c",
      [
        "exec 2>&1",
        "grep ^CapEff /proc/self/status",
        "mount -o remount,rw / && echo remounted",
        // A nested user namespace gets capabilities, but over locked mounts only.
        `unshare -Urm bash -c 'mount -o remount,rw / && touch ${target} && echo nested-wrote'`,
        "test -w /proc/sys/kernel/core_pattern && echo core-writable",
        `python3 -c 'import socket; socket.socket(socket.AF_UNIX); print("unix-created")'`,
      ].join("\n"),
    ]);
    match(out, /CapEff:\s+0000000000000000/);
    ok(!/remounted|nested-wrote|writable|unix-created/.test(out), out);
    match(out, /Operation not permitted/);
    equal(await Deno.stat(target).then(() => true, () => false), false);
  },
});
