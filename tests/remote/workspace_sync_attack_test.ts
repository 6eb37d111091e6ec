/**
 * Workspace sync against a hostile remote: the model controls every remote file and name, and a
 * forging remote controls the listing itself. Nothing may land outside the workspace, through a
 * symlink, on a hidden or protected path, or beyond the pull byte cap. Real files, real scripts.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { ProtectedPaths } from "../../builtins/mod.ts";
import { createWorkspaceSync, type SyncReport } from "../../remote/mod.ts";
import { tempDir } from "../_helpers.ts";
import { DirTarget, filesOf, writeFiles } from "./_sync_target.ts";

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

function reasonOf(report: SyncReport, path: string): string | undefined {
  return report.skipped.find((entry) => entry.path === path)?.reason;
}

/** A remote whose listing also carries forged records, and whose sizes may lie. */
class ForgingTarget extends DirTarget {
  forged: string[] = [];
  shrink = new Set<string>();

  override async capture(script: string): Promise<string> {
    const output = await super.capture(script);
    if (!script.includes("find . -mindepth 1")) return output;
    const records = output.split("\0").filter((record) => record !== "").map((record) => {
      const name = record.slice(record.indexOf("./") + 2);
      return this.shrink.has(name) ? record.replace(/^f \d+/, "f 1") : record;
    });
    return [...records, ...this.forged].map((record) => `${record}\0`).join("");
  }
}

Deno.test("hostile names: odd but valid ones round-trip, the rest are skipped and nothing escapes", async () => {
  await using root = await tempDir("dsh_sync_attack_");
  const host = `${root.path}/host`;
  const remote = `${root.path}/remote`;
  await writeFiles(host, {
    "dïr/ünï cödé.txt": "unicode",
    [`${"n".repeat(150)}/${"m".repeat(120)}.txt`]: "long",
  });
  await Deno.mkdir(remote);
  const target = new ForgingTarget(host, remote);
  const sync = createWorkspaceSync({ workspace: host });
  equal((await sync.upload(target)).uploaded, 2);
  equal(await Deno.readTextFile(`${remote}/dïr/ünï cödé.txt`), "unicode");
  await target.run(
    `printf a > $'new\\nline' && printf b > "quote'\\"" && printf c > ./-n && ` +
      `printf d > '$(touch pwned)' && printf e > 'back\\slash' && printf f > $'\\xff\\xfe' && ` +
      `(for i in $(seq 20); do mkdir ${"d".repeat(240)} && cd ${
        "d".repeat(240)
      }; done; printf g > deep)`,
  );
  target.forged = [
    "f 5 1.0 1 ./../escape.txt",
    "f 5 1.0 1 ./a/../../escape.txt",
    "f 5 1.0 1 .//etc/evil",
    "f 5 1.0 1 ./a//b",
    "f 5 1.0 1 ./",
    "garbage without a stat",
  ];
  const report = await sync.pull(target);
  const files = await filesOf(host);
  equal(files.get("new\nline"), "a");
  equal(files.get("quote'\""), "b");
  equal(files.get("-n"), "c");
  equal(files.get("$(touch pwned)"), "d");
  equal(files.get("back\\slash"), "e");
  ok(!(await exists(`${host}/pwned`)) && !(await exists(`${remote}/pwned`)));
  equal(report.downloaded, 5);
  const reasons = report.skipped.map((entry) => entry.reason).sort();
  deepEqual(reasons, [
    "hostile listing record",
    'hostile name: "" component',
    'hostile name: ".." component',
    'hostile name: ".." component',
    "hostile name: absolute",
    "hostile name: empty",
    "hostile name: path too long",
    "name is not valid UTF-8: stays remote only",
  ]);
  ok(!(await exists(`${root.path}/escape.txt`)));
  ok(!(await exists("/etc/evil")));
  const top: string[] = [];
  for await (const entry of Deno.readDir(root.path)) top.push(entry.name);
  deepEqual(top.sort(), ["host", "remote"]);
  await target.run(`rm -rf ${"d".repeat(240)}`); // deeper than the temp folder's cleanup reaches
});

Deno.test("symlinks: never created, followed or replaced on the host", async () => {
  await using root = await tempDir("dsh_sync_links_");
  const host = `${root.path}/host`;
  const remote = `${root.path}/remote`;
  const outside = `${root.path}/outside`;
  await writeFiles(host, { "a.txt": "a", "b.txt": "b" });
  await writeFiles(outside, { "target.txt": "outside content" });
  await Deno.mkdir(remote);
  await Deno.symlink(outside, `${host}/out`);
  await Deno.symlink(`${outside}/target.txt`, `${host}/link.txt`);
  const target = new DirTarget(host, remote);
  const sync = createWorkspaceSync({ workspace: host });
  await sync.upload(target);
  ok(!(await exists(`${remote}/out`)) && !(await exists(`${remote}/link.txt`)));
  await target.run(
    "mkdir out && printf pwn > out/pwn.txt && printf pwn > link.txt && " +
      `ln -s /etc/passwd evil && ln -s ../outside esc && rm a.txt && ln -s /etc/passwd a.txt && ` +
      `mkfifo pipe && printf new > b.txt`,
  );
  const report = await sync.pull(target);
  equal(
    reasonOf(report, `${host}/out/pwn.txt`),
    "a symlink on the host path: never followed or replaced",
  );
  equal(
    reasonOf(report, `${host}/link.txt`),
    "a symlink on the host path: never followed or replaced",
  );
  equal(
    reasonOf(report, `${host}/evil`),
    "a symlink: never created on the host, stays remote only",
  );
  equal(
    reasonOf(report, `${host}/a.txt`),
    "a symlink: never created on the host, stays remote only",
  );
  equal(reasonOf(report, `${host}/pipe`), "not a regular file: stays remote only");
  deepEqual(Object.fromEntries(await filesOf(outside)), { "target.txt": "outside content" });
  ok(!(await exists(`${host}/evil`)) && !(await exists(`${host}/esc`)));
  equal(await Deno.readTextFile(`${host}/a.txt`), "a"); // not deleted, not replaced
  equal(await Deno.readTextFile(`${host}/b.txt`), "new");
  equal(report.downloaded, 1);
  // The same skips are not reported again while the remote entries stay as they are.
  deepEqual((await sync.pull(target)).skipped, []);
});

Deno.test("protected paths stay remote only, and a protected file deleted remotely comes back", async () => {
  await using root = await tempDir("dsh_sync_protected_");
  const host = `${root.path}/host`;
  const remote = `${root.path}/remote`;
  const original = {
    "dsh.jsonc": "{}",
    ".git/config": "[core]",
    ".git/HEAD": "ref: refs/heads/main",
    ".vscode/settings.json": "{}",
    "tools/x.ts": "export {};",
    "src/a.ts": "a",
  };
  await writeFiles(host, original);
  await Deno.mkdir(remote);
  const protectedPaths = new ProtectedPaths([host]);
  protectedPaths.set("plugin:x", [{ path: `${host}/tools/x.ts`, reason: "a plugin file" }]);
  const target = new DirTarget(host, remote);
  const sync = createWorkspaceSync({ workspace: host, protectedPaths });
  equal((await sync.upload(target)).uploaded, 6); // they go up: git works remotely
  await target.run(
    "printf '{\"plugins\":[\"evil\"]}' > dsh.jsonc && printf '[core]\\nfsmonitor=evil' > .git/config && " +
      "mkdir -p .git/hooks && printf evil > .git/hooks/pre-commit && printf evil > .vscode/settings.json && " +
      "printf evil > tools/x.ts && rm .git/HEAD && printf ok > src/a.ts && mkdir -p .zed && printf e > .zed/s",
  );
  const report = await sync.pull(target);
  deepEqual(Object.fromEntries(await filesOf(host)), { ...original, "src/a.ts": "ok" });
  for (
    const rel of [
      "dsh.jsonc",
      ".git/config",
      ".git/hooks/pre-commit",
      ".vscode/settings.json",
      "tools/x.ts",
      ".zed/s",
    ]
  ) {
    equal(reasonOf(report, `${host}/${rel}`), "protected: stays remote only", rel);
  }
  equal(
    reasonOf(report, `${host}/.git/HEAD`),
    "protected: the host keeps it (the next push restores it remotely)",
  );
  equal(report.downloaded, 1);
  equal(report.removed, 0);
  await sync.push(target);
  equal(await Deno.readTextFile(`${remote}/.git/HEAD`), "ref: refs/heads/main");
});

Deno.test("hidden paths: secrets never go up, and the remote's versions never come back", async () => {
  await using root = await tempDir("dsh_sync_hidden_");
  const host = `${root.path}/host`;
  const remote = `${root.path}/remote`;
  await writeFiles(host, {
    ".env": "SECRET=1",
    ".ssh/id_work": "KEY",
    "private/notes.txt": "private",
    "data.sqlite": "rows",
    "ca.pem": "public cert, un-hidden by !*.pem",
    ".dsh/sessions/s.jsonl": "{}",
    "ok.txt": "ok",
  });
  await Deno.mkdir(remote);
  const target = new DirTarget(host, remote);
  const sync = createWorkspaceSync({
    workspace: host,
    home: host, // the workspace is the home folder: ~/.ssh is inside it
    hiddenPaths: [`${host}/private`, "*.sqlite", "!*.pem"],
  });
  const up = await sync.upload(target);
  deepEqual([...(await filesOf(remote)).keys()].sort(), ["ca.pem", "ok.txt"]);
  equal(up.skipped.length, 5);
  await target.run(
    "printf EVIL > .env && mkdir -p .ssh private .dsh && printf EVIL > .ssh/id_work && " +
      "printf EVIL > private/notes.txt && printf EVIL > .dsh/x",
  );
  const report = await sync.pull(target);
  equal(report.downloaded, 0);
  for (const rel of [".env", ".ssh/id_work", "private/notes.txt", ".dsh/x"]) {
    equal(reasonOf(report, `${host}/${rel}`), "hidden: stays remote only", rel);
  }
  equal(await Deno.readTextFile(`${host}/.env`), "SECRET=1");
  equal(await Deno.readTextFile(`${host}/.ssh/id_work`), "KEY");
  ok(!(await exists(`${host}/.dsh/x`)));
});

Deno.test("the pull byte cap: files beyond it wait for a later pull, a lying size is caught", async () => {
  await using root = await tempDir("dsh_sync_cap_");
  const host = `${root.path}/host`;
  const remote = `${root.path}/remote`;
  await Deno.mkdir(host);
  await Deno.mkdir(remote);
  const target = new ForgingTarget(host, remote);
  const sync = createWorkspaceSync({ workspace: host, maxPullBytes: 1000 });
  await sync.upload(target);
  await target.run(
    "for f in f1 f2 f3; do head -c 600 /dev/zero > $f; done; head -c 2000 /dev/zero > big",
  );
  const cap = "over the pull cap of 1000 bytes per call: stays remote until a later pull";
  const counts: number[] = [];
  for (let i = 0; i < 4; i++) {
    const report = await sync.pull(target);
    counts.push(report.downloaded);
    ok(report.bytes <= 1000);
    equal(reasonOf(report, `${host}/big`), cap);
  }
  deepEqual(counts, [1, 1, 1, 0]);
  deepEqual([...(await filesOf(host)).keys()].sort(), ["f1", "f2", "f3"]);
  // A remote that lists 1 byte for a 5,000-byte file: the bytes read are checked too.
  await target.run("head -c 5000 /dev/zero > liar");
  target.shrink.add("liar");
  const lied = await sync.pull(target);
  equal(reasonOf(lied, `${host}/liar`), cap);
  ok(!(await exists(`${host}/liar`)));
});

Deno.test("push keeps permission bits and replaces a remote symlink instead of writing through it", async () => {
  await using root = await tempDir("dsh_sync_modes_");
  const host = `${root.path}/host`;
  const remote = `${root.path}/remote`;
  await writeFiles(host, { "run.sh": "#!/bin/sh\necho hi\n", "t.txt": "t" });
  await Deno.writeFile(`${host}/big.bin`, new Uint8Array(100_000));
  await Deno.chmod(`${host}/run.sh`, 0o755);
  await Deno.chmod(`${host}/big.bin`, 0o700);
  await Deno.mkdir(remote);
  await writeFiles(`${root.path}/remote_outside`, { "x": "untouched" });
  const target = new DirTarget(host, remote);
  const sync = createWorkspaceSync({ workspace: host });
  await sync.upload(target);
  equal((await Deno.stat(`${remote}/run.sh`)).mode! & 0o777, 0o755);
  equal((await Deno.stat(`${remote}/big.bin`)).mode! & 0o777, 0o700);
  equal((await target.run("./run.sh")).trim(), "hi");
  await target.run(`rm t.txt && ln -s ${root.path}/remote_outside/x t.txt`);
  await Deno.writeTextFile(`${host}/t.txt`, "host edit");
  const report = await sync.push(target);
  deepEqual(report.conflicts, [`${host}/t.txt`]);
  ok((await Deno.lstat(`${remote}/t.txt`)).isFile);
  equal(await Deno.readTextFile(`${remote}/t.txt`), "host edit");
  equal(await Deno.readTextFile(`${root.path}/remote_outside/x`), "untouched");
});

Deno.test("protected paths named from the resolved workspace hold when the workspace is a symlinked path", async () => {
  await using root = await tempDir("dsh_sync_reallink_");
  const real = `${root.path}/real`;
  const host = `${root.path}/link`;
  const remote = `${root.path}/remote`;
  await writeFiles(real, { "tools/p.ts": "export {};", "a.txt": "a" });
  await Deno.symlink(real, host);
  await Deno.mkdir(remote);
  const protectedPaths = new ProtectedPaths([real]);
  protectedPaths.set("plugin:p", [{ path: `${real}/tools/p.ts`, reason: "a plugin file" }]);
  const target = new DirTarget(host, remote);
  const sync = createWorkspaceSync({ workspace: host, protectedPaths });
  equal((await sync.upload(target)).uploaded, 2);
  await target.run("printf evil > tools/p.ts && printf b > a.txt");
  const report = await sync.pull(target);
  equal(reasonOf(report, `${host}/tools/p.ts`), "protected: stays remote only");
  equal(await Deno.readTextFile(`${real}/tools/p.ts`), "export {};");
  equal(await Deno.readTextFile(`${real}/a.txt`), "b");
});
