/**
 * Remote executor bench: the Deno Sandbox executor over the loopback stand-in (the unmodified
 * SDK, a WebSocket on 127.0.0.1, each command in a bwrap box) against the local executor
 * (baseline) and the local bubblewrap executor, in one run.
 *
 * - `per call`: `run("true")`, the fixed cost of one command;
 * - `10 MB`: `run` of a command printing 10 MiB, every chunk delivered to `onOutput`.
 *
 * The loopback hides the network: on Deno Deploy add a round trip per call (spawn, then the
 * wait and the stream) and the link's throughput. `deno bench -A bench/remote_bench.ts`.
 */
import { LocalExecutor } from "../builtins/local_executor.ts";
import { createSandboxExecutor } from "../builtins/sandbox.ts";
import { denoSandboxExecutor } from "../remote/mod.ts";
import { startSandboxStandIn } from "../testing/deno_sandbox_stand_in.ts";
import type { Executor } from "../tools/executor.ts";

const workspace = await Deno.makeTempDir({ prefix: "dsh_remote_bench_" });
const standIn = await startSandboxStandIn();
const local = new LocalExecutor();
const bwrap = await createSandboxExecutor({ workspace });
const remote = denoSandboxExecutor({
  workspace,
  allowNet: [],
  endpoint: standIn.endpoint,
  token: standIn.token,
}).forSession("bench");
globalThis.addEventListener("unload", () => {
  // Best effort: the stand-in's folder and the workspace go with the process.
  Deno.removeSync(workspace, { recursive: true });
});

const TEN_MB = 10 * 1024 * 1024;
const BIG = `head -c ${TEN_MB} /dev/zero`;

async function big(executor: Executor): Promise<void> {
  let total = 0;
  const result = await executor.run(BIG, {
    cwd: workspace,
    onOutput: (c) => void (total += c.length),
  });
  if (result.exitCode !== 0 || total !== TEN_MB) {
    throw new Error(`Cannot finish the bench case: exit ${result.exitCode}, ${total} bytes`);
  }
}

async function once(executor: Executor): Promise<void> {
  const result = await executor.run("true", { cwd: workspace });
  if (result.exitCode !== 0) {
    throw new Error(`Cannot finish the bench case: exit ${result.exitCode}`);
  }
}

// Warm: the remote sandbox is created here, not in the first sample.
await once(remote);
await once(bwrap);

const cases: [string, Executor][] = [["local", local], ["bwrap", bwrap], [
  "remote (stand-in)",
  remote,
]];
for (const [name, executor] of cases) {
  Deno.bench(
    `per call: run("true") ${name}`,
    { group: "per call", baseline: name === "local" },
    async () => {
      await once(executor);
    },
  );
}
for (const [name, executor] of cases) {
  Deno.bench(`10 MB: run, output to onOutput, ${name}`, {
    group: "10 MB",
    baseline: name === "local",
    n: 10,
    warmup: 1,
  }, async () => {
    await big(executor);
  });
}
