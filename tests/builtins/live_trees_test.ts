import { equal, notEqual } from "node:assert/strict";
import { LocalExecutor } from "../../builtins/local_executor.ts";
import { LiveTrees } from "../../jobs/process_containment.ts";

Deno.test("each executor registers its running trees in its own LiveTrees: killAll() stops only those", async () => {
  const shared = new LiveTrees();
  const a = new LocalExecutor({ liveTrees: shared });
  const b = new LocalExecutor();
  equal(a.liveTrees, shared);
  notEqual(b.liveTrees, shared);
  // Killed once it runs (its first output), not while the launcher is still starting.
  let ready!: () => void;
  const started = new Promise<void>((resolve) => ready = resolve);
  const running = a.run("echo ready; exec sleep 600", { onOutput: () => ready() });
  await started;
  equal(shared.size, 1);
  equal(b.liveTrees.size, 0);
  await b.liveTrees.killAll(); // another harness's shutdown: this run goes on
  equal(shared.size, 1);
  await shared.killAll();
  const result = await running;
  equal(result.exitCode === 0, false);
  equal(shared.size, 0);
});
