/**
 * Workspace sync against a real remote side: a second temp folder shown at the workspace's path
 * by bubblewrap, real files, real `bash -c` scripts (see `_sync_target.ts`).
 */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { createWorkspaceSync, type SyncReport } from "../../remote/mod.ts";
import { tempDir } from "../_helpers.ts";
import { DirTarget, filesOf, writeFiles } from "./_sync_target.ts";

interface Sides extends AsyncDisposable {
  readonly host: string;
  readonly remote: string;
  readonly target: DirTarget;
}

async function sides(files: Record<string, string> = {}): Promise<Sides> {
  const host = await tempDir("dsh_sync_host_");
  const remote = await tempDir("dsh_sync_remote_");
  await writeFiles(host.path, files);
  return {
    host: host.path,
    remote: remote.path,
    target: new DirTarget(host.path, remote.path),
    async [Symbol.asyncDispose]() {
      await host[Symbol.asyncDispose]();
      await remote[Symbol.asyncDispose]();
    },
  };
}

function reasons(report: SyncReport, host: string): Record<string, string> {
  return Object.fromEntries(
    report.skipped.map(({ path, reason }) => [path.replace(`${host}/`, ""), reason]),
  );
}

Deno.test("upload sends every regular file, skips hidden, symlinks and FIFOs, and repeats nothing", async () => {
  await using s = await sides({
    "a.txt": "alpha",
    "src/deep/b.ts": "export const b = 1;\n",
    "empty": "",
    "odd name 'q' \\ $x.txt": "odd",
    "line\nbreak.txt": "newline in the name",
    "-rf": "dash",
    ".env": "SECRET=1",
    ".env.example": "SECRET=",
    "certs/server.pem": "-----BEGIN KEY-----",
    "sub/.env.local": "TOKEN=2",
    ".git/config": "[core]",
  });
  await Deno.writeFile(`${s.host}/bin.dat`, new Uint8Array([0, 255, 10, 13, 0]));
  await Deno.symlink("/etc/passwd", `${s.host}/link`);
  await Deno.symlink("/etc", `${s.host}/linkdir`);
  await new Deno.Command("mkfifo", { args: [`${s.host}/fifo`] }).output();
  const sync = createWorkspaceSync({ workspace: s.host });
  const report = await sync.upload(s.target);
  const remote = await filesOf(s.remote);
  deepEqual([...remote.keys()].sort(), [
    "-rf",
    ".env.example",
    ".git/config",
    "a.txt",
    "bin.dat",
    "empty",
    "line\nbreak.txt",
    "odd name 'q' \\ $x.txt",
    "src/deep/b.ts",
  ]);
  equal(remote.get("line\nbreak.txt"), "newline in the name");
  deepEqual(await Deno.readFile(`${s.remote}/bin.dat`), new Uint8Array([0, 255, 10, 13, 0]));
  equal(report.uploaded, 9);
  let bytes = 0;
  for (const rel of remote.keys()) bytes += (await Deno.stat(`${s.remote}/${rel}`)).size;
  equal(report.bytes, bytes);
  const skipped = reasons(report, s.host);
  ok(skipped[".env"]?.startsWith("hidden"));
  ok(skipped["certs/server.pem"]?.startsWith("hidden"));
  ok(skipped["sub/.env.local"]?.startsWith("hidden"));
  ok(skipped["link"]?.startsWith("a symlink"));
  ok(skipped["linkdir"]?.startsWith("a symlink"));
  ok(skipped["fifo"]?.startsWith("not a regular file"));
  deepEqual(report.conflicts, []);
  // A second upload (a reattach in the same process) lists the remote once and sends nothing.
  const before = { ...s.target.calls };
  const again = await sync.upload(s.target);
  equal(again.uploaded, 0);
  equal(s.target.calls.captures - before.captures, 1);
  equal(s.target.calls.writes, before.writes);
});

Deno.test("upload to a reattached remote after a restart sends only what differs (by sha256)", async () => {
  await using s = await sides({ "same.txt": "same", "differs.txt": "host", "new.txt": "n" });
  await writeFiles(s.remote, { "same.txt": "same", "differs.txt": "remo", "remote-only.txt": "r" });
  const sync = createWorkspaceSync({ workspace: s.host });
  const report = await sync.upload(s.target);
  equal(report.uploaded, 2);
  deepEqual(report.conflicts, []);
  equal((await filesOf(s.remote)).get("differs.txt"), "host");
  // The remote's own file comes back on the next pull.
  const pulled = await sync.pull(s.target);
  equal(pulled.downloaded, 1);
  equal(await Deno.readTextFile(`${s.host}/remote-only.txt`), "r");
});

Deno.test("push sends edits and new files, removes host deletions, and ignores a touch", async () => {
  await using s = await sides({ "a.txt": "1", "b.txt": "2", "c.txt": "3", "d/e.txt": "4" });
  const sync = createWorkspaceSync({ workspace: s.host });
  await sync.upload(s.target);
  const idle = await sync.push(s.target);
  equal(idle.uploaded + idle.removed, 0);
  await Deno.writeTextFile(`${s.host}/a.txt`, "1 edited");
  await Deno.utime(`${s.host}/b.txt`, new Date(), new Date(Date.now() + 5000));
  await Deno.remove(`${s.host}/c.txt`);
  await writeFiles(s.host, { "new/f.txt": "fresh" });
  const report = await sync.push(s.target);
  equal(report.uploaded, 2);
  equal(report.removed, 1);
  deepEqual(report.conflicts, []);
  deepEqual(
    Object.fromEntries(await filesOf(s.remote)),
    { "a.txt": "1 edited", "b.txt": "2", "d/e.txt": "4", "new/f.txt": "fresh" },
  );
});

Deno.test("large files go through writeFile and many small ones through several scripts", async () => {
  await using s = await sides();
  const big = crypto.getRandomValues(new Uint8Array(65536));
  const huge = new Uint8Array(300_000).map((_, i) => i % 251);
  await Deno.writeFile(`${s.host}/big.bin`, big);
  await Deno.writeFile(`${s.host}/huge.bin`, huge);
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++) files[`many/f${i}.txt`] = `${i}`.repeat(400);
  await writeFiles(s.host, files);
  const sync = createWorkspaceSync({ workspace: s.host });
  const report = await sync.upload(s.target);
  equal(report.uploaded, 302);
  equal(s.target.calls.writes, 2);
  ok(s.target.calls.captures > 3, `${s.target.calls.captures} captures`);
  deepEqual(await Deno.readFile(`${s.remote}/big.bin`), big);
  deepEqual(await Deno.readFile(`${s.remote}/huge.bin`), huge);
  equal(await Deno.readTextFile(`${s.remote}/many/f299.txt`), "299".repeat(400));
  // Files written through writeFile are hashed once by the next pull, then left alone.
  const first = await sync.pull(s.target);
  equal(first.downloaded, 0);
  const before = s.target.calls.captures;
  const second = await sync.pull(s.target);
  deepEqual(second, { ...second, downloaded: 0, removed: 0, skipped: [], conflicts: [] });
  equal(s.target.calls.captures - before, 1);
});

Deno.test("pull brings back edits, new files and deletions, and one capture when nothing changed", async () => {
  await using s = await sides({ "a.txt": "1", "b.txt": "2", "gone/c.txt": "3", "t.txt": "t" });
  const sync = createWorkspaceSync({ workspace: s.host });
  await sync.upload(s.target);
  await s.target.run(
    "printf 'remote edit' > a.txt && mkdir -p out && printf 'made' > out/new.txt && " +
      "rm -r gone && touch -d '+1 hour' t.txt && printf '\\x00\\xff' > out/bin",
  );
  const report = await sync.pull(s.target);
  equal(report.downloaded, 3);
  equal(report.removed, 1);
  deepEqual(report.conflicts, []);
  deepEqual(report.skipped, []);
  deepEqual(
    Object.fromEntries(await filesOf(s.host)),
    {
      "a.txt": "remote edit",
      "b.txt": "2",
      "out/new.txt": "made",
      "t.txt": "t",
      "out/bin": "\0\uFFFD",
    },
  );
  deepEqual(await Deno.readFile(`${s.host}/out/bin`), new Uint8Array([0, 255]));
  await rejects(Deno.stat(`${s.host}/gone`), Deno.errors.NotFound); // the emptied folder too
  // Nothing changed: one listing, no hashing, no download.
  const before = { ...s.target.calls };
  const idle = await sync.pull(s.target);
  equal(idle.downloaded + idle.removed, 0);
  equal(s.target.calls.captures - before.captures, 1);
  equal(s.target.calls.reads, before.reads);
  // What came back is in the manifest: the next push sends nothing.
  equal((await sync.push(s.target)).uploaded, 0);
});

Deno.test("a file changed on both sides keeps the host's version and is reported as a conflict", async () => {
  await using s = await sides({ "both.txt": "base", "del.txt": "base", "late.txt": "base" });
  const sync = createWorkspaceSync({ workspace: s.host });
  await sync.upload(s.target);
  await Deno.writeTextFile(`${s.host}/both.txt`, "host edit");
  await Deno.writeTextFile(`${s.host}/del.txt`, "host edit");
  await s.target.run("printf 'remote edit' > both.txt && rm del.txt");
  const pulled = await sync.pull(s.target);
  deepEqual([...pulled.conflicts].sort(), [`${s.host}/both.txt`, `${s.host}/del.txt`]);
  equal(pulled.downloaded + pulled.removed, 0);
  equal(await Deno.readTextFile(`${s.host}/both.txt`), "host edit");
  equal(await Deno.readTextFile(`${s.host}/del.txt`), "host edit");
  // The next push sends the host's versions, without reporting the conflicts again.
  const pushed = await sync.push(s.target);
  equal(pushed.uploaded, 2);
  deepEqual(pushed.conflicts, []);
  equal(await Deno.readTextFile(`${s.remote}/both.txt`), "host edit");
  equal(await Deno.readTextFile(`${s.remote}/del.txt`), "host edit");
  // A remote change the push finds (made after the last pull, as a background job would) is a
  // conflict too: reported, and the host's version wins.
  await s.target.run("printf 'job wrote this' > late.txt");
  await Deno.writeTextFile(`${s.host}/late.txt`, "host again");
  const late = await sync.push(s.target);
  deepEqual(late.conflicts, [`${s.host}/late.txt`]);
  equal(await Deno.readTextFile(`${s.remote}/late.txt`), "host again");
  equal((await sync.pull(s.target)).downloaded, 0);
});

Deno.test("the same new file on both sides: equal content is adopted, different content conflicts", async () => {
  await using s = await sides({});
  const sync = createWorkspaceSync({ workspace: s.host });
  await sync.upload(s.target);
  await writeFiles(s.host, { "same.txt": "x", "diff.txt": "host" });
  await s.target.run("printf x > same.txt && printf remote > diff.txt");
  const pulled = await sync.pull(s.target);
  deepEqual(pulled.conflicts, [`${s.host}/diff.txt`]);
  equal(pulled.downloaded, 0);
  equal(await Deno.readTextFile(`${s.host}/diff.txt`), "host");
  const pushed = await sync.push(s.target);
  equal(pushed.uploaded, 1); // diff.txt; same.txt is already in sync
  equal(await Deno.readTextFile(`${s.remote}/diff.txt`), "host");
});

Deno.test("a host file over 256 MiB is reported once and not read", async () => {
  await using s = await sides({ "small.txt": "s" });
  const file = await Deno.open(`${s.host}/sparse.img`, { write: true, create: true });
  await file.truncate(300 * 1024 * 1024); // sparse: nothing to read if it were read
  file.close();
  const sync = createWorkspaceSync({ workspace: s.host });
  const report = await sync.upload(s.target);
  equal(report.uploaded, 1);
  equal(
    reasons(report, s.host)["sparse.img"],
    `too large to sync: ${300 * 1024 * 1024} bytes (the limit is ${256 * 1024 * 1024})`,
  );
  deepEqual((await sync.push(s.target)).skipped, []);
  ok(!(await Deno.lstat(`${s.remote}/sparse.img`).then(() => true, () => false)));
});

Deno.test("bad options get clear errors", () => {
  for (const workspace of ["rel/ws", "/", "/a/../b", "/a/./b"]) {
    try {
      createWorkspaceSync({ workspace });
      ok(false, workspace);
    } catch (error) {
      ok(/Cannot sync the workspace/.test((error as Error).message), (error as Error).message);
    }
  }
  try {
    createWorkspaceSync({ workspace: "/w", maxPullBytes: -1 });
    ok(false);
  } catch (error) {
    equal(
      (error as Error).message,
      "Cannot sync: maxPullBytes must be a non-negative integer: current value is -1",
    );
  }
});
