/**
 * Attack tests of the Code Mode sandbox (issue 13): real programs in real sandbox processes try
 * to persist data through Workers, exhaust memory with many Workers and discover host paths.
 */
import { equal, ok } from "node:assert/strict";
import { sandboxMemoryMb, subprocessRuntime } from "../../codemode/subprocess_runtime.ts";
import type { CodeToolCall } from "../../codemode/runtime.ts";

const runtime = subprocessRuntime();

function echo(call: CodeToolCall): Promise<string> {
  return Promise.resolve(JSON.stringify(call.args));
}

/** Bytes under `path` (0 when it does not exist). */
async function treeBytes(path: string): Promise<number> {
  let total = 0;
  try {
    for await (const entry of Deno.readDir(path)) {
      const child = `${path}/${entry.name}`;
      if (entry.isDirectory) total += await treeBytes(child);
      else total += (await Deno.lstat(child)).size;
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return total;
}

function hostDenoDir(): string {
  return Deno.env.get("DENO_DIR") ??
    `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`;
}

/** A Worker started from the program; resolves with its first message. */
const START_WORKER = `
function startWorker(source) {
  const worker = new Worker("data:application/javascript," + encodeURIComponent(source), { type: "module" });
  return new Promise((resolve) => {
    worker.onmessage = (event) => { resolve(event.data); worker.terminate(); };
    worker.onerror = (event) => { event.preventDefault(); resolve("worker error: " + event.message); };
  });
}`;

Deno.test("attack: a Worker cannot persist data through caches or localStorage across runs", async () => {
  const locationData = `${hostDenoDir()}/location_data`;
  const before = await treeBytes(locationData);
  const write = await runtime.run({
    program: `${START_WORKER}
const inWorker = await startWorker(\`
  const out = { types: [typeof caches, typeof localStorage, typeof indexedDB, typeof Deno.openKv] };
  try {
    const cache = await caches.open("dsh-attack");
    const big = new Uint8Array(1 << 20).fill(7);
    for (let i = 0; i < 32; i++) await cache.put("http://attack/" + i, new Response(big));
    out.cache = "WROTE";
  } catch (e) { out.cache = e.name; }
  try { localStorage.setItem("dsh-attack", "1"); out.local = "WROTE"; } catch (e) { out.local = e.name; }
  const nested = new Worker("data:application/javascript," + encodeURIComponent(
    "caches.open('dsh-nested').then((c) => c.put('http://n/', new Response('x')))" +
      ".then(() => postMessage('WROTE'), (e) => postMessage(e.name));",
  ), { type: "module" });
  out.nested = await new Promise((resolve) => { nested.onmessage = (e) => resolve(e.data); });
  nested.terminate();
  postMessage(out);
\`);
let main;
try { localStorage.setItem("dsh-attack", "1"); main = "WROTE"; } catch (e) { main = e.name; }
return { inWorker, main, exec: Deno.execPath() };`,
    callTool: echo,
  });
  const value = write.value as {
    inWorker: { cache: string; local: string; nested: string; types: string[] };
    main: string;
    exec: string;
  };
  equal(write.error, undefined);
  ok(value.inWorker.cache !== "WROTE", "the Worker stored 32 MB in the Cache API");
  ok(value.inWorker.local !== "WROTE", "the Worker stored into localStorage");
  equal(typeof value.inWorker.nested, "string");
  ok(value.inWorker.nested !== "WROTE", "a nested Worker stored into the Cache API");
  ok(value.main !== "WROTE", "the program stored into localStorage");
  equal(value.inWorker.types[2], "undefined");
  equal(value.inWorker.types[3], "undefined");
  // The private directory of the run is gone.
  const privateDir = value.exec.endsWith("/deno") ? value.exec.slice(0, -"/deno".length) : "";
  if (privateDir.includes("dsh-code-")) {
    equal(await Deno.stat(privateDir).then(() => "exists", () => "gone"), "gone");
  }
  // The next run sees nothing, and the host's Deno cache did not grow.
  const read = await runtime.run({
    program: `${START_WORKER}
return await startWorker(\`
  let found = "nothing";
  try { found = (await (await caches.open("dsh-attack")).match("http://attack/0")) ? "FOUND" : "nothing"; }
  catch (e) { found = e.name; }
  postMessage(found);
\`);`,
    callTool: echo,
  });
  ok(read.value !== "FOUND", "a later run found the cached entry");
  const growth = await treeBytes(locationData) - before;
  ok(growth < 1 << 20, `the host's Deno cache grew by ${growth} bytes`);
});

/** Polls `/proc/<pid>/status` until the process is gone; returns the largest VmHWM in KB. */
async function peakRssKb(pid: number): Promise<number> {
  let peak = 0;
  for (;;) {
    let status: string;
    try {
      status = await Deno.readTextFile(`/proc/${pid}/status`);
    } catch {
      return peak;
    }
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    if (match === null) return peak;
    peak = Math.max(peak, Number(match[1]));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

Deno.test({
  name: "attack: many Workers that allocate stay within the sandbox's memory limit",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const heapMb = 96;
    const limitKb = sandboxMemoryMb(heapMb) * 1024;
    let watch: Promise<number> | undefined;
    const result = await runtime.run({
      program: `${START_WORKER}
await tools.watch({ pid: Deno.pid });
const source = \`const keep = [];
  for (let i = 0; i < 80; i++) keep.push(new Array(1e6 / 8).fill(i + 0.5));
  postMessage(keep.length);\`;
// Every Worker keeps its memory until all have allocated: terminating each one on its message
// would let a loaded machine run them one after another, each under the limit.
const workers = Array.from({ length: 12 }, () =>
  new Worker("data:application/javascript," + encodeURIComponent(source), { type: "module" }));
const done = await Promise.all(workers.map((worker) => new Promise((resolve) => {
  worker.onmessage = (event) => resolve(event.data);
  worker.onerror = (event) => { event.preventDefault(); resolve("worker error: " + event.message); };
})));
for (const worker of workers) worker.terminate();
return done;`,
      callTool: (call) => {
        if (call.name === "watch") watch = peakRssKb((call.args as { pid: number }).pid);
        return Promise.resolve("watching");
      },
      limits: { heapMb, timeoutMs: 60_000 },
    });
    ok(watch !== undefined, JSON.stringify(result));
    const peak = await watch!;
    // 12 Workers × ~80 MB would be ~1 GB; RSS may add the Deno binary's resident text.
    ok(result.error !== undefined, `the Workers allocated ${JSON.stringify(result.value)}`);
    ok(
      peak < limitKb + 200 * 1024,
      `peak RSS ${peak} KB exceeds the ${limitKb} KB limit`,
    );
    equal((await runtime.run({ program: "return 1", callTool: echo })).value, 1);
  },
});

Deno.test("attack: ArrayBuffers outside the V8 heap are bounded too", async () => {
  const heapMb = 64;
  const result = await runtime.run({
    program: `const keep = [];
try { for (let i = 0; i < 64; i++) { const b = new Uint8Array(32 << 20); b.fill(1); keep.push(b); } }
catch (e) { return { mb: keep.length * 32, error: e.name }; }
return { mb: keep.length * 32 };`,
    callTool: echo,
    limits: { heapMb },
  });
  if (result.error === undefined) {
    const value = result.value as { mb: number; error?: string };
    ok(value.mb <= sandboxMemoryMb(heapMb), `the program held ${value.mb} MB of ArrayBuffers`);
    equal(value.error, "RangeError");
  } else {
    equal(result.error.kind, "out-of-memory");
  }
});

Deno.test("attack: a program learns no host path, in the main realm or in a Worker", async () => {
  const hostExec = Deno.execPath();
  const secrets = [
    hostExec,
    await Deno.realPath(hostExec),
    new URL(".", import.meta.url).pathname.replace(/\/tests\/codemode\/$/, ""),
    Deno.cwd(),
    Deno.env.get("HOME") ?? "/nonexistent-home",
  ].filter((path) => path !== "/" && path !== "");
  const probes = `
const out = {};
const tryIt = (name, f) => { try { out[name] = String(f()); } catch (e) { out[name] = "denied " + e.name + ": " + e.message; } };
tryIt("mainModule", () => Deno.mainModule);
tryIt("execPath", () => Deno.execPath());
tryIt("cwd", () => Deno.cwd());
tryIt("url", () => import.meta.url);
tryIt("location", () => globalThis.location?.href);
tryIt("stack", () => new Error("probe").stack);
tryIt("internal", () => JSON.stringify(Object.keys(Deno[Deno.internal] ?? {})));
tryIt("exe", () => Deno.readLinkSync("/proc/self/exe"));
tryIt("environ", () => Deno.readTextFileSync("/proc/self/environ"));
tryIt("cmdline", () => Deno.readTextFileSync("/proc/self/cmdline"));
tryIt("env", () => JSON.stringify(Deno.env.toObject()));
`;
  const result = await runtime.run({
    program: `${START_WORKER}
${probes}
try { await tools.fail({}); } catch (e) { out.toolStack = e.stack; }
try { await import("data:application/javascript,throw new Error('nested')"); } catch (e) { out.nested = e.stack; }
try { const p = await import("node:process"); out.argv = JSON.stringify(p.argv) + p.execPath; } catch (e) { out.argv = "denied " + e.message; }
out.worker = await startWorker(\`${probes.replaceAll("`", "\\`")} postMessage(out);\`);
console.log(JSON.stringify(out));
throw new Error("final");`,
    callTool: (call) =>
      call.name === "fail" ? Promise.reject(new Error("no such tool")) : echo(call),
  });
  const seen = JSON.stringify(result);
  ok(seen.includes("mainModule"), seen);
  ok(!seen.includes("file://"), `a file URL leaked: ${seen}`);
  const linkable = await sameDevice(hostExec);
  for (const secret of secrets) {
    if (!linkable && secret.includes("deno")) continue; // see SECURITY.md: known limit
    ok(!seen.includes(secret), `the host path ${secret} leaked: ${seen}`);
  }
});

/** Whether the Deno binary can be hard-linked into the temp dir (same file system). */
async function sameDevice(exec: string): Promise<boolean> {
  const dir = await Deno.makeTempDir();
  try {
    return (await Deno.stat(await Deno.realPath(exec))).dev === (await Deno.stat(dir)).dev;
  } finally {
    await Deno.remove(dir);
  }
}
