/**
 * Jobs layer benchmarks: output throughput of a process producer through `ctx.jobs` (spill file
 * + in-memory window) against the floor of the same producer redirected to a file by the shell,
 * plus a one-off peak RSS measurement for a large job.
 *
 * Run: `deno bench -A bench/jobs_bench.ts`
 */
import { JobService } from "../jobs/job_service.ts";

const SIZE = 64 * 1024 * 1024;
const PRODUCER = `yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c ${SIZE}`;
const dir = await Deno.makeTempDir({ prefix: "dsh_jobs_bench_" });
const jobs = new JobService({ spillDir: dir });

async function throughJob(): Promise<number> {
  const id = jobs.start({
    kind: "bench",
    label: PRODUCER,
    run: async (job) => {
      const child = new Deno.Command("sh", {
        args: ["-c", PRODUCER],
        detached: true,
        stdout: "piped",
      })
        .spawn();
      job.trackProcess(child.pid, { group: true });
      for await (const chunk of child.stdout) job.output.write(chunk);
      return { exitCode: (await child.status).code };
    },
  });
  const job = await jobs.wait(id);
  await Deno.remove(job.outputPath!);
  return job.outputBytes;
}

async function shellToFile(): Promise<void> {
  const path = `${dir}/floor.out`;
  await new Deno.Command("sh", { args: ["-c", `${PRODUCER} > ${path}`] }).output();
  await Deno.remove(path);
}

async function denoPipeToFile(): Promise<void> {
  const path = `${dir}/pipe.out`;
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const child = new Deno.Command("sh", { args: ["-c", PRODUCER], stdout: "piped" }).spawn();
  await child.stdout.pipeTo(file.writable);
  await child.status;
  await Deno.remove(path);
}

// Check each case once before timing.
if ((await throughJob()) !== SIZE) throw new Error("jobs bench: wrong byte count");

// Peak RSS for 512 MiB through one job (sampled every 256 chunks), reported once.
{
  const big = 512 * 1024 * 1024;
  const before = Deno.memoryUsage().rss;
  let peak = before;
  const id = jobs.start({
    kind: "rss",
    label: "512 MiB",
    run: async (job) => {
      const child = new Deno.Command("sh", {
        args: ["-c", `yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c ${big}`],
        stdout: "piped",
      }).spawn();
      let n = 0;
      for await (const chunk of child.stdout) {
        job.output.write(chunk);
        if (++n % 256 === 0) peak = Math.max(peak, Deno.memoryUsage().rss);
      }
      await child.status;
    },
  });
  const job = await jobs.wait(id);
  const onDisk = (await Deno.stat(job.outputPath!)).size;
  await Deno.remove(job.outputPath!);
  console.error(
    `jobs bench: 512 MiB job: ${onDisk} bytes on disk (produced ${job.outputBytes}); RSS before ${
      (before / 2 ** 20).toFixed(0)
    } MiB, peak ${(peak / 2 ** 20).toFixed(0)} MiB (+${
      ((peak - before) / 2 ** 20).toFixed(0)
    } MiB)`,
  );
}

Deno.bench({
  group: "output 64 MiB",
  name: "floor: shell redirects the producer to a file",
  baseline: true,
  fn: shellToFile,
});
Deno.bench({ group: "output 64 MiB", name: "Deno pipeTo(file)", fn: denoPipeToFile });
Deno.bench({
  group: "output 64 MiB",
  name: "dsh job (spill file + window)",
  fn: async () => void await throughJob(),
});

globalThis.addEventListener("unload", () => {
  Deno.removeSync(dir, { recursive: true });
});
