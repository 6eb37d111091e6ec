/**
 * The stand-in's file-system methods, through the real `@deno/sandbox` SDK: each sandbox's `/`
 * is its own host folder, errors keep their Deno class, and nothing reaches outside it.
 */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { Sandbox } from "@deno/sandbox";
import { startSandboxStandIn } from "../../testing/mod.ts";
import { exists, run, sdkOptions } from "./_stand_in_helpers.ts";

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

Deno.test("files: mkdir, readDir, rename, copyFile, remove (recursive), and their errors", async () => {
  await using standIn = await startSandboxStandIn();
  await using sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  await sandbox.fs.mkdir("/work/a/b", { recursive: true });
  await sandbox.fs.writeTextFile("/work/a/b/one.txt", "1");
  await sandbox.fs.writeTextFile("/work/a/two.txt", "2");
  await sandbox.fs.rename("/work/a/two.txt", "/work/a/deux.txt");
  await sandbox.fs.copyFile("/work/a/deux.txt", "/work/a/zwei.txt");
  const entries = await Array.fromAsync(sandbox.fs.readDir("/work/a"));
  deepEqual(entries, [
    { name: "b", isFile: false, isDirectory: true, isSymlink: false },
    { name: "deux.txt", isFile: true, isDirectory: false, isSymlink: false },
    { name: "zwei.txt", isFile: true, isDirectory: false, isSymlink: false },
  ]);
  await rejects(sandbox.fs.mkdir("/work/a"), (e: Error) => e.constructor.name === "AlreadyExists");
  await rejects(sandbox.fs.remove("/work/a"), (e: Error) => /not empty/i.test(e.message));
  await sandbox.fs.remove("/work/a", { recursive: true });
  equal(await exists(standIn.path(sandbox.id, "/work/a")), false);
  equal(await exists(standIn.path(sandbox.id, "/work")), true);
});

Deno.test("files: a file handle opens, writes, seeks, reads to EOF, stats and truncates", async () => {
  await using standIn = await startSandboxStandIn();
  await using sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  const file = await sandbox.fs.open("/tmp/h.bin", {
    read: true,
    write: true,
    create: true,
    truncate: true,
  });
  equal(await file.write(new Uint8Array([10, 11, 12, 13, 14, 15])), 6);
  equal(await file.seek(2, 0), 2);
  const buffer = new Uint8Array(3);
  equal(await file.read(buffer), 3);
  deepEqual(buffer, new Uint8Array([12, 13, 14]));
  equal(await file.seek(-1, 2), 5);
  const rest = new Uint8Array(8);
  equal(await file.read(rest), 1);
  equal(await file.read(rest), null);
  equal((await file.stat()).size, 6);
  await file.truncate(2);
  await file.close();
  deepEqual(await Deno.readFile(standIn.path(sandbox.id, "/tmp/h.bin")), new Uint8Array([10, 11]));
});

Deno.test("files: streamed writeFile, upload and download (walk) round-trip a folder", async () => {
  await using standIn = await startSandboxStandIn();
  await using sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  const local = await Deno.makeTempDir({ prefix: "stand-in-upload-" });
  try {
    await Deno.mkdir(join(local, "src", "deep"), { recursive: true });
    await Deno.writeTextFile(join(local, "src", "a.txt"), "alpha");
    await Deno.writeTextFile(join(local, "src", "deep", "b.txt"), "beta");
    // Like `cp -r src ws/`: the folder lands inside the (existing) target.
    await sandbox.fs.mkdir("/home/app/ws");
    await sandbox.fs.upload(join(local, "src"), "/home/app/ws");
    equal(await sandbox.fs.readTextFile("/home/app/ws/src/deep/b.txt"), "beta");
    const stream = ReadableStream.from([new Uint8Array([67]), new Uint8Array([68])]);
    await sandbox.fs.writeFile("/home/app/ws/src/c.txt", stream);
    await Deno.mkdir(join(local, "back"));
    await sandbox.fs.download("/home/app/ws/src", join(local, "back"));
    equal(await Deno.readTextFile(join(local, "back", "src", "a.txt")), "alpha");
    equal(await Deno.readTextFile(join(local, "back", "src", "deep", "b.txt")), "beta");
    equal(await Deno.readTextFile(join(local, "back", "src", "c.txt")), "CD");
  } finally {
    await Deno.remove(local, { recursive: true });
  }
});

Deno.test("files: '..' cannot climb out of the sandbox and a symlink out is refused", async () => {
  await using standIn = await startSandboxStandIn();
  await using sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  await sandbox.fs.writeTextFile("/../../../tmp/inside.txt", "in");
  equal(await Deno.readTextFile(standIn.path(sandbox.id, "/tmp/inside.txt")), "in");
  const outside = await Deno.makeTempDir({ prefix: "stand-in-outside-" });
  try {
    await Deno.writeTextFile(join(outside, "secret.txt"), "host");
    await sandbox.fs.symlink(outside, "/tmp/out");
    await rejects(
      sandbox.fs.readTextFile("/tmp/out/secret.txt"),
      (e: Error) => e.constructor.name === "PermissionDenied",
    );
    await rejects(
      sandbox.fs.writeTextFile("/tmp/out/planted.txt", "x"),
      (e: Error) => e.constructor.name === "PermissionDenied",
    );
    equal(await exists(join(outside, "planted.txt")), false);
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("files: an unknown method answers a JSON-RPC error the SDK raises as RpcError", async () => {
  await using standIn = await startSandboxStandIn();
  await using sandbox = await Sandbox.create({ ...sdkOptions(standIn), timeout: "10m" });
  await rejects(
    sandbox.fs.umask(0o22),
    (e: Error) => e.name === "RpcError" && /umask/.test(e.message),
  );
  // The connection is still good.
  equal((await run(sandbox, "echo still")).stdoutText, "still\n");
});
