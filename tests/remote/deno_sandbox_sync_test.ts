/**
 * The Deno Sandbox executor with the real workspace sync (`createWorkspaceSync`) through the
 * stand-in: the host workspace goes up on create, host edits go up before a call, remote changes
 * come back after runs, writes and removes.
 */
import { equal, ok } from "node:assert/strict";
import { remoteFixture, runText } from "./_remote_helpers.ts";
import { createWorkspaceSync, type SyncTarget, type WorkspaceSync } from "../../remote/mod.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** The real sync, counting its steps. */
function countedSync(workspace: string): { sync: WorkspaceSync; steps: string[] } {
  const real = createWorkspaceSync({ workspace });
  const steps: string[] = [];
  const step = (name: "upload" | "push" | "pull") => (target: SyncTarget) => {
    steps.push(name);
    return real[name](target);
  };
  return { sync: { upload: step("upload"), push: step("push"), pull: step("pull") }, steps };
}

Deno.test("sync: the workspace goes up, edits both ways, once per sandbox", opts, async () => {
  const workspace = await Deno.makeTempDir({ prefix: "dsh-remote-sync-" });
  try {
    await Deno.writeTextFile(`${workspace}/a.txt`, "from host\n");
    const { sync, steps } = countedSync(workspace);
    await using fx = await remoteFixture({ workspace, sync });
    const session = fx.executor.forSession("s1");
    const first = await runText(session, "cat a.txt; echo made remotely > b.txt");
    equal(first.text, "from host\n");
    equal(await Deno.readTextFile(`${workspace}/b.txt`), "made remotely\n", "pulled after the run");

    await Deno.writeTextFile(`${workspace}/a.txt`, "edited on host\n");
    equal((await runText(session, "cat a.txt")).text, "edited on host\n", "pushed before the call");

    await session.writeFile(`${workspace}/dir/c.txt`, "written");
    equal(await Deno.readTextFile(`${workspace}/dir/c.txt`), "written", "pulled after a write");
    await session.remove(`${workspace}/b.txt`);
    equal(
      await Deno.stat(`${workspace}/b.txt`).catch(() => undefined),
      undefined,
      "pulled after a remove",
    );
    equal(steps.filter((s) => s === "upload").length, 1, "one upload per sandbox");
    equal(steps[0], "upload");
    ok(steps.includes("push") && steps.includes("pull"));
  } finally {
    await Deno.remove(workspace, { recursive: true }).catch(() => {});
  }
});

Deno.test("sync: parallel first calls create one sandbox and upload once", opts, async () => {
  const workspace = await Deno.makeTempDir({ prefix: "dsh-remote-sync-" });
  try {
    await Deno.writeTextFile(`${workspace}/a.txt`, "a");
    const { sync, steps } = countedSync(workspace);
    await using fx = await remoteFixture({ workspace, sync });
    const session = fx.executor.forSession("s1");
    const [stat, entries, bytes] = await Promise.all([
      session.stat(`${workspace}/a.txt`),
      session.readDir(workspace),
      session.readFile(`${workspace}/a.txt`),
    ]);
    equal(stat?.size, 1);
    equal(entries.map((e) => e.name).join(","), "a.txt");
    equal(new TextDecoder().decode(bytes), "a");
    equal(fx.standIn.sandboxes().length, 1);
    equal(steps.filter((s) => s === "upload").length, 1);
  } finally {
    await Deno.remove(workspace, { recursive: true }).catch(() => {});
  }
});
