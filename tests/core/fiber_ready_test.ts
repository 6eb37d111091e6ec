import { equal, match, ok } from "node:assert/strict";
import { tempDir } from "../_helpers.ts";

const CORE = new URL("../../core/mod.ts", import.meta.url).href;

/** A host script: three plugins fail to apply (sync, async, after an await); `ready` is read. */
function host(awaitReady: boolean): string {
  return `import { Context } from ${JSON.stringify(CORE)};
const root = new Context();
const fibers = [
  root.plugin({ name: "sync", apply() { throw new Error("sync apply failed"); } }),
  root.plugin({ name: "async", async apply() { await null; throw new Error("async apply failed"); } }),
];
const pending = fibers.map((fiber) => fiber.ready); // read, not awaited (yet)
const whole = root.fiber.ready;
// Event-driven: wait until both failed, then give unhandled rejections a macrotask to surface.
while (fibers.some((fiber) => fiber.state !== "failed")) await new Promise((r) => setTimeout(r, 0));
await new Promise((resolve) => setTimeout(resolve, 0));
${
    awaitReady
      ? `for (const ready of [...pending, whole]) {
  console.log(await ready.then(() => "resolved", (error) => "rejected: " + error.message));
}`
      : ""
  }
console.log("alive");
await root.fiber.dispose();
`;
}

async function runHost(awaitReady: boolean) {
  await using dir = await tempDir("dsh_ready_");
  const file = `${dir.path}/host.ts`;
  await Deno.writeTextFile(file, host(awaitReady));
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--no-lock", "--no-config", file],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("fiber.ready left unawaited never crashes the host; the failure is logged once", async () => {
  const run = await runHost(false);
  equal(run.code, 0, run.stderr);
  equal(run.stdout, "alive\n");
  equal(run.stderr.match(/plugin "sync" failed to apply: sync apply failed/g)?.length, 1);
  equal(run.stderr.match(/plugin "async" failed to apply: async apply failed/g)?.length, 1);
  ok(!run.stderr.includes("Uncaught"), run.stderr);
});

Deno.test("fiber.ready still rejects for whoever awaits it, also later", async () => {
  const run = await runHost(true);
  equal(run.code, 0, run.stderr);
  equal(
    run.stdout,
    "rejected: sync apply failed\nrejected: async apply failed\nrejected: sync apply failed\nalive\n",
  );
  match(run.stderr, /plugin "sync" failed to apply/);
});
