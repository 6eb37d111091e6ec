/**
 * Workspace sync benchmarks (remote/workspace_sync.ts) over the test adapter: the "remote" is a
 * second temp folder that bubblewrap shows at the workspace's path for each `capture` (one
 * `bwrap bash -c` per capture, the local stand-in for one remote round trip). Cases: the first
 * upload of 1,000 small files against one capture that extracts a tar of the
 * workspace (floor: the same file creations, no hashing, no manifest), a push and a
 * pull when nothing changed, a pull of 10 changed files, and one bare capture (the unit every
 * round trip costs). Capture counts per operation are printed once before timing.
 *
 * Run: `deno bench -A bench/sync_bench.ts`
 */
import { createWorkspaceSync, type WorkspaceSync } from "../remote/mod.ts";
import { DirTarget } from "../tests/remote/_sync_target.ts";

/**
 * The test adapter, retrying once a capture whose shell was SIGKILLed (exit 137). On the shared
 * 2-core machine this was seen now and then under `deno bench` only, never when the same script
 * was re-run alone; the cause was not found. Retries are printed, so a run shows them.
 */
class BenchTarget extends DirTarget {
  override async runBytes(script: string): Promise<Uint8Array> {
    try {
      return await super.runBytes(script);
    } catch (error) {
      if (!/failed \(137/.test((error as Error).message)) throw error;
      console.error("sync bench: a capture was SIGKILLed (137); retried once");
      return await super.runBytes(script);
    }
  }
}

const FILES = 1000;
const root = await Deno.makeTempDir({ prefix: "dsh_sync_bench_" });
const host = `${root}/host`;
for (let i = 0; i < FILES; i++) {
  const folder = `${host}/src/m${i % 20}`;
  await Deno.mkdir(folder, { recursive: true });
  await Deno.writeTextFile(`${folder}/file_${i}.ts`, `export const v${i} = ${i};\n`.repeat(8));
}
let fresh = 0;

/** A new, empty remote folder. */
async function emptyRemote(): Promise<DirTarget> {
  const remote = `${root}/remote_${fresh++}`;
  await Deno.mkdir(remote);
  return new BenchTarget(host, remote);
}

/** A remote that already holds the workspace, with its sync. */
async function syncedPair(): Promise<{ target: DirTarget; sync: WorkspaceSync }> {
  const target = await emptyRemote();
  const sync = createWorkspaceSync({ workspace: host });
  await sync.upload(target);
  return { target, sync };
}

// Capture counts, once.
{
  const target = await emptyRemote();
  const sync = createWorkspaceSync({ workspace: host });
  const up = await sync.upload(target);
  const afterUpload = target.calls.captures;
  await sync.push(target);
  const afterPush = target.calls.captures;
  await sync.pull(target);
  const afterPull = target.calls.captures;
  console.log(
    `upload of ${up.uploaded} files (${up.bytes} bytes): ${afterUpload} captures; ` +
      `no-change push: ${afterPush - afterUpload}; no-change pull: ${afterPull - afterPush}`,
  );
}

const changing = await syncedPair();
let round = 0;

Deno.bench({
  name: `upload ${FILES} small files (fresh remote)`,
  group: "upload",
  async fn(b) {
    const target = await emptyRemote();
    const sync = createWorkspaceSync({ workspace: host });
    b.start();
    await sync.upload(target);
    b.end();
  },
});

// The floor's source: a copy of the workspace outside the path the capture shadows.
const mirror = `${root}/mirror`;
await new Deno.Command("cp", { args: ["-a", host, mirror] }).output();

Deno.bench({
  name: "floor: one capture extracting a tar of the workspace",
  group: "upload",
  baseline: true,
  async fn(b) {
    const target = await emptyRemote();
    b.start();
    await target.capture(`cd '${host}' && tar -C '${mirror}' -cf - . | tar -xf -`);
    b.end();
  },
});

const idle = await syncedPair();

Deno.bench({
  name: `push, nothing changed (${FILES} files walked)`,
  group: "idle",
  async fn() {
    await idle.sync.push(idle.target);
  },
});

Deno.bench({
  name: `pull, nothing changed (${FILES} files listed)`,
  group: "idle",
  async fn() {
    await idle.sync.pull(idle.target);
  },
});

Deno.bench({
  name: "one bare capture (bwrap bash -c true)",
  group: "idle",
  baseline: true,
  async fn() {
    await idle.target.capture("true");
  },
});

Deno.bench({
  name: `pull, 10 of ${FILES} files changed remotely`,
  group: "changed",
  async fn(b) {
    round++;
    await changing.target.run(
      `for i in $(seq 0 9); do echo ${round} >> src/m$i/file_$i.ts; done`,
    );
    b.start();
    const report = await changing.sync.pull(changing.target);
    b.end();
    if (report.downloaded !== 10) throw new Error(`pulled ${report.downloaded}`);
  },
});

globalThis.addEventListener("unload", () => {
  Deno.removeSync(root, { recursive: true });
});
