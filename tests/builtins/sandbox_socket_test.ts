/**
 * Attack tests for the sandbox's socket filter (SECURITY.md, sockets): a host pathname socket in
 * a folder the sandbox can read (a Docker or colima socket in a home folder) answers on the host
 * and not inside; `AF_VSOCK` and io_uring are denied; `socketpair` and everyday programs work.
 * CI runs them as root.
 */
import { equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { type BwrapExecutor, createSandboxExecutor } from "../../builtins/sandbox.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import { tempDir } from "../_helpers.ts";

const decoder = new TextDecoder();

async function run(executor: LocalExecutor, command: string, cwd?: string) {
  let out = "";
  const result = await executor.run(command, {
    ...(cwd === undefined ? {} : { cwd }),
    onOutput: (chunk) => void (out += decoder.decode(chunk)),
  });
  return { code: result.exitCode, out };
}

/** A folder outside /tmp (the sandbox has its own /tmp), removed on dispose. */
async function hostDir(prefix: string): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ dir: "/var/tmp", prefix });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}

/** A Unix listener that counts connections (and answers each with a line). */
function listen(path: string): { connections: () => number; close: () => Promise<void> } {
  const listener = Deno.listen({ transport: "unix", path });
  let connections = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      connections++;
      await conn.write(new TextEncoder().encode("hello from the host\n")).catch(() => {});
      conn.close();
    }
  })();
  return {
    connections: () => connections,
    close: async () => {
      listener.close();
      await accepting.catch(() => {});
    },
  };
}

const PY_CONNECT = (path: string) =>
  `python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("unix-connected", s.recv(64))' ${path}`;

Deno.test("attack: a host Unix socket in a readable home folder cannot be connected from the sandbox", async () => {
  await using ws = await tempDir();
  await using home = await hostDir("dsh_home_");
  // Where colima and Docker Desktop put theirs: under the home folder, not /run.
  await Deno.mkdir(join(home.path, ".colima/default"), { recursive: true });
  const path = join(home.path, ".colima/default/docker.sock");
  const server = listen(path);
  try {
    const executor = await createSandboxExecutor({ workspace: ws.path, home: home.path });
    const inside = await run(
      executor,
      `ls -l ${path} && echo socket-visible; ${PY_CONNECT(path)}; ` +
        `DENO_DIR=/tmp/deno ${Deno.execPath()} eval --quiet ` +
        `'await Deno.connect({ transport: "unix", path: "${path}" }); console.log("deno-" + "connected")'`,
      ws.path,
    );
    // The socket is visible (its folder is readable) but creating the client socket fails.
    match(inside.out, /socket-visible/);
    ok(!/unix-connected|deno-connected/.test(inside.out), inside.out);
    match(inside.out, /PermissionError|Operation not permitted/);
    equal(server.connections(), 0);
    // The control: the same probe on the host connects.
    const host = await run(new LocalExecutor(), PY_CONNECT(path));
    match(host.out, /unix-connected b'hello from the host\\n'/);
    equal(server.connections(), 1);
  } finally {
    await server.close();
  }
});

Deno.test("attack: AF_VSOCK sockets and io_uring cannot be created; socketpair still works", async () => {
  await using ws = await tempDir();
  const executor = await createSandboxExecutor({ workspace: ws.path });
  const script = [
    "import ctypes, socket",
    "for family, name in ((socket.AF_VSOCK, 'vsock'), (socket.AF_UNIX, 'unix')):",
    "    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):",
    "        try:",
    "            socket.socket(family, kind); print(name, 'created')",
    "        except OSError as e: print(name, 'errno', e.errno)",
    "a, b = socket.socketpair(); a.sendall(b'ping'); print('pair', b.recv(4).decode())",
    "libc = ctypes.CDLL(None, use_errno=True)",
    "params = ctypes.create_string_buffer(120)",
    "fd = libc.syscall(425, 8, params)",
    "print('io_uring', fd, ctypes.get_errno())",
  ].join("\n");
  const { out } = await run(executor, `python3 -c "${script}"`, ws.path);
  ok(!out.includes("created"), out);
  equal(out.match(/errno 1\b/g)?.length, 4, out);
  match(out, /^pair ping$/m);
  match(out, /^io_uring -1 1$/m);
  // The control: on the host vsock sockets are not refused with EPERM (created, or no vsock
  // support: errno 97); io_uring may be disabled on the host too, so it has no control.
  const host = await run(new LocalExecutor(), `python3 -c "${script}"`);
  match(host.out, /^vsock (created|errno 97)$/m);
  ok(!/^vsock errno 1$/m.test(host.out), host.out);
});

Deno.test("the socket filter leaves everyday commands working (git, ls, node, python3, deno)", async () => {
  await using ws = await tempDir();
  const git = (args: string[]) =>
    new Deno.Command("git", { args: ["-C", ws.path, ...args], stdout: "null", stderr: "null" })
      .output();
  await git(["init", "-q"]);
  await Deno.writeTextFile(join(ws.path, "a.txt"), "one\n");
  await git(["add", "a.txt"]);
  await git(["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first"]);
  await Deno.writeTextFile(join(ws.path, "a.txt"), "two\n");
  const executor: BwrapExecutor = await createSandboxExecutor({ workspace: ws.path });
  const { code, out } = await run(
    executor,
    [
      "git status --short",
      "git log --oneline | wc -l",
      "git diff --stat | tail -1",
      "ls a.txt",
      `node -e 'require("child_process").execSync("true"); console.log("node", 6 * 7)'`,
      `python3 -c 'import subprocess; subprocess.run(["true"]); print("python", 6 * 7)'`,
      `DENO_DIR=/tmp/deno ${Deno.execPath()} eval 'console.log("deno", 6 * 7)'`,
    ].join(" && "),
    ws.path,
  );
  equal(code, 0, out);
  match(out, /^ M a\.txt$/m);
  match(out, /^1$/m);
  match(out, /1 file changed/);
  match(out, /^node 42$/m);
  match(out, /^python 42$/m);
  match(out, /^deno 42$/m);
});

Deno.test("allowUnixSockets: true lets commands connect to a readable host socket (AF_VSOCK stays denied)", async () => {
  await using ws = await tempDir();
  await using dir = await hostDir("dsh_sock_");
  const path = join(dir.path, "app.sock");
  const server = listen(path);
  try {
    const executor = await createSandboxExecutor({ workspace: ws.path, allowUnixSockets: true });
    const { out } = await run(
      executor,
      `${
        PY_CONNECT(path)
      }; python3 -c 'import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM); print("vsock-created")'`,
      ws.path,
    );
    match(out, /unix-connected/);
    ok(!out.includes("vsock-created"), out);
    equal(server.connections(), 1);
  } finally {
    await server.close();
  }
});

Deno.test("attack: a datagram socketpair cannot send to a host datagram socket by path", async () => {
  await using ws = await tempDir();
  await using dir = await hostDir("dsh_dgram_");
  const path = join(dir.path, "log.sock");
  // The host receiver takes the first datagram that arrives and prints it.
  const receiver = new Deno.Command("python3", {
    args: [
      "-c",
      "import socket, sys\ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\ns.bind(sys.argv[1])\nprint('ready', flush=True)\nprint(s.recv(64).decode(), flush=True)",
      path,
    ],
    stdout: "piped",
  }).spawn();
  const lines = receiver.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let heard = "";
  while (!heard.includes("ready\n")) heard += (await lines.read()).value ?? "";
  const send = (who: string) =>
    `python3 -c 'import socket, sys
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
a.sendto(b"${who}", sys.argv[1]); print("${who}-sent")' ${path}`;
  try {
    const executor = await createSandboxExecutor({ workspace: ws.path });
    const inside = await run(executor, send("sandbox"), ws.path);
    ok(!inside.out.includes("sandbox-sent"), inside.out);
    match(inside.out, /PermissionError|Operation not permitted/);
    // The control: the same call on the host is delivered, and it is the first to arrive.
    const host = await run(new LocalExecutor(), send("host"));
    match(host.out, /host-sent/);
    for (let chunk = await lines.read(); !chunk.done; chunk = await lines.read()) {
      heard += chunk.value;
    }
    equal(heard, "ready\nhost\n");
  } finally {
    await lines.cancel().catch(() => {});
    await receiver.status;
  }
});
