/**
 * Code Mode sandbox benchmarks (subprocess runtime).
 *
 * `deno bench -A bench/codemode_bench.ts` — whole runs: cold start (spawn → `return 1` → reaped),
 * one binding, 1000 sequential and 1000 concurrent bindings (each includes a cold start; the
 * cold start is the baseline).
 * `deno run -A bench/codemode_bench.ts` — in-program medians: one warm binding round trip
 * measured inside the sandbox with `performance.now()`, and cold start over 30 fresh sandboxes.
 */
import { subprocessRuntime } from "../codemode/subprocess_runtime.ts";
import type { CodeRunOptions } from "../codemode/runtime.ts";

const runtime = subprocessRuntime();
const callTool: CodeRunOptions["callTool"] = () => Promise.resolve("ok");
const SEQUENTIAL = "for (let i = 0; i < 1000; i++) await tools.echo({ i });";
const CONCURRENT = "await Promise.all(Array.from({ length: 1000 }, (_, i) => tools.echo({ i })));";
const LIMITS = { maxCalls: 2000, maxInFlight: 1000 };

async function check(program: string): Promise<void> {
  const result = await runtime.run({ program, callTool, limits: LIMITS });
  if (result.error) throw new Error(`bench program failed: ${result.error.message}`);
}

await check("return 1");
await check(CONCURRENT);

Deno.bench({
  group: "run",
  name: "cold start (return 1)",
  baseline: true,
  fn: async () => await check("return 1"),
});
Deno.bench({
  group: "run",
  name: "one binding",
  fn: async () => await check("await tools.echo({})"),
});
Deno.bench({
  group: "run",
  name: "1000 sequential bindings",
  n: 20,
  fn: async () => await check(SEQUENTIAL),
});
Deno.bench({
  group: "run",
  name: "1000 concurrent bindings",
  n: 20,
  fn: async () => await check(CONCURRENT),
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

if (import.meta.main && !("bench" in Deno.build)) {
  const cold: number[] = [];
  for (let i = 0; i < 32; i++) {
    const start = performance.now();
    await check("return 1");
    if (i >= 2) cold.push(performance.now() - start);
  }
  const trips = await runtime.run({
    program: `const times = [];
for (let i = 0; i < 1000; i++) { const t = performance.now(); await tools.echo({ i }); times.push(performance.now() - t); }
return times.slice(50);`,
    callTool,
    limits: LIMITS,
  });
  const concurrent: number[] = [];
  for (let i = 0; i < 12; i++) {
    const result = await runtime.run({
      program: `const t = performance.now(); ${CONCURRENT} return performance.now() - t;`,
      callTool,
      limits: LIMITS,
    });
    if (i >= 2) concurrent.push(result.value as number);
  }
  const fmt = (n: number) => `${n.toFixed(3)} ms`;
  console.log(`cold start median (n=30):                 ${fmt(median(cold))}`);
  console.log(`binding round trip median (n=950, warm):  ${fmt(median(trips.value as number[]))}`);
  console.log(`1000 concurrent bindings median (n=10):   ${fmt(median(concurrent))}`);
}
