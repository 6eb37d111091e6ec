/**
 * Run by process_tree_restricted_test.ts under an explicit permission profile (no --allow-all,
 * so Deno refuses /proc and Deno.kill): kills trees through the real code paths and prints JSON.
 * Usage: `_restricted_kill.ts <tmp dir> <mode>` where mode is "kill" or "no-ps".
 */
import { LocalExecutor } from "../../builtins/local_executor.ts";
import { JobService } from "../../jobs/job_service.ts";
import { killProcessTree, processStartTime, processTree } from "../../jobs/process_tree.ts";
import { spawnDetachedTree } from "./_proc.ts";

const [dir = "", mode = "kill"] = Deno.args;

function refusal(action: () => unknown): string {
  try {
    action();
    return "allowed";
  } catch (error) {
    return error instanceof Error ? error.name : String(error);
  }
}

async function lines(path: string, count: number): Promise<number[]> {
  for (;;) {
    const rows = (await Deno.readTextFile(path).catch(() => "")).split("\n").filter(Boolean);
    if (rows.length >= count) return rows.map(Number);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

if (mode === "no-ps") {
  const child = new Deno.Command("sleep", { args: ["320"] }).spawn();
  let message = "";
  try {
    processTree(child.pid);
  } catch (error) {
    message = error instanceof Error ? error.message : String(error);
  }
  child.kill("SIGKILL");
  await child.status;
  console.log(JSON.stringify({ message }));
} else {
  const refused = {
    proc: refusal(() => Deno.readTextFileSync(`/proc/${Deno.pid}/stat`)),
    // Beyond any pid_max: only a permission refusal can differ from "NotFound".
    kill: refusal(() => Deno.kill(2 ** 23, "SIGCONT")),
  };
  // The shell executor: child, grandchild and a daemon that escaped group and tree (marker only).
  const pids = `${dir}/pids`;
  const controller = new AbortController();
  const run = new LocalExecutor({ pidNamespace: false }).run(
    `sleep 321 & echo $! >> ${pids}
     bash -c 'sleep 322 & echo $! >> ${pids}; wait' &
     (setsid sleep 323 >/dev/null 2>&1 & echo $! >> ${pids})
     echo $$ >> ${pids}
     wait`,
    { signal: controller.signal, killGraceMs: 50 },
  );
  const executorPids = await lines(pids, 4);
  controller.abort();
  const executor = await run;

  // The jobs layer: a detached tree, its start time, the listing and the kill.
  const { child, echoed: grandchild } = await spawnDetachedTree("sleep 324 & echo $!; wait");
  const startTime = await processStartTime(child.pid);
  const tree = processTree(child.pid);
  const reused = await killProcessTree(child.pid, { group: true, startTime: -1 });
  const killed = await killProcessTree(child.pid, {
    group: true,
    graceMs: 20_000, // SIGTERM ends it; a starved tree must not read SIGKILL first
    ...(startTime !== undefined ? { startTime } : {}),
  });
  await child.stdout.cancel();
  const status = await child.status;

  // A tree that ignores SIGTERM (the ignored disposition survives exec) needs the SIGKILL step.
  const { child: stubborn, echoed: stubbornChild } = await spawnDetachedTree(
    "trap '' TERM; sleep 325 & echo $!; wait",
  );
  const forced = await killProcessTree(stubborn.pid, { group: true, graceMs: 100 });
  await stubborn.stdout.cancel();
  const stubbornStatus = await stubborn.status;
  // The jobs service: a tracked detached tree, killed through JobService.kill(), which must
  // confirm reaping (no survivors) with only ps and kill available.
  const service = new JobService({ spillDir: `${dir}/spill`, killGraceMs: 20_000 });
  const jobPids = `${dir}/job_pids`;
  const jobId = service.start({
    kind: "bash",
    label: "tree",
    owner: "s1",
    run: async (job) => {
      const child = new Deno.Command("bash", {
        args: ["-c", `sleep 326 & echo $! >> ${jobPids}; echo $$ >> ${jobPids}; echo up; wait`],
        stdout: "piped",
        detached: true,
      }).spawn();
      job.trackProcess(child.pid, { group: true });
      for await (const chunk of child.stdout) job.output.write(chunk);
      const status = await child.status;
      return {
        ...(status.signal !== null ? { signal: status.signal } : { exitCode: status.code }),
      };
    },
  });
  const jobTree = await lines(jobPids, 2);
  const jobKill = await service.kill(jobId, { reason: "restricted", caller: "s1" });
  await service.dispose();
  console.log(JSON.stringify({
    refused,
    service: {
      pids: jobTree,
      outcome: jobKill.outcome,
      status: jobKill.job.status,
      signal: jobKill.job.detail.signal,
      survivors: jobKill.job.detail.survivors ?? [],
      killedBy: jobKill.job.detail.killedBy,
    },
    executor: { aborted: executor.aborted, pids: executorPids },
    jobs: {
      startTime: Number.isInteger(startTime),
      tree,
      expectedTree: [child.pid, grandchild],
      reused,
      signal: killed.signal,
      survivors: killed.survivors,
      status: status.signal,
    },
    stubborn: {
      pids: [stubborn.pid, stubbornChild],
      signal: forced.signal,
      survivors: forced.survivors,
      status: stubbornStatus.signal,
    },
  }));
}
