import { deepEqual, equal, rejects } from "node:assert/strict";
import { killProcessTree, processTree } from "../../jobs/process_tree.ts";
import { isAlive } from "../_helpers.ts";

Deno.test("killProcessTree() kills descendants of a process in our own group", async () => {
  const child = new Deno.Command("sh", {
    args: ["-c", "sleep 310 & echo $!; wait"],
    stdout: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  const grandchild = Number(new TextDecoder().decode((await reader.read()).value).trim());
  deepEqual(processTree(child.pid), [child.pid, grandchild]);
  const result = await killProcessTree(child.pid, { graceMs: 10_000 });
  deepEqual([result.signal, result.survivors], ["SIGTERM", []]);
  equal(isAlive(grandchild), false);
  reader.releaseLock();
  await child.stdout.cancel();
  equal((await child.status).signal, "SIGTERM");
});

Deno.test("killProcessTree() reports nothing to do for a gone process and rejects bad pids", async () => {
  const child = new Deno.Command("true").spawn();
  await child.status;
  deepEqual(await killProcessTree(child.pid), { targeted: [], survivors: [] });
  await rejects(killProcessTree(Deno.pid), {
    name: "RangeError",
    message:
      `Cannot kill process tree as 'pid' must be a child process id: current value is ${Deno.pid}`,
  });
});

Deno.test("killProcessTree() leaves a reused pid alone", async () => {
  const child = new Deno.Command("sleep", { args: ["311"] }).spawn();
  const result = await killProcessTree(child.pid, { startTime: -1 });
  deepEqual(result, { targeted: [], survivors: [] });
  equal(isAlive(child.pid), true);
  child.kill("SIGKILL");
  await child.status;
});
