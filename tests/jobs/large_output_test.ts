import { equal, ok } from "node:assert/strict";
import { JobService } from "../../jobs/job_service.ts";
import { tempDir } from "../_helpers.ts";

const SIZE = 500 * 1024 * 1024;

Deno.test("JobService keeps 500 MB of output on disk with bounded memory", async () => {
  await using dir = await tempDir();
  await using jobs = new JobService({ spillDir: dir.path });
  const rssBefore = Deno.memoryUsage().rss;
  let peak = rssBefore;
  const id = jobs.start({
    kind: "yes",
    label: `yes | head -c ${SIZE}`,
    run: async (job) => {
      const child = new Deno.Command("sh", {
        args: ["-c", `yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c ${SIZE}`],
        detached: true,
        stdout: "piped",
      }).spawn();
      job.trackProcess(child.pid, { group: true });
      let chunks = 0;
      for await (const chunk of child.stdout) {
        job.output.write(chunk);
        if (++chunks % 256 === 0) peak = Math.max(peak, Deno.memoryUsage().rss);
      }
      const status = await child.status;
      return { exitCode: status.code };
    },
  });
  const job = await jobs.wait(id);
  equal(job.status, "completed");
  equal(job.outputBytes, SIZE);
  equal((await Deno.stat(job.outputPath!)).size, SIZE);
  const growth = peak - rssBefore;
  ok(growth < 200 * 1024 * 1024, `RSS grew by ${growth} bytes while producing ${SIZE}`);
  // The head comes from the file, the tail from memory; both are exact.
  const head = await jobs.read(id, { cursor: 0, maxBytes: 37 });
  equal(head.text, "0123456789abcdefghijklmnopqrstuvwxyz\n");
  const tail = await jobs.read(id, { cursor: SIZE - 10 });
  equal(tail.next, SIZE);
  equal(tail.text.length, 10);
});
