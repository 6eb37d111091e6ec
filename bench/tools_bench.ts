/**
 * Builtin tool benchmarks: `deno bench -A bench/tools_bench.ts`.
 *
 * - "bash spill": 200 MB of output through the bash tool (bounded memory, full spill file)
 *   against `cat` writing the same bytes to a file (baseline). Target: within 2x; peak RSS of
 *   the whole bench process (printed at exit) under 100 MB.
 * - "edit 10 MB": one `edit` of a 10 MB file, including the applied-hunk diff. Target < 200 ms.
 */
import { createBashTool } from "../builtins/bash.ts";
import { createEditTool } from "../builtins/fs_edit.ts";
import { LocalExecutor } from "../builtins/local_executor.ts";
import type { ToolExecution } from "../tools/definition.ts";

const TOTAL = 200_000_000;
const dir = await Deno.makeTempDir({ prefix: "dsh_tools_bench_" });
const executor = new LocalExecutor();
const bash = createBashTool({ executor, spillDir: dir });
const edit = createEditTool({ executor });

function exec(name: string): ToolExecution {
  return {
    callId: "bench",
    name,
    arguments: {},
    token: Symbol(name),
    signal: new AbortController().signal,
    output: { write() {} },
    deferContext() {},
  };
}

// Peak RSS of the process while the bash tool runs (the spill group runs before the edit group).
let spilling = false;
let peakRss = 0;
const sampler = setInterval(() => {
  if (spilling) peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
}, 5);
Deno.unrefTimer(sampler);
globalThis.addEventListener("unload", () => {
  console.error(`peak RSS during the bash spill: ${(peakRss / 1e6).toFixed(1)} MB`);
  Deno.removeSync(dir, { recursive: true });
});

// Check each case's output once before timing.
const check = await bash.execute({ command: `head -c ${TOTAL} /dev/zero` }, exec("bash"));
const spill = (check as unknown as { meta: { spillPath: string } }).meta.spillPath;
if ((await Deno.stat(spill)).size !== TOTAL) throw new Error("the spill file is incomplete");

Deno.bench({
  group: "bash spill 200 MB",
  name: "cat to a file",
  baseline: true,
  async fn() {
    const out = await new Deno.Command("bash", {
      args: ["-c", `head -c ${TOTAL} /dev/zero | cat > ${dir}/cat.out`],
    }).output();
    if (!out.success) throw new Error("cat failed");
  },
});

Deno.bench({
  group: "bash spill 200 MB",
  name: "bash tool (bounded memory + spill)",
  async fn(b) {
    spilling = true;
    b.start();
    const result = await bash.execute({ command: `head -c ${TOTAL} /dev/zero` }, exec("bash"));
    b.end();
    spilling = false;
    await Deno.remove((result as unknown as { meta: { spillPath: string } }).meta.spillPath);
  },
});

const target = `${dir}/big.ts`;
let marked: string | undefined;
function bigFile(): string {
  // Built lazily so the 10 MB strings do not inflate the spill group's RSS.
  const line = "const value = computeSomething(alpha, beta, gamma); // padding text\n";
  const big = line.repeat(Math.ceil(10_000_000 / line.length));
  return big.slice(0, big.length / 2) + "UNIQUE_MARKER\n" + big.slice(big.length / 2);
}

Deno.bench({
  group: "edit 10 MB",
  name: "edit one line of a 10 MB file",
  async fn(b) {
    await Deno.writeTextFile(target, marked ??= bigFile());
    b.start();
    await edit.execute(
      { file_path: target, old_string: "UNIQUE_MARKER", new_string: "REPLACED" },
      exec("edit"),
    );
    b.end();
  },
});
